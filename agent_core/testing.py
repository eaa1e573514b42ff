"""`ScriptedModel`: a ChatModel that plays a list of replies, for tests and for teaching.

It fails loudly on a call it did not expect (the list is used up, or the role differs from the one
scripted) and `assert_consumed()` fails when replies are left over, so a test pins down exactly
which calls a pattern makes, in which order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from .messages import ChatRequest, Completion, ToolCall, Usage, estimate_prompt_tokens, estimate_tokens


class UnexpectedCall(AssertionError):
    """The model was called when the script had no reply for it."""


@dataclass(frozen=True)
class Say:
    """One scripted reply: text and/or tool calls, optionally only for a given role."""

    text: str = ""
    tool_calls: tuple[tuple[str, dict | str], ...] = ()
    role: str | None = None


def tool(name: str, **arguments: object) -> tuple[str, dict]:
    return name, dict(arguments)


def say(text: str = "", *calls: tuple[str, dict | str], role: str | None = None) -> Say:
    return Say(text, tuple(calls), role)


Reply = Say | str | Callable[[ChatRequest], "Say | str"]


@dataclass
class ScriptedModel:
    """Plays `replies` in order. A reply is a `Say`, a plain string, or a function of the request
    (for models that must never stop, e.g. `ScriptedModel.forever(...)`)."""

    replies: Sequence[Reply]
    name: str = "scripted"
    requests: list[ChatRequest] = field(default_factory=list)
    _position: int = 0
    _forever: Callable[[ChatRequest], Say | str] | None = None

    @classmethod
    def forever(cls, fn: Callable[[ChatRequest], Say | str], name: str = "scripted-forever") -> ScriptedModel:
        """A model that answers every call with `fn(request)` and never runs out."""
        return cls([], name, _forever=fn)

    def stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        self.requests.append(request)
        if self._forever is not None:
            reply: Reply = self._forever(request)
        elif self._position >= len(self.replies):
            raise UnexpectedCall(
                f"unexpected call #{len(self.requests)} (role {request.role!r}): "
                f"the script has only {len(self.replies)} replies"
            )
        else:
            reply = self.replies[self._position]
            self._position += 1
        if callable(reply):
            reply = reply(request)
        if isinstance(reply, str):
            reply = Say(reply)
        if reply.role is not None and reply.role != request.role:
            raise UnexpectedCall(
                f"call #{len(self.requests)} came from role {request.role!r}, the script expected {reply.role!r}"
            )
        if reply.text:
            yield reply.text
        calls = tuple(
            ToolCall(
                f"call_{len(self.requests)}_{i}",
                name,
                args if isinstance(args, str) else json.dumps(args, ensure_ascii=False),
            )
            for i, (name, args) in enumerate(reply.tool_calls)
        )
        usage = Usage(estimate_prompt_tokens(request.messages), estimate_tokens(reply.text), estimated=True)
        yield Completion(reply.text, calls, usage, self.name, 0.0, "tool_calls" if calls else "stop")

    @property
    def calls(self) -> int:
        return len(self.requests)

    def roles(self) -> list[str]:
        return [r.role for r in self.requests]

    def assert_consumed(self) -> None:
        left = len(self.replies) - self._position
        if left:
            raise AssertionError(f"{left} scripted repl{'y was' if left == 1 else 'ies were'} never used")
