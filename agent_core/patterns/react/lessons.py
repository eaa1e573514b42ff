"""How ReAct is taught and drawn: its variants, graph, step blocks, Eval entry and Learn text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..spec import Edge, EvalEntry, Lesson, Text, VariantSpec


def edges(config: Mapping[str, Any]) -> list[Edge]:
    edges: list[Edge] = [
        ("task", "actor", None),
        ("actor", "tools", Text("tool call", "调用工具")),
        ("tools", "actor", Text("observation", "观察结果")),
        ("actor", "answer", Text("no tool call", "不再调用工具")),
    ]
    if config.get("max_reflection_rounds", 0):
        return edges + [
            ("answer", "judge", None),
            ("judge", "actor", Text("REVISE + feedback", "REVISE + 反馈")),
            ("judge", "end", Text("PASS", "PASS")),
        ]
    return edges + [("answer", "end", None)]


def block_of(role: str, step: int | None) -> tuple[Any, ...]:
    return ("judge", step) if role == "judge" else ("round", step)


def block_title(ident: tuple[Any, ...], config: Mapping[str, Any], lang: str) -> str | None:
    kind, step = ident[0], ident[1]
    if kind == "round":
        return Text(f"Round {step}", f"第 {step} 轮")(lang)
    if kind == "judge":
        return Text(f"Judge · the answer of round {step}", f"评审 · 第 {step} 轮的答案")(lang)
    return None


VARIANTS = (
    VariantSpec(
        "react",
        Text("ReAct", "ReAct"),
        Text(
            "Reason, call a tool, read the observation, repeat until it can answer (seeds 01, 05).",
            "推理、调用工具、读取观察结果，循环直到能够作答（种子文章 01、05）。",
        ),
        "dentist-booking",
        {"max_reflection_rounds": 0},
        frozenset({"max_reflection_rounds"}),
    ),
    VariantSpec(
        "react-advisor",
        Text("ReAct + reflection advisor", "ReAct + 反思顾问"),
        Text(
            "ReAct, and a judge reviews every final answer; its feedback sends the agent back to work (seed 01).",
            "ReAct，另有评审检查每个最终答案；未通过时反馈让智能体继续工作（种子文章 01）。",
        ),
        "weather-report",
        floors={"max_reflection_rounds": 1},
    ),
)


NODES = {
    "task": Text("Task", "任务"),
    "actor": Text("Reason\\n(actor)", "推理\\n（执行者）"),
    "tools": Text("Act\\n(tool call)", "行动\\n（调用工具）"),
    "answer": Text("Final answer", "最终答案"),
    "judge": Text("Judge\\n(reflection advisor)", "评审\\n（反思顾问）"),
    "end": Text("End", "结束"),
}


EVAL_ENTRIES = (
    EvalEntry("react", {}, Text("one answer, no tools: a one-shot baseline", "不用工具、直接作答：一次生成的基线")),
)


LESSON = Lesson(
    "react-advisor",
    "weather-report",
    Text("ReAct (+ reflection advisor)", "ReAct（+ 反思顾问）"),
    Text(
        "The model alternates **reasoning** and **acting**: it thinks, calls a tool, reads the "
        "observation, and repeats until it can answer. Guards keep it from looping: a round limit "
        "followed by one forced answer with tools disabled, a repeat detector (a reminder, then a stop) "
        "and a progress detector (near-identical thoughts end the loop). The optional **reflection "
        "advisor** (seed 01) judges every final answer as `{passed, feedback}`; a failing answer sends "
        "the feedback back into the loop, up to a cap.",
        "模型在**推理**与**行动**之间交替：思考、调用工具、读取观察结果，循环直到能够作答。"
        "防护机制防止空转：轮次上限（之后禁用工具、强制作答一次）、重复检测（先提醒、再终止）、"
        "进展检测（连续思考高度相似即终止）。可选的**反思顾问**（种子文章 01）以 `{passed, feedback}` "
        "评估每个最终答案；未通过时把反馈注入下一轮，直到达到上限。",
    ),
    (
        Text(
            "exploratory tasks where the next step depends on what a tool returns",
            "下一步取决于工具返回结果的探索性任务",
        ),
        Text("a handful of tools and a short path to the answer", "工具不多、路径较短的任务"),
    ),
    (
        Text(
            "long tasks that need a global plan (it improvises each step and can drift)",
            "需要全局规划的长流程任务（每步即兴决定，容易偏离）",
        ),
        Text("streaming chat where the advisor's extra latency hurts", "对延迟敏感的流式对话（反思会拉长响应时间）"),
    ),
    Text(
        "At most `max_rounds + 1` actor calls, plus `max_reflection_rounds` judge calls (twice that with "
        "the repair re-ask).",
        "执行者最多 `max_rounds + 1` 次调用，另加 `max_reflection_rounds` 次评审调用（启用修复重问时翻倍）。",
    ),
)
