"""How orchestrator–workers moves its graph: the split lights the orchestrator, and each worker — its
start, its calls, its tools — lights its own branch, one node per subtask, drawn side by side."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .options import OrchestratorOptions

EVENT_NODES = {"plan": "orchestrator", "step_started": "worker"}
#: the nodes a worker's events light before they are placed on the subtask's own branch
_WORKER_NODES = frozenset({"worker", "tools"})


def workers(config: Mapping[str, Any]) -> int:
    """How many worker branches the graph draws: one per subtask the run may hold."""
    value = config.get("max_subtasks")
    return (
        value
        if isinstance(value, int) and not isinstance(value, bool) and value > 0
        else OrchestratorOptions.max_subtasks
    )


def step_node(node: str, step: int | None, config: Mapping[str, Any]) -> str:
    """A worker's event, or one of its tool calls, lights the branch of its subtask (`step` is the
    subtask's id); anything else lights the node it names."""
    if node not in _WORKER_NODES or step is None:
        return node
    return f"worker{min(max(step, 1), workers(config))}"
