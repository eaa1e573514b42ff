"""Chat messages, tool calls and completions: the values that cross the model border."""

from __future__ import annotations

import re
from typing import Any, Literal, NamedTuple

Role = Literal["system", "user", "assistant", "tool"]


# ToolCall and Message are NamedTuples, not frozen dataclasses: a ReAct step builds, hashes and
# compares several of them (the history, the call record's interning), and a tuple does all three
# in C — immutable all the same. Build them with the same arguments; replace fields with `_replace`.


class ToolCall(NamedTuple):
    """One tool call requested by a model. `arguments` is the raw JSON text the model sent."""

    id: str
    name: str
    arguments: str


class Message(NamedTuple):
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


# The builders below make their tuple in C (`tuple.__new__`), skipping the Python-level `__new__` a
# NamedTuple is given: a ReAct step builds three messages, and they are the loop's commonest objects.
_new = tuple.__new__


def system(text: str) -> Message:
    return _new(Message, ("system", text, (), None, None))


def user(text: str) -> Message:
    return _new(Message, ("user", text, (), None, None))


def assistant(text: str, tool_calls: tuple[ToolCall, ...] = ()) -> Message:
    return _new(Message, ("assistant", text, tool_calls, None, None))


def tool_message(call: ToolCall, output: str) -> Message:
    return _new(Message, ("tool", output, (), call.id, call.name))


class Usage(NamedTuple):
    """Token counts of one call; `estimated` is True when the server sent none and we counted."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Completion(NamedTuple):
    """The whole answer of one call: text, tool calls, usage and how long it took.

    Usage, Completion and ChatRequest are NamedTuples like Message and CallContext: every model call
    builds one of each, and a tuple is built in C, several times faster than a frozen dataclass.
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    model: str = ""
    latency_ms: float = 0.0
    finish_reason: str | None = None


class CallContext(NamedTuple):
    """Where one model call stands in its run. Recorded on every `llm_call` (so a trace labels each
    call), and the only thing the offline model's scripts read besides the messages' data.

    Labels are None (or False) when they do not apply. `inputs` are the values the call's prompt was
    rendered from (the step's result, the unit-test report...): a script reads the data there, never
    by looking for prompt headings, so an edited prompt cannot break a scripted run. They are not
    recorded (the messages already hold them) and not part of a context's equality.

    A NamedTuple, not a frozen dataclass: one is built for every model call, and a tuple is built
    in C (about ten times faster than a 22-field frozen dataclass), immutable all the same.
    """

    pattern: str = ""
    scenario: str | None = None
    lang: str = "en"
    #: the prompt template the call's last message was rendered from
    prompt: str | None = None
    #: ReAct round, or a step's tool-loop round
    round: int | None = None
    #: Plan-and-Execute: the plan step id, its attempt (from 1), the plan revision, the step's tool hint
    step_id: int | None = None
    attempt: int | None = None
    revision: int | None = None
    tool: str | None = None
    #: Reflection: the iteration, and the draft version the call writes or judges
    iteration: int | None = None
    version: int | None = None
    #: graph-style node (generator, reviewer)
    node: str | None = None
    #: ReAct: judgements so far and the tool protocol (native or text)
    judged: int | None = None
    protocol: str | None = None
    replan: bool = False
    repair: bool = False
    forced: bool = False
    last_round: bool = False
    synthesis: bool = False
    has_hint: bool = False
    all_failed: bool = False
    #: always last: left out of equality, hashing and the record
    inputs: tuple[tuple[str, str], ...] = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CallContext) and tuple.__eq__(self[:-1], other[:-1])

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:-1])

    def input(self, name: str, default: str = "") -> str:
        """One of the values the prompt was rendered from."""
        return next((v for k, v in self.inputs if k == name), default)

    def record(self) -> dict[str, Any]:
        """The labels that apply, for a trace (no inputs: the last field, which the labels stop short of)."""
        return {k: v for k, v in zip(_CONTEXT_LABELS, self, strict=False) if v is not None and v is not False}

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> CallContext:
        """The context a trace recorded; unknown labels (from a newer trace) are dropped."""
        return cls(**{k: v for k, v in data.items() if k in _CONTEXT_LABELS})


_CONTEXT_LABELS = CallContext._fields[:-1]
#: each field's place in a CallContext, for building one from a run's fixed fields plus a call's labels
CONTEXT_INDEX = {name: i for i, name in enumerate(CallContext._fields)}


class ChatRequest(NamedTuple):
    """What a pattern asks of a model.

    `role` names the agent role making the call (actor, planner, ...); `context` says where the call
    stands in its run (step, attempt, iteration...). Real endpoints ignore both; the offline model
    reads them to play its script, and they label the call in traces.
    `max_tokens` caps the reply (sent as the request's `max_tokens`; None sends none); `timeout` is
    the most seconds the call may wait for the server (the run's time left), None for the model's own.
    """

    messages: tuple[Message, ...]
    tools: tuple[dict[str, Any], ...] = ()
    role: str = "actor"
    context: CallContext = CallContext()
    temperature: float | None = None
    max_tokens: int | None = None
    timeout: float | None = None


def estimate_tokens(text: str) -> int:
    """A rough token count for servers that send no usage: ~4 chars/token, CJK ~1 char/token."""
    if not text:
        return 0
    # counted in C: a Python loop over the characters cost 35 ms a MB, paid for every prompt of every
    # task of an uploaded task set on every rerun of the Eval page
    cjk = 0 if text.isascii() else sum(map(len, _CJK.findall(text)))
    return max(1, cjk + (len(text) - cjk + 3) // 4)


_CJK = re.compile("[\u3000-\u9fff\uff00-\uffef]+")


def estimate_prompt_tokens(messages: tuple[Message, ...] | list[Message]) -> int:
    return sum(
        4 + estimate_tokens(m.content) + sum(estimate_tokens(c.arguments) for c in m.tool_calls) for m in messages
    )
