"""The options of orchestrator–workers: how many subtasks a run holds, how many model calls a worker may
make, whether the orchestrator reviews its workers' results, and how many rounds of dispatch it may order."""

from __future__ import annotations

from dataclasses import dataclass

from ...config import Options
from ..spec import LimitSpec, SwitchSpec, Text

LIMITS = (
    LimitSpec(
        "max_subtasks",
        1,
        6,
        Text("Max subtasks", "子任务上限"),
        Text(
            "subtasks a run holds: the split's and any a review adds (a longer split is cut)",
            "一次运行最多包含的子任务数：拆分得到的和复核时新增的都算在内（更长的拆分会被截断）",
        ),
    ),
    LimitSpec(
        "worker_steps",
        1,
        8,
        Text("Max calls per worker", "每个工作者的调用上限"),
        Text(
            "model calls one worker makes on one subtask; the last has tools disabled",
            "一个工作者处理一个子任务时最多的模型调用次数；最后一次禁用工具",
        ),
    ),
    LimitSpec(
        "max_dispatches",
        2,
        8,
        Text("Max dispatch rounds", "最大分派轮次"),
        Text(
            "rounds of dispatch with the review: the first, then one per REDISPATCH",
            "开启复核时的分派轮次：第一轮，以及每次 REDISPATCH 之后的一轮",
        ),
    ),
)

SWITCHES = (
    SwitchSpec(
        "review",
        Text("Review and re-dispatch", "复核并重新分派"),
        Text(
            "The orchestrator reviews each round's results: DONE, or REDISPATCH the subtasks to run again "
            "(off: one round, its results go straight to synthesis).",
            "编排者复核每一轮的结果：DONE，或 REDISPATCH 需要重做的子任务（关闭：只分派一轮，结果直接进入综合）。",
        ),
    ),
)


@dataclass(frozen=True)
class OrchestratorOptions(Options):
    """What only an orchestrator–workers run reads."""

    LIMITS = LIMITS

    max_subtasks: int = 3
    """Subtasks a run holds, the split's and any a review adds; a longer split is cut."""
    worker_steps: int = 3
    """Model calls one worker makes on one subtask; the last one has tools disabled."""
    review: bool = True
    """The orchestrator reviews each round's results and may re-dispatch (off: one round, no review)."""
    max_dispatches: int = 3
    """Rounds of dispatch with the review: the first, then one after each REDISPATCH; the last is not reviewed."""
