"""How Plan-and-Execute is taught and drawn: its variants, graph, step blocks, Eval entry, Compare preset
and Learn text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..spec import Edge, EvalEntry, LaneSpec, Lesson, Preset, Text, VariantSpec


def edges(config: Mapping[str, Any]) -> list[Edge]:
    edges: list[Edge] = [
        ("task", "planner", None),
        ("planner", "executor", Text("next step", "下一步")),
        ("executor", "tools", None),
        ("tools", "executor", None),
    ]
    done = Text("all steps done", "全部步骤完成")
    if config.get("reflector"):
        edges += [
            ("executor", "reflector", Text("result", "结果")),
            ("reflector", "executor", Text("PASS: next · RETRY", "PASS：下一步 · RETRY")),
            ("reflector", "planner", Text("REPLAN", "REPLAN")),
            ("reflector", "synthesizer", done),
        ]
    else:
        edges += [("executor", "synthesizer", done)]
    return edges + [("synthesizer", "end", None)]


def block_of(role: str, step: int | None) -> tuple[Any, ...]:
    if role == "planner":
        return ("plan",)
    if role in ("executor", "reflector"):
        return ("step", step, 0)
    return ("synth", step) if role == "synthesizer" else (role, step)


def block_title(ident: tuple[Any, ...], config: Mapping[str, Any], lang: str) -> str | None:
    return Text("Synthesis", "综合")(lang) if ident[0] == "synth" else None


VARIANTS = (
    VariantSpec(
        "plan-execute",
        Text("Plan-and-Execute", "计划执行"),
        Text(
            "A planner writes the steps; a goal-blind executor runs each one; a synthesizer answers (seeds 03, 05).",
            "规划器写出步骤；目标不可见的执行器逐步执行；综合器作答（种子文章 03、05）。",
        ),
        "order-99999",
        {"reflector": False},
        frozenset({"reflector", "max_step_retries", "selective_reflection"}),
    ),
    VariantSpec(
        "plan-execute-reflector",
        Text("Plan-and-Execute + Reflector", "计划执行 + 反思器"),
        Text(
            "Plan-and-Execute with a Reflector judging every step: PASS, RETRY or REPLAN (seed 03).",
            "计划执行，另有反思器评估每个步骤：PASS、RETRY 或 REPLAN（种子文章 03）。",
        ),
        "order-99999",
        {"reflector": True},
        frozenset({"reflector"}),
    ),
)


NODES = {
    "task": Text("Task", "任务"),
    "planner": Text("Planner", "规划器"),
    "executor": Text("Executor\\n(one step)", "执行器\\n（单个步骤）"),
    "tools": Text("Act\\n(tool call)", "行动\\n（调用工具）"),
    "reflector": Text("Reflector", "反思器"),
    "synthesizer": Text("Synthesizer", "综合器"),
    "end": Text("End", "结束"),
}


EVAL_ENTRIES = (
    EvalEntry(
        "plan-execute",
        {},
        Text("plan the function, then write it (the executor sees the task)", "先规划再编写（执行器可以看到任务）"),
    ),
)


PRESETS = (
    Preset(
        "executor",
        Text("Goal-blind vs goal-aware executor", "执行器：不看目标 vs 看目标"),
        ":material/visibility_off:",
        Text(
            "Plan-and-Execute with the Reflector on the two long-haired cats: the goal-blind executor lists every "
            "spec and is sent back (RETRY); the goal-aware one answers for the cats at once (seed 03).",
            "在两只长毛猫的任务上运行带反思器的计划执行：看不到目标的执行器罗列全部参数而被打回（RETRY）；"
            "看得到目标的执行器直接针对养猫作答（种子文章 03）。",
        ),
        (
            LaneSpec(
                "plan-execute-reflector", Text("Goal-blind executor", "执行器不看目标"), {"goal_aware_executor": False}
            ),
            LaneSpec(
                "plan-execute-reflector", Text("Goal-aware executor", "执行器看目标"), {"goal_aware_executor": True}
            ),
        ),
        scenario="vacuum-cats",
    ),
)


LESSON = Lesson(
    "plan-execute-reflector",
    "order-99999",
    Text("Plan-and-Execute (+ Reflector)", "计划执行（+ 反思器）"),
    Text(
        "A **planner** writes the steps first; an **executor** runs each step in a small tool loop, "
        "seeing only the step (goal-blind, as seed 03 argues); a **synthesizer** writes the reply. The "
        "optional **Reflector** judges every step against the user's full goal: **PASS** (next step), "
        "**RETRY** (run it again with its suggestion), **REPLAN** (mark it failed and re-plan the rest, "
        "with the failure reasons). Because the executor cannot see the goal, the Reflector is the one "
        "place where the user's real situation comes back during execution.",
        "**规划器**先写出步骤；**执行器**在小型工具循环中逐步执行，只看得到当前步骤（种子文章 03 "
        "主张的“目标不可见”）；**综合器**生成最终回复。可选的**反思器**用用户的完整目标评估每一步："
        "**PASS**（继续）、**RETRY**（带着建议重试本步）、**REPLAN**（标记失败并带着失败原因重规划剩余步骤）。"
        "由于执行器看不到目标，反思器是执行期间唯一把用户真实处境带回来的环节。",
    ),
    (
        Text(
            "multi-step tasks with dependencies, where one step's failure changes the rest",
            "步骤间有依赖、一步失败会影响全局的多步任务",
        ),
        Text(
            "a strong planner with a cheaper executor (bind them to different models)",
            "强模型做规划、快模型做执行（分别绑定不同模型）",
        ),
    ),
    (
        Text("single-step lookups: the plan and the reviews are pure overhead", "单步查询：规划与反思都是额外开销"),
        Text("tasks whose path is only discovered while acting", "只有边做边看才能找到路径的任务"),
    ),
    Text(
        "Seed 03's table, with N steps: no reflection `1 + N`; every step passes `1 + 2N`; one RETRY adds "
        "`2`; one REPLAN adds `1 + M` (M = new steps' calls). Our hard bound covers every path.",
        "种子文章 03 的成本表（N 为步骤数）：无反思 `1 + N`；全部 PASS `1 + 2N`；一次 RETRY 再加 `2`；"
        "一次 REPLAN 再加 `1 + M`（M 为新步骤的调用）。下方的硬上限覆盖所有路径。",
    ),
)


#: The executor sees the function it is to write: an eval judges how a pattern solves a task, not
#: whether a goal-blind step can guess a signature it was never shown.
EVAL_DEFAULTS = {"goal_aware_executor": True}
