"""Exact forks: serve a recorded run's first calls and tool results from its trace, then go live.

LangGraph Studio forks by re-executing the nodes before the fork point. Here nothing before it runs
again: calls 1 … k−1 get their recorded replies and the tools between them their recorded results,
so the prefix is the parent's to the byte. Call k gets the person's reply or goes live, and every
call after it runs on the configured model under the same limits and call bound as any run (the
recorded prefix counts). The config may change from call k on: a prompt or a limit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from . import events as ev
from . import untrusted
from .calls import MessageTable, message_dict
from .config import RunConfig
from .errors import ConfigError
from .messages import ChatRequest, Completion, ToolCall, Usage, estimate_prompt_tokens, estimate_tokens
from .models import ChatModel, ModelRouter
from .roles import Role
from .tools import Observation, ToolRegistry

#: the model name a hand-written reply is recorded under
PERSON = "person"


class ForkError(ConfigError):
    """A fork that cannot be made: no call records, a call number out of range, or a run that
    diverges from its record before the fork point."""

    code = "fork_error"


@dataclass(frozen=True, slots=True)
class Reply:
    """A reply a person wrote for the fork call: text (a verdict's JSON, a plan, an answer) and/or tool calls."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


class RecordedModel:
    """Serves a trace's recorded replies in order, checking that each request comes from the role
    that made it; notes the first call whose request differs from the record. After the recorded
    calls (and an optional hand-written reply) it hands every request to `live`."""

    name = "recorded"

    def __init__(
        self, table: MessageTable, upto: int, live: ModelRouter | None = None, reply: Reply | None = None
    ) -> None:
        self.table, self.upto, self.live, self.reply = table, upto, live, reply
        self.calls = 0
        #: 1-based number of the first recorded call whose request differed from the record
        self.first_difference: int | None = None

    def stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        self.calls += 1
        n = self.calls
        if n <= self.upto:
            recorded = self.table.calls[n - 1]
            if recorded.role != request.role:
                raise ForkError(
                    f"call {n} came from the {request.role}, but the record has the {recorded.role} "
                    "there: the changed config alters the run before the fork point"
                )
            if self.first_difference is None and [message_dict(m) for m in request.messages] != _bare(
                self.table.request(recorded)
            ):
                self.first_difference = n
            completion = self.table.completion(recorded)
        elif n == self.upto + 1 and self.reply is not None:
            text, calls = self.reply.text, self.reply.tool_calls
            completion = Completion(
                text,
                calls,
                Usage(estimate_prompt_tokens(request.messages), estimate_tokens(text), estimated=True),
                PERSON,
                0.0,
                "tool_calls" if calls else "stop",
            )
        elif self.live is not None:
            yield from self.live.for_role(request.role).stream(request)
            return
        else:
            raise ForkError(f"call {n} has no recorded reply and no live model to go on with")
        if completion.text:
            yield completion.text
        yield completion


def _bare(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Recorded messages without their bookkeeping (id, template, fills), to compare with a request."""
    keep = ("role", "content", "tool_calls", "tool_call_id", "name")
    return [{k: m[k] for k in keep if k in m} for m in messages]


class RecordedTools(ToolRegistry):
    """The live registry, except that its first `len(results)` runs return the recorded results."""

    def __init__(self, live: ToolRegistry, results: list[ev.ToolResult]) -> None:
        super().__init__(live.tools)
        self.recorded = results
        self.served = 0

    def run(self, name: str, raw_arguments: Any) -> Observation:
        if self.served < len(self.recorded):
            result = self.recorded[self.served]
            self.served += 1
            if result.name != name:
                raise ForkError(f"tool run {self.served} called {name!r}, but the record has {result.name!r} there")
            return Observation(result.output, result.is_error)
        return super().run(name, raw_arguments)


def fork_inputs(events: list[ev.Event], at: int) -> tuple[MessageTable, list[ev.ToolResult]]:
    """The recorded calls and the tool results that come before call `at`; ForkError if it cannot fork.

    A run still going (no run_finished yet: paused before its next call, or streaming it, as a room's
    seats see the trainer's run) forks at that next call too: every recorded call is served, and the
    next one is the person's reply or goes live."""
    table = MessageTable(events)
    if not table.calls:
        raise ForkError("this trace has no model calls to fork from")
    if not table.complete:
        raise ForkError("this trace has no call records (it was saved before trace format 2): run it again to fork it")
    last = len(table.calls) + (0 if any(isinstance(e, ev.RunFinished) for e in events) else 1)
    if not 1 <= at <= last:
        raise ForkError(f"there is no call {at} to fork at: this trace has calls 1 to {last}")
    results: list[ev.ToolResult] = []
    seen = 0
    for e in events:
        if isinstance(e, ev.LlmCall):
            seen += 1
        elif isinstance(e, ev.ToolResult) and seen < at:
            results.append(e)
    return table, results


def fork(
    events: list[ev.Event],
    at: int,
    config: RunConfig,
    models: ModelRouter | ChatModel,
    tools: ToolRegistry | None = None,
    reply: Reply | None = None,
) -> tuple[Iterator[ev.Event], RecordedModel]:
    """Run `config` again with calls 1 … at−1 (and their tool results) served from `events`; call `at`
    gets `reply`, or goes live when it is None. Returns the event stream and the recorded model
    (whose `first_difference` says where the new config first changed a request)."""
    from .runner import default_tools, stream

    table, results = fork_inputs(events, at)
    started = next((e for e in events if isinstance(e, ev.RunStarted)), None)
    if started is None:
        raise ForkError("this trace has no run_started event, so its task is unknown")
    live = models if isinstance(models, ModelRouter) else ModelRouter(models)
    recorded = RecordedModel(table, at - 1, live, reply)
    registry = RecordedTools(tools if tools is not None else default_tools(config), results)
    return on_parent_clock(stream(started.task, config, ModelRouter(recorded), registry), events, at), recorded


def on_parent_clock(stream: Iterator[ev.Event], parent: list[ev.Event], at: int) -> Iterator[ev.Event]:
    """The fork's events with the times of the run they fork: the recorded prefix is served at once,
    so its events get the parent's own times (the n-th event of a kind, the parent's n-th of that kind
    before call `at`), and every later one the time the parent had reached plus the fork's own time
    since. A fork's clock so reads the run's time so far, as the parent's would have."""
    calls, prefix_end = 0, 0.0
    times: dict[str, list[float]] = {}  # the parent's event times by kind
    for e in parent:
        if isinstance(e, ev.LlmCall):
            calls += 1
            if calls >= at:
                break
        if not isinstance(e, ev.Token):
            times.setdefault(e.kind, []).append(e.t)
            prefix_end = max(prefix_end, e.t)
    seen: dict[str, int] = {}
    calls, last, served = 0, 0.0, 0.0  # served: the fork's own time when the prefix was served
    shift: float | None = None  # from the first event of call `at` on: the parent's time minus the fork's
    try:
        for e in stream:
            if shift is None and calls >= at - 1 and isinstance(e, ev.Token | ev.LlmCall):
                shift = max(prefix_end, last) - served
            if shift is None:  # the recorded prefix, served at once (a pause before call `at` included)
                served = e.t
                n = seen[e.kind] = seen.get(e.kind, 0) + 1
                kept = times.get(e.kind, ())
                t = max(last, kept[n - 1]) if n <= len(kept) else last
            else:
                t = max(last, round(e.t + shift, 4))
            calls += isinstance(e, ev.LlmCall)
            last = t
            if isinstance(e, ev.RunFinished):
                yield dataclasses.replace(e, t=t, elapsed_ms=round(t * 1000, 1))
            else:
                yield e if t == e.t else dataclasses.replace(e, t=t)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:  # a fork cut short closes the run under it, and its model's stream
            close()


def recorded_reply(events: list[ev.Event], at: int) -> Reply:
    """The reply call `at` got, as an editable starting point for a fork (empty for the next call of a
    run still going: it has no reply yet)."""
    table, _ = fork_inputs(events, at)
    if at > len(table.calls):
        return Reply()
    completion = table.completion(table.calls[at - 1])
    return Reply(completion.text, completion.tool_calls)


def read_reply(role: Role | None, text: str, tools: Collection[str] = ()) -> tuple[str, str | None]:
    """How the pattern will read `text` as the reply of `role`: (what it makes of it, the problem if
    it cannot parse it). The reply goes through the parser a model's reply would (the role's own), so
    a person's malformed verdict gets the same fallback a model's gets; this says so before the run."""
    return role.read(text, tools) if role is not None else ("text", None)


def reply_problem(role: Role | None, text: str, tools: Collection[str] = ()) -> str | None:
    """Why the pattern could not parse `text` as the reply of `role`, or None when it can."""
    return read_reply(role, text, tools)[1]


def reply_text(reply: Reply) -> str:
    """A reply as the text a person edits (the inverse of `reply_from_text`)."""
    import json

    if not reply.tool_calls:
        return reply.text
    calls = []
    for c in reply.tool_calls:
        try:
            args = untrusted.loads(c.arguments)
        except ValueError:
            args = c.arguments
        calls.append({"name": c.name, "arguments": args})
    return json.dumps({"text": reply.text, "tool_calls": calls}, ensure_ascii=False, indent=1)


def reply_from_text(raw: str) -> Reply:
    """A reply file: plain text, or a JSON object with "tool_calls" ([{"name", "arguments"}]) and optional "text"."""
    import json

    stripped = raw.strip()
    if stripped.startswith("{"):
        try:
            data = untrusted.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("tool_calls"), list):
            calls = []
            for i, c in enumerate(data["tool_calls"]):
                if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                    raise ForkError(f"tool call {i + 1} of the reply needs a name")
                args = c.get("arguments", {})
                calls.append(
                    ToolCall(
                        f"call_person_{i}",
                        c["name"],
                        args if isinstance(args, str) else json.dumps(args, ensure_ascii=False),
                    )
                )
            return Reply(str(data.get("text", "")), tuple(calls))
    return Reply(raw)
