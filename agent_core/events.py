"""Typed run events — the contract between the core, the UI and saved traces.

Every event is a frozen dataclass with one `kind` tag, a run-relative timestamp `t` (seconds) and an
optional `step` (the plan step id, ReAct round or reflection iteration it belongs to). Events carry
meaning, never formatting. `to_dict`/`event_from_dict` round-trip them through JSON.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, get_args

from .messages import CallContext

#: The role a model call is made in: a name one of the patterns declares (its roles.py). Events take any
#: well-formed name, so a new pattern's roles need no edit here; a trace may hold nothing but such names.
RoleName = str
#: what a role's name looks like (an identifier, kept short: a file's 5 MB "role" is refused as it is read)
ROLE_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
#: A verdict: PASS, REVISE (judge, critic), RETRY or REPLAN (Reflector), DONE or REDISPATCH (an
#: orchestrator's review of its workers' round).
VerdictName = Literal["PASS", "REVISE", "RETRY", "REPLAN", "DONE", "REDISPATCH"]
#: Why a run ended, as shown to users.
EndReason = Literal["answer", "pass", "cap", "budget", "stop", "error"]
#: How an attempt at a plan step ended.
StepStatus = Literal["done", "failed", "retried", "skipped"]

#: Step mode: where a run paused, why, how it went on, and what a person edited.
PauseAt = Literal["call", "verdict", "tool"]
PauseReason = Literal["breakpoint", "person"]
ResumeAction = Literal["continue", "step", "send", "edit", "answer"]
EditKind = Literal["messages", "template"]
#: A search-tree node's state (TreeNode): proposed (written, not valued yet), evaluated (valued), failed
#: (valued, no solution, reflected on), pruned (valued 0: the search never grows it), solved, expanded
#: (chosen to grow), chosen (on the path to the answer, said when the search ends).
TreeStatus = Literal["proposed", "evaluated", "failed", "pruned", "solved", "expanded", "chosen"]

VERDICTS: tuple[str, ...] = get_args(VerdictName)
END_REASONS: tuple[str, ...] = get_args(EndReason)
STEP_STATUSES: tuple[str, ...] = get_args(StepStatus)
TREE_STATUSES: tuple[str, ...] = get_args(TreeStatus)


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"
    t: float = 0.0
    step: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, CallContext):
                value = value.record()
            out[f.name] = [dict(v) if isinstance(v, dict) else v for v in value] if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True, slots=True)
class RunStarted(Event):
    kind: ClassVar[str] = "run_started"
    pattern: str = ""
    task: str = ""
    max_llm_calls: int = 0


@dataclass(frozen=True, slots=True)
class LlmCall(Event):
    """One model call has finished.

    `finish_reason` is the server's ("stop", "tool_calls", "length" when the reply was cut at
    max_output_tokens, ...); None for traces made before it was recorded, and for a call that never
    finished (its stream was cut, or the run's budget or time ran out while it streamed), whose
    text so far is kept in `partial_text`.
    """

    kind: ClassVar[str] = "llm_call"
    role: RoleName = "actor"
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    usage_estimated: bool = False
    finish_reason: str | None = None
    partial_text: str = ""
    # The call record (trace format 2; see calls.py): the ids of every message sent, as ranges; the
    # messages sent for the first time in this run (and the reply, interned as an assistant message);
    # the tool names offered and the temperature. A format-1 trace has none of these.
    messages: tuple[tuple[int, int], ...] = ()
    new_messages: tuple[dict[str, Any], ...] = ()
    reply_message: int | None = None
    tools: tuple[str, ...] = ()
    temperature: float | None = None
    #: where the call stands in its run (step, attempt, iteration...); None in traces made before it
    context: CallContext | None = None

    @property
    def cut_at_cap(self) -> bool:
        """The reply stopped at max_output_tokens, so it may be incomplete."""
        return self.finish_reason == "length"


@dataclass(frozen=True, slots=True)
class Token(Event):
    """A streamed text delta; may be left out of saved traces."""

    kind: ClassVar[str] = "token"
    role: RoleName = "actor"
    text: str = ""


@dataclass(frozen=True, slots=True)
class Thought(Event):
    kind: ClassVar[str] = "thought"
    text: str = ""


@dataclass(frozen=True, slots=True)
class ToolCallEvent(Event):
    """Emitted before the tool runs, so the UI can show it running."""

    kind: ClassVar[str] = "tool_call"
    name: str = ""
    arguments: Any = None
    call_id: str = ""
    #: the MCP server the tool came from ("" for a built-in tool; traces before it have none)
    server: str = ""


@dataclass(frozen=True, slots=True)
class ToolResult(Event):
    kind: ClassVar[str] = "tool_result"
    name: str = ""
    output: str = ""
    is_error: bool = False
    call_id: str = ""
    #: the MCP server the tool came from ("" for a built-in tool; traces before it have none)
    server: str = ""


@dataclass(frozen=True, slots=True)
class PlanEvent(Event):
    """A plan, or a revised plan (`revision` > 0 after a re-plan). Steps are dicts:
    id, description, tool, critical, synthesis, status, reason (why a failed step failed)."""

    kind: ClassVar[str] = "plan"
    steps: tuple[dict[str, Any], ...] = ()
    revision: int = 0


@dataclass(frozen=True, slots=True)
class StepStarted(Event):
    """An attempt at a plan step begins; `attempt` counts from 1 (2 and up are retries)."""

    kind: ClassVar[str] = "step_started"
    step_id: int = 0
    description: str = ""
    attempt: int = 0


@dataclass(frozen=True, slots=True)
class StepFinished(Event):
    """status: done, failed, retried (this attempt will be re-run) or skipped."""

    kind: ClassVar[str] = "step_finished"
    step_id: int = 0
    status: StepStatus = "done"
    result: str = ""


@dataclass(frozen=True, slots=True)
class VerdictEvent(Event):
    """A judge, reflector or critic verdict. `parsed` is False when the reply could not be parsed
    and a fallback verdict was used."""

    kind: ClassVar[str] = "verdict"
    role: RoleName = "judge"
    verdict: VerdictName = "PASS"
    feedback: str = ""
    analysis: str = ""
    suggestion: str = ""
    parsed: bool = True

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"


@dataclass(frozen=True, slots=True)
class Draft(Event):
    kind: ClassVar[str] = "draft"
    version: int = 0
    text: str = ""


@dataclass(frozen=True, slots=True)
class TreeNode(Event):
    """A node of a search tree was added or changed (tree search: LATS). One event per change, so the
    tree can be drawn as it grows: node 0 is the root (the task), every other node a candidate with
    its `parent`. `value` is the node's own value in [0, 1] (None until it is evaluated); `visits` how
    many evaluated nodes its subtree holds; `uct` the score that chose it to grow (an expanded node);
    `note` what the search learned there (the evaluator's reason, the tests' result, the reflection)."""

    kind: ClassVar[str] = "tree_node"
    node: int = 0
    parent: int | None = None
    depth: int = 0
    summary: str = ""
    value: float | None = None
    visits: int = 0
    status: TreeStatus = "proposed"
    uct: float | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class FinalAnswer(Event):
    kind: ClassVar[str] = "final_answer"
    text: str = ""


@dataclass(frozen=True, slots=True)
class LimitReached(Event):
    kind: ClassVar[str] = "limit_reached"
    limit: str = ""
    value: int = 0
    message: str = ""


@dataclass(frozen=True, slots=True)
class RunFailed(Event):
    kind: ClassVar[str] = "run_failed"
    error_type: str = ""
    message: str = ""


@dataclass(frozen=True, slots=True)
class RunFinished(Event):
    """Always the last event. `reason` is one of END_REASONS."""

    kind: ClassVar[str] = "run_finished"
    reason: EndReason = "answer"
    llm_calls: int = 0
    total_tokens: int = 0
    elapsed_ms: float = 0.0


@dataclass(frozen=True, slots=True)
class Paused(Event):
    """Step mode: the run stopped to wait for a person — before a model call (`call` is its number),
    at a verdict, or before a tool call. `reason`: breakpoint, or person (a role a person answers)."""

    kind: ClassVar[str] = "paused"
    at: PauseAt = "call"
    #: the role about to be called or that gave the verdict; the tool's name before a tool call
    role: str = ""
    call: int = 0
    reason: PauseReason = "breakpoint"


@dataclass(frozen=True, slots=True)
class Resumed(Event):
    """Step mode: the run goes on. `action`: continue, step, send, edit or answer."""

    kind: ClassVar[str] = "resumed"
    action: ResumeAction = "continue"


@dataclass(frozen=True, slots=True)
class Edited(Event):
    """A person changed a call before the model saw it: its messages, or a prompt template from here on."""

    kind: ClassVar[str] = "edited"
    role: RoleName = "actor"
    call: int = 0
    what: EditKind = "messages"
    template: str | None = None


@dataclass(frozen=True, slots=True)
class HumanReply(Event):
    """A person answered a call instead of the model (the call's `llm_call` follows, model "person")."""

    kind: ClassVar[str] = "human_reply"
    role: RoleName = "actor"
    call: int = 0
    text: str = ""
    tool_calls: tuple[dict[str, Any], ...] = ()


def _fast_init(cls: type[Event]) -> type[Event]:
    """Give a frozen event class an `__init__` that stores each field through its slot's descriptor.

    A frozen dataclass's own `__init__` goes through `object.__setattr__` field by field (it has to step
    around the `__setattr__` that forbids changes); calling each slot's descriptor directly makes the
    same stores about twice as fast, and a ReAct step builds three events. The signature, defaults and
    frozenness are the dataclass's own; `tests/test_events.py` checks both build equal events.
    """
    fields = dataclasses.fields(cls)
    assert all(f.default is not dataclasses.MISSING for f in fields), cls  # every event field has a default
    params = ", ".join(f"{f.name}=_default_{f.name}" for f in fields)
    body = "\n".join(f"    _set_{f.name}(self, {f.name})" for f in fields)
    namespace: dict[str, Any] = {}
    for f in fields:
        namespace[f"_default_{f.name}"] = f.default
        namespace[f"_set_{f.name}"] = getattr(cls, f.name).__set__  # the slot's member descriptor
    exec(f"def __init__(self, {params}):\n{body}\n", namespace)  # noqa: S102 - as dataclasses itself does
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        RunStarted,
        LlmCall,
        Token,
        Thought,
        ToolCallEvent,
        ToolResult,
        PlanEvent,
        StepStarted,
        StepFinished,
        VerdictEvent,
        Draft,
        FinalAnswer,
        LimitReached,
        RunFailed,
        RunFinished,
        Paused,
        Resumed,
        Edited,
        HumanReply,
        TreeNode,
    )
}
_fast_init(Event)
for _cls in EVENT_TYPES.values():
    _fast_init(_cls)
