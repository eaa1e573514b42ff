"""Chat messages, tool calls and completions: the values that cross the model border."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call requested by a model. `arguments` is the raw JSON text the model sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message in OpenAI's shape."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    def to_openai(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None and self.role == "tool":
            out["name"] = self.name
        return out


def system(text: str) -> Message:
    return Message("system", text)


def user(text: str) -> Message:
    return Message("user", text)


def assistant(text: str, tool_calls: tuple[ToolCall, ...] = ()) -> Message:
    return Message("assistant", text, tool_calls=tool_calls)


def tool_message(call: ToolCall, output: str) -> Message:
    return Message("tool", output, tool_call_id=call.id, name=call.name)


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one call; `estimated` is True when the server sent none and we counted."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class Completion:
    """The whole answer of one call: text, tool calls, usage and how long it took."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    latency_ms: float = 0.0
    finish_reason: str | None = None


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What a pattern asks of a model.

    `role` names the agent role making the call (actor, planner, ...); `hints` carries facts about
    the call's place in the run (step id, attempt, iteration). Real endpoints ignore both; the
    offline model reads them to play its script, and they label the call in traces.
    """

    messages: tuple[Message, ...]
    tools: tuple[dict[str, Any], ...] = ()
    role: str = "actor"
    hints: dict[str, Any] = field(default_factory=dict)
    temperature: float | None = None


def estimate_tokens(text: str) -> int:
    """A rough token count for servers that send no usage: ~4 chars/token, CJK ~1 char/token."""
    if not text:
        return 0
    cjk = sum(1 for ch in text if "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef")
    return max(1, cjk + (len(text) - cjk + 3) // 4)


def estimate_prompt_tokens(messages: tuple[Message, ...] | list[Message]) -> int:
    return sum(4 + estimate_tokens(m.content) + sum(estimate_tokens(c.arguments) for c in m.tool_calls)
               for m in messages)
