"""The baseline's scenario: one question, one tool turn, one answer."""

from __future__ import annotations

from ..spec import Scenario, Text

SCENARIOS = (
    Scenario(
        "umbrella-one-call",
        "direct",
        "-",
        Text("Umbrella today? (one call, the baseline)", "今天要带伞吗？（一次调用，基线）"),
        Text("Should I take an umbrella in Shanghai today?", "今天在上海出门要带伞吗？"),
        ("weather",),
        {},
        Text(
            "One tool turn, then one call with tools off writes the answer: two calls, no loop, no critique.",
            "一轮工具调用，再用一次禁用工具的调用写出答案：共两次调用，没有循环，也没有评审。",
        ),
    ),
)
