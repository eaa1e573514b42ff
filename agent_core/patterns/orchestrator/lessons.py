"""How orchestrator–workers is taught and drawn: its variants, graph (a branch per worker), step blocks,
Compare preset and Learn text.

It has no Eval entry: the bundled tasks are single functions (and single word problems), with nothing
to split into independent subtasks, so a run would pay a split, a review and a synthesis around one
worker doing what `direct` does in one call — a cost Eval would report, not a comparison it could make.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..spec import Edge, LaneSpec, Lesson, Preset, Text, VariantSpec
from .options import LIMITS
from .views import workers

VARIANTS = (
    VariantSpec(
        "orchestrator",
        Text("Orchestrator–workers", "编排者–工作者"),
        Text(
            "An orchestrator splits the task into subtasks, workers carry them out with tools, the "
            "orchestrator reviews their results and may re-dispatch, then the answer is synthesised "
            '(Anthropic, "Building effective agents").',
            "编排者把任务拆成子任务，工作者用工具完成它们，编排者复核结果、必要时重新分派，最后综合出答案"
            "（Anthropic，《构建有效的智能体》）。",
        ),
        "tuesday-errands",
        {"review": True},
        frozenset({"review"}),
    ),
    VariantSpec(
        "orchestrator-one-round",
        Text("Orchestrator–workers, one round", "编排者–工作者，只分派一轮"),
        Text(
            "The orchestrator splits, the workers run once, the results go straight to synthesis: no "
            "review, so a failed subtask stays failed (Anthropic's workflow as drawn).",
            "编排者拆分，工作者执行一次，结果直接进入综合：没有复核，失败的子任务就保持失败"
            "（Anthropic 图示中的工作流）。",
        ),
        "tuesday-errands",
        {"review": False},
        frozenset({"review", "max_dispatches"}),
    ),
)

_MOST = next(lim.high for lim in LIMITS if lim.name == "max_subtasks")

NODES = {
    "task": Text("Task", "任务"),
    "orchestrator": Text("Orchestrator\\n(split)", "编排者\\n（拆分）"),
    # the first worker says what a worker is; its siblings' short names keep the fan narrow on a card
    "worker1": Text("Worker 1\\n(tool loop)", "工作者 1\\n（工具循环）"),
    **{f"worker{i}": Text(f"Worker {i}", f"工作者 {i}") for i in range(2, _MOST + 1)},
    "review": Text("Review", "复核"),
    "synthesizer": Text("Synthesizer", "综合器"),
    "end": Text("End", "结束"),
}


def edges(config: Mapping[str, Any]) -> list[Edge]:
    """The orchestrator fans the subtasks out to one branch per worker; with reviews the results meet
    in its review, which re-dispatches (back to the orchestrator) or hands them to the synthesizer.
    Every edge points down but the re-dispatch, so the fan stays as wide as its workers."""
    reviews = config.get("review", True) is not False
    out: list[Edge] = [("task", "orchestrator", None)]
    for i in range(1, workers(config) + 1):
        first = i == 1
        out.append(("orchestrator", f"worker{i}", Text("subtask", "子任务") if first else None))
        out.append((f"worker{i}", "review" if reviews else "synthesizer", Text("result", "结果") if first else None))
    if reviews:
        out += [
            ("review", "orchestrator", Text("REDISPATCH", "REDISPATCH")),
            ("review", "synthesizer", Text("DONE", "DONE")),
        ]
    return [*out, ("synthesizer", "end", None)]


def role_node(role: str, config: Mapping[str, Any], after: str | None) -> str:
    # the review has its node, where the results meet; a worker's call is placed on its branch (views.step_node)
    return {"orchestrator": "orchestrator", "orchestrator_review": "review"}.get(role, role)


def block_of(role: str, step: int | None) -> tuple[Any, ...]:
    if role == "orchestrator":
        return ("plan",)
    if role == "worker":
        return ("step", step, 0)
    if role == "orchestrator_review":
        return ("review", None)
    return ("synth", None) if role == "synthesizer" else (role, step)


def block_title(ident: tuple[Any, ...], config: Mapping[str, Any], lang: str) -> str | None:
    kind = ident[0]
    if kind == "plan":
        n = ident[1] if len(ident) > 1 and isinstance(ident[1], int) else 0
        return (
            Text("Orchestrator · split into subtasks", "编排者 · 拆分子任务")
            if n == 0
            else Text(f"Orchestrator · re-dispatch, round {n + 1}", f"编排者 · 重新分派，第 {n + 1} 轮")
        )(lang)
    if kind == "review":
        return Text("Orchestrator · review", "编排者 · 复核")(lang)
    if kind == "synth":
        return Text("Synthesis", "综合")(lang)
    return None


PRESETS = (
    Preset(
        "orchestrator-review",
        Text("What the orchestrator's review buys", "编排者的复核带来了什么"),
        ":material/call_split:",
        Text(
            "Orchestrator–workers on the Tuesday errands, once as one round and once with the review: without it "
            "the failed booking is reported as failed; with it the orchestrator re-dispatches the booking with the "
            "free slot, for four more calls (two reviews and the second attempt).",
            "在“周二三件事”上运行编排者–工作者：一次只分派一轮，一次开启复核。没有复核时，失败的预约只能如实报告失败；"
            "开启复核后，编排者带着空闲时段重新分派预约，多花四次调用（两次复核和第二次尝试）。",
        ),
        (
            LaneSpec("orchestrator-one-round", Text("One round, no review", "一轮，不复核")),
            LaneSpec("orchestrator", Text("Review and re-dispatch", "复核并重新分派")),
        ),
        scenario="tuesday-errands",
    ),
)


LESSON = Lesson(
    "orchestrator",
    "tuesday-errands",
    Text("Orchestrator–workers", "编排者–工作者"),
    Text(
        "An **orchestrator** splits the request into independent **subtasks**; each goes to a **worker**, "
        "a small tool loop that sees only its own instruction. The orchestrator then **reviews** the "
        "round: **DONE** sends the results to the **synthesizer**; **REDISPATCH** runs a failed subtask "
        "again with a sharper instruction (or adds one), up to `max_dispatches` rounds. Unlike "
        "Plan-and-Execute, the subtasks are not a sequence: no worker waits for another, so they could "
        "run in parallel, and the split itself is decided by the model, for this request (Anthropic, "
        '"Building effective agents").',
        "**编排者**把请求拆成相互独立的**子任务**，每个交给一个**工作者**——一个只看得到自己指令的小型工具循环。"
        "随后编排者**复核**这一轮：**DONE** 把结果交给**综合器**；**REDISPATCH** 用更明确的指令重做失败的子任务"
        "（或新增子任务），最多 `max_dispatches` 轮。与计划执行不同，子任务不是一个序列：没有工作者需要等待另一个，"
        "因此可以并行执行，而且如何拆分是模型针对这次请求决定的（Anthropic，《构建有效的智能体》）。",
    ),
    (
        Text(
            "requests with several independent parts, each a lookup or an action of its own",
            "包含几个相互独立部分的请求，每部分都是一次单独的查询或操作",
        ),
        Text(
            "a strong orchestrator with cheap workers (bind the roles to different models)",
            "强模型做编排、便宜的模型做工作者（为各角色绑定不同模型）",
        ),
    ),
    (
        Text(
            "a single question: the split, the review and the synthesis are pure overhead",
            "单一问题：拆分、复核与综合都是额外开销",
        ),
        Text("steps that depend on each other's results: use Plan-and-Execute", "步骤之间相互依赖结果：请用计划执行"),
    ),
    Text(
        "A round where every worker succeeds costs `1 split + the workers' calls + 1 review + 1 synthesis`; "
        "each REDISPATCH adds one more review and the calls of the workers it runs again. Hard bound "
        "`R × (q + max_subtasks × worker_steps) + 1` (R = max_dispatches with the review, else 1; q = 2 with "
        "the repair re-ask).",
        "每个工作者都一次成功的一轮，成本为 `1 次拆分 + 工作者的调用 + 1 次复核 + 1 次综合`；每次 REDISPATCH "
        "再加一次复核和被重做的工作者的调用。硬上限 `R × (q + max_subtasks × worker_steps) + 1`"
        "（开启复核时 R = max_dispatches，否则为 1；开启修复重问时 q = 2）。",
    ),
)
