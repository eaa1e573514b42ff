"""The options of ReAct: its round limits and its two switches (text protocol, observation check)."""

from __future__ import annotations

from dataclasses import dataclass

from ...config import Options
from ..spec import LimitSpec, SwitchSpec, Text

LIMITS = (
    LimitSpec(
        "max_rounds",
        1,
        30,
        Text("Max rounds", "最大轮次"),
        Text(
            "ReAct rounds before one forced final answer with tools disabled",
            "ReAct 轮次上限，之后禁用工具、强制作答一次",
        ),
    ),
    LimitSpec(
        "max_reflection_rounds",
        0,
        5,
        Text("Max judge rounds", "最大评审轮次"),
        Text("judge evaluations of a final answer (0 = advisor off)", "对最终答案的评审次数（0 = 关闭反思顾问）"),
        flag="reflection-rounds",
    ),
)

SWITCHES = (
    SwitchSpec(
        "text_protocol",
        Text("Text protocol", "文本协议"),
        Text(
            "Thought / Action / Action Input lines instead of native tool calls, for models without tool calling.",
            "用 Thought / Action / Action Input 文本行代替原生工具调用，适合不支持工具调用的模型。",
        ),
    ),
    SwitchSpec(
        "observation_check",
        Text("Observation check", "观察检查"),
        Text(
            "A reflector looks at each round's tool results and appends a hint when they hold an error (seed 03).",
            "每轮由反思器检查工具结果，出错时在观察结果后追加提示（种子文章 03）。",
        ),
    ),
)


@dataclass(frozen=True)
class ReactOptions(Options):
    """What only a ReAct run reads."""

    LIMITS = LIMITS

    max_rounds: int = 8
    """Rounds of reason-and-act before one forced final answer with tools disabled."""
    max_reflection_rounds: int = 0
    """Judgements of a final answer by the reflection advisor (0 = the advisor is off)."""
    text_protocol: bool = False
    """Thought / Action / Action Input lines instead of native tool calls."""
    observation_check: bool = False
    """A reflector checks each round's tool results and appends a hint to the observation."""
