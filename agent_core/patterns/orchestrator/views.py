"""How orchestrator–workers is shown. The graph: the split lights the orchestrator, and each worker — its
start, its calls, its tools — lights its own branch, one node per subtask, drawn side by side. The step
blocks: a round's workers are drawn side by side too, each subtask in its own lane (column), between the
split (or the re-dispatch) above and the review below, so a round reads split → workers in parallel →
review; a subtask sent back runs again in its own lane of the next round's row."""

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


def block_lane(ident: tuple[Any, ...], config: Mapping[str, Any]) -> tuple[Any, int, int] | None:
    """A worker's block (`("step", subtask id, attempt)`): the lane of its subtask in its round's row, one
    lane for each subtask the run may hold. The review or re-dispatch drawn below ends the row, so the
    next round's workers open a row of their own under it. Anything else is drawn below."""
    if ident[0] != "step" or len(ident) < 2 or isinstance(ident[1], bool) or not isinstance(ident[1], int):
        return None
    lanes = workers(config)
    return ("workers", min(max(ident[1], 1), lanes) - 1, lanes)


def step_node(node: str, step: int | None, config: Mapping[str, Any]) -> str:
    """A worker's event, or one of its tool calls, lights the branch of its subtask (`step` is the
    subtask's id); anything else lights the node it names."""
    if node not in _WORKER_NODES or step is None:
        return node
    return f"worker{min(max(step, 1), workers(config))}"
