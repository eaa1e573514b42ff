"""How the `direct` baseline is taught and drawn: its variant, graph, step titles, Eval entries and
Learn text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..spec import Edge, EvalEntry, Lesson, Text, VariantSpec

VARIANTS = (
    VariantSpec(
        "direct",
        Text("Direct — one call (baseline)", "直接回答——一次调用（基线）"),
        Text(
            "One model call answers the task: no loop, no critique. The yardstick for the "
            "other patterns (Huang et al. 2024).",
            "一次模型调用直接作答：没有循环，也没有评审。是衡量其他模式的基准（Huang 等，2024）。",
        ),
        "umbrella-one-call",
    ),
)


def edges(config: Mapping[str, Any]) -> list[Edge]:
    if config.get("tools"):
        return [
            ("task", "actor", None),
            ("actor", "tools", Text("tool calls, one turn", "一轮工具调用")),
            ("tools", "final", Text("results", "结果")),
            ("actor", "end", Text("no tool call", "不调用工具")),
            ("final", "end", None),
        ]
    return [("task", "actor", None), ("actor", "end", None)]


NODES = {
    "task": Text("Task", "任务"),
    "actor": Text("One call\\n(actor)", "一次调用\\n（执行者）"),
    "tools": Text("Tools\\n(one turn)", "工具\\n（一轮）"),
    "final": Text("Final call\\n(tools off)", "最终调用\\n（禁用工具）"),
    "end": Text("End", "结束"),
}


def role_node(role: str, config: Mapping[str, Any], after: str | None) -> str:
    # the call after the tool turn is the final one (tools off): it has its own node
    return "final" if after in ("tools", "final") else "actor"


def block_title(ident: tuple[Any, ...], config: Mapping[str, Any], lang: str) -> str | None:
    return Text("One call", "一次调用")(lang) if ident[0] == "actor" else None


EVAL_ENTRIES = (
    EvalEntry(
        "direct", {}, Text("one model call, no loop, no critique: the baseline", "一次模型调用，没有循环和评审：基线")
    ),
)

LESSON = Lesson(
    "direct",
    "umbrella-one-call",
    Text("Direct (baseline)", "直接回答（基线）"),
    Text(
        "**One call** answers the task. No loop, no plan, no critique: where the task has tools, the "
        "model may call them once, and one more call (tools off) writes the answer. It is the yardstick: "
        "Huang et al. (ICLR 2024) found that intrinsic self-correction often *lowers* accuracy once the "
        "baseline gets the same budget, and CorrectBench (2025) finds plain prompting competitive. Put it "
        "beside any pattern to see what the loop really buys.",
        "**一次调用**直接完成任务。没有循环、没有计划、没有评审：任务有工具时，模型可以调用一次，"
        "再用一次调用（禁用工具）写出答案。它是衡量其他模式的基准：Huang 等（ICLR 2024）发现，"
        "在基线获得相同调用预算时，内在自我纠错往往反而*降低*准确率；CorrectBench（2025）也发现"
        "朴素提示颇具竞争力。把它放在任何模式旁边，看看循环到底带来了什么。",
    ),
    (
        Text("a yardstick beside any other pattern, at the same call budget", "在相同调用预算下与其他模式对比的基准"),
        Text("simple lookups and tasks a strong model gets right first time", "简单查询，以及强模型一次就能做对的任务"),
    ),
    (
        Text(
            "tasks that need several dependent tool calls (it has only one turn)",
            "需要多次相互依赖的工具调用的任务（只有一轮）",
        ),
        Text(
            "work where an external check (tests) could catch and fix mistakes",
            "有外部检验（如测试）可以发现并修正错误的工作",
        ),
    ),
    Text("Exactly 1 call, or 2 when the task has tools.", "恰好 1 次调用；任务有工具时为 2 次。"),
)