EVENT_KINDS = tuple(EVENT_TYPES)


class EventFormatError(ValueError):
    """A dict that is not a valid event."""


def quoted(value: Any, limit: int = 60) -> str:
    """`value` as a message quotes it: its repr, a long string cut (a 5 MB field is not repeated)."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + "…"
    shown = repr(value) if isinstance(value, (str, int, float, bool, type(None))) else type(value).__name__
    return shown if len(shown) <= limit else shown[:limit] + "…"


def event_from_dict(data: dict[str, Any]) -> Event:
    if not isinstance(data, dict):
        raise EventFormatError(f"an event must be an object, got {type(data).__name__}")
    kind = data.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None  # (a file may hold any JSON as the kind)
    if cls is None:
        raise EventFormatError(f"unknown event kind: {quoted(kind)}")
    names = _schema(cls)[0]  # type: ignore[arg-type]  # (mypy reads an event's own __hash__ as its class's)
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key == "kind" or key not in names:
            continue
        if key == "context" and value is not None:
            if not isinstance(value, dict):
                raise EventFormatError(f"{data.get('kind')}.context should be an object, got {type(value).__name__}")
            try:
                value = CallContext.from_record(value)
            except TypeError as exc:
                raise EventFormatError(f"{data.get('kind')}.context: {exc}") from None
        if isinstance(value, list) and isinstance(names[key].default, tuple):
            value = tuple(tuple(v) if key == "messages" and isinstance(v, list) else v for v in value)
        kwargs[key] = value
    try:
        event = cls(**kwargs)
    except TypeError as exc:  # pragma: no cover - dataclass kwargs are filtered above
        raise EventFormatError(str(exc)) from exc
    _check_types(event)
    return event


_SCALARS = {"int": int, "float": (int, float), "str": str, "bool": bool, "RoleName": str}
#: Literal field types and the values each allows (a trace may hold nothing else).
_LITERALS = {
    "VerdictName": VERDICTS,
    "EndReason": END_REASONS,
    "StepStatus": STEP_STATUSES,
    "TreeStatus": TREE_STATUSES,
    **{name: get_args(globals()[name]) for name in ("PauseAt", "PauseReason", "ResumeAction", "EditKind")},
}
#: The names of the Literal field types: their values are plain strings wherever a field travels.
LITERAL_TYPES: tuple[str, ...] = tuple(_LITERALS)


@functools.cache
def _schema(cls: type) -> tuple[dict[str, dataclasses.Field], tuple[tuple[str, str, Any, Any, bool], ...]]:
    """A class's fields by name, and per field what _check_types checks: (name, the type as said, the
    literal values allowed or None, the scalar type or None, whether None is allowed). Worked out once
    per class: dataclasses.fields on every event was a third of loading a 60,000-event trace."""
    fields = dataclasses.fields(cls)
    checks = []
    for f in fields:
        expected = str(f.type).replace(" | None", "")
        checks.append((f.name, expected, _LITERALS.get(expected), _SCALARS.get(expected), "None" in str(f.type)))
    return {f.name: f for f in fields}, tuple(checks)


def _check_types(event: Event) -> None:
    for name, expected, allowed, kind, nullable in _schema(type(event))[1]:  # type: ignore[arg-type]  # (as above)
        value = getattr(event, name)
        if allowed is not None:
            if value not in allowed:
                # (quoted in part: a file's 5 MB "verdict" must not become a 5 MB message)
                raise EventFormatError(f"{event.kind}.{name} must be one of {', '.join(allowed)}, got {quoted(value)}")
            continue
        if kind is None:
            continue
        if value is None and nullable:
            continue
        if not isinstance(value, kind) or (expected in ("int", "float") and isinstance(value, bool)):
            raise EventFormatError(f"{event.kind}.{name} should be {expected}, got {type(value).__name__}")
        if expected == "RoleName" and not ROLE_NAME.fullmatch(value):
            raise EventFormatError(
                f"{event.kind}.{name} should be a role's name (lower-case letters, digits and _), got {quoted(value)}"
            )


@dataclass(slots=True)
class Clock:
    """Run-relative time source."""

    start: float = field(default_factory=time.perf_counter)

    def now(self) -> float:
        return round(time.perf_counter() - self.start, 4)
