"""The baseline's scenario: one question, one tool turn, one answer."""

from __future__ import annotations

from ..spec import Scenario

SCENARIOS = (
    Scenario(
        "umbrella-one-call", "direct", "-",
        {"en": "Umbrella today? (one call, the baseline)", "zh": "今天要带伞吗？（一次调用，基线）"},
        {"en": "Should I take an umbrella in Shanghai today?", "zh": "今天在上海出门要带伞吗？"},
        ("weather",), {},
        {"en": "One tool turn, then one call with tools off writes the answer: two calls, no loop, no critique.",
         "zh": "一轮工具调用，再用一次禁用工具的调用写出答案：共两次调用，没有循环，也没有评审。"}),
)
