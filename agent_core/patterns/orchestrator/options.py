"""The options of orchestrator–workers: how many subtasks a run holds, how many model calls a worker may
make, and how many rounds of dispatch the orchestrator may order."""

from __future__ import annotations

from dataclasses import dataclass

from ...config import Options
from ..spec import LimitSpec, Text

LIMITS = (
    LimitSpec("max_subtasks", 1, 6, Text("Max subtasks", "子任务上限"),
              Text("subtasks a run holds: the split's and any a review adds (a longer split is cut)",
                   "一次运行最多包含的子任务数：拆分得到的和复核时新增的都算在内（更长的拆分会被截断）")),
    LimitSpec("worker_steps", 1, 8, Text("Max calls per worker", "每个工作者的调用上限"),
              Text("model calls one worker makes on one subtask; the last has tools disabled",
                   "一个工作者处理一个子任务时最多的模型调用次数；最后一次禁用工具")),
    LimitSpec("max_dispatches", 1, 8, Text("Max dispatch rounds", "最大分派轮次"),
              Text("rounds of dispatch: the first, then one per REDISPATCH (1 = no review)",
                   "分派轮次：第一轮，以及每次 REDISPATCH 之后的一轮（1 = 不复核）")),
)


@dataclass(frozen=True)
class OrchestratorOptions(Options):
    """What only an orchestrator–workers run reads."""

    LIMITS = LIMITS

    max_subtasks: int = 3
    """Subtasks a run holds, the split's and any a review adds; a longer split is cut."""
    worker_steps: int = 3
    """Model calls one worker makes on one subtask; the last one has tools disabled."""
    max_dispatches: int = 3
    """Rounds of dispatch: the first, then one after each REDISPATCH; every round but the last is reviewed."""
