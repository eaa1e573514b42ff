"""The `ChatModel` protocol and the role -> model binding.

A model streams: `stream(request)` yields text deltas (`str`) as they arrive and, last, exactly one
`Completion`. `complete()` drains a stream for callers that do not care about deltas.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .messages import ChatRequest, Completion

__all__ = ["ChatModel", "ModelRouter", "complete"]


@runtime_checkable
class ChatModel(Protocol):
    """Anything that answers a ChatRequest."""

    name: str

    def stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        """Yield text deltas, then one Completion. Raise a ModelError on failure."""
        ...


def complete(model: ChatModel, request: ChatRequest) -> Completion:
    """Run a request to the end and return its Completion."""
    result: Completion | None = None
    for item in model.stream(request):
        if isinstance(item, Completion):
            result = item
    if result is None:
        from .errors import MalformedResponseError

        raise MalformedResponseError(f"model {model.name!r} ended its stream without a completion")
    return result


@dataclass
class ModelRouter:
    """Which model answers which role: one default, overridable per role (seed 05: a strong
    planner and a fast executor; a separate critic)."""

    default: ChatModel
    by_role: Mapping[str, ChatModel] = field(default_factory=dict)
    #: step mode: asked before every call (agent_core.stepping.RunHandle); None for a plain run
    gate: Any = None

    def for_role(self, role: str) -> ChatModel:
        return self.by_role.get(role, self.default)

    def names(self) -> dict[str, str]:
        """Model names per role, for the trace config (never a key)."""
        out = {"default": self.default.name}
        out.update({role: m.name for role, m in self.by_role.items()})
        return out
