"""A run as OpenTelemetry spans, following the GenAI semantic conventions, written as OTLP/JSON.

Plain Python: the app's default install needs no OpenTelemetry package to export a file. The tree:

    invoke_agent {pattern}                 one per run: pattern, task, limits, end reason
      step {id} / iteration {n}            a plan step attempt, or a reflection iteration
        chat {model}                       one per model call: gen_ai.* usage, messages, latency
        execute_tool {name}                one per tool call: name, arguments, result

Everything else a run records (thought, plan, verdict, draft, final answer, limit_reached, run_failed,
paused, human_reply...) is a span event `agent_patterns.<kind>` on the innermost open span, its fields
as `agent_patterns.<field>` attributes. Every span and span event also carries `agent_patterns.seq`,
the event's index in the run, so importing.py rebuilds the events in their exact order. Trace and span
ids are hashes of the run id, so exporting the same trace twice gives the same file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .. import events as ev
from .. import untrusted
from ..calls import MessageTable
from ..diffing import diff_stats

NS = "agent_patterns."
#: the attribute naming the MCP server an execute_tool span's tool came from
MCP_SERVER = "mcp.server.name"
SCOPE_NAME = "agent_patterns"
SCOPE_VERSION = "1"
SERVICE_NAME = "agent-patterns-playground"
#: A fixed start for file exports of traces that do not know their wall-clock start (2026-01-01 UTC),
#: so the same trace always exports to the same bytes; callers that know the start pass it.
DEFAULT_START_NS = 1_767_225_600 * 10**9
#: OTLP span kinds and status codes (opentelemetry.proto.trace.v1)
KIND_INTERNAL, KIND_CLIENT = 1, 3
STATUS_ERROR = 2
#: LlmCall fields that travel as gen_ai.* attributes rather than under agent_patterns.*
_CHAT_GEN_AI = ("model", "prompt_tokens", "completion_tokens", "finish_reason")


@dataclass
class SpanEvent:
    name: str
    time_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class Span:
    """One span as the mapping builds it; `to_otlp` writes it in the protobuf JSON mapping."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int
    kind: int = KIND_INTERNAL
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    error: str | None = None
    #: what the span groups: "run", "step", "iteration", "chat" or "tool" (not written; for the builder)
    role: str = ""
    key: Any = None

    def to_otlp(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "traceId": self.trace_id,
            "spanId": self.span_id,
            "name": self.name,
            "kind": self.kind,
            "startTimeUnixNano": str(self.start_ns),
            "endTimeUnixNano": str(self.end_ns),
            "attributes": attributes_json(self.attributes),
        }
        if self.parent_id:
            out["parentSpanId"] = self.parent_id
        if self.events:
            out["events"] = [
                {"timeUnixNano": str(e.time_ns), "name": e.name, "attributes": attributes_json(e.attributes)}
                for e in self.events
            ]
        out["status"] = {"code": STATUS_ERROR, "message": self.error} if self.error is not None else {}
        return out


def any_value(value: Any) -> dict[str, Any]:
    """A Python scalar as an OTLP AnyValue (int64 as a string, as the protobuf JSON mapping says)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    return {"stringValue": str(value)}


def attributes_json(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": any_value(v)} for k, v in attributes.items() if v is not None]


def trace_id_of(run_id: str) -> str:
    return hashlib.sha256(f"agent_patterns/{run_id}".encode()).hexdigest()[:32]


def _plain(value: Any) -> Any:
    """A field value as an attribute: scalars as they are, anything else as a JSON string."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if hasattr(value, "record"):  # a CallContext
        value = value.record()
    return json.dumps(value, ensure_ascii=False, default=list)


def event_attributes(event: ev.Event, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """An event's fields (all but `t` and `skip`) as `agent_patterns.<field>` attributes."""
    out = {}
    for f in dataclasses.fields(event):
        if f.name == "t" or f.name in skip:
            continue
        value = _plain(getattr(event, f.name))
        if value is not None:
            out[NS + f.name] = value
    return out


def _by_iteration(config: dict[str, Any]) -> bool:
    """Whether the pattern's events are grouped by iteration (its spec calls a step an iteration)."""
    from ..patterns import registry

    spec = registry.specs().get(str(config.get("pattern")))
    return spec is not None and spec.step_word.en == "iteration"


def _ns(start_ns: int, t: float) -> int:
    return start_ns + round(t * 1e9)


class SpanBuilder:
    """Turns a run's events into spans as they come: `add` returns the spans an event closed."""

    def __init__(
        self,
        run_id: str,
        config: dict[str, Any] | None = None,
        start_ns: int = DEFAULT_START_NS,
        fork: dict[str, Any] | None = None,
    ) -> None:
        self.run_id = run_id or "run"
        self.config = dict(config or {})
        self.start_ns = start_ns
        self.fork = fork
        self.trace_id = trace_id_of(self.run_id)
        self.table = MessageTable()
        self._count = 0
        self._seq = -1
        self._root: Span | None = None
        self._group: Span | None = None
        self._tools: dict[Any, Span] = {}
        self._last_draft: str | None = None
        self._last_ns = start_ns

    # --- spans ------------------------------------------------------------------------------------

    def _new(
        self,
        name: str,
        start_ns: int,
        role: str,
        attributes: dict[str, Any],
        *,
        kind: int = KIND_INTERNAL,
        parent: Span | None = None,
    ) -> Span:
        """A span under `parent` (else the open step or iteration, else the run); attribute names hold dots."""
        self._count += 1
        span_id = hashlib.sha256(f"{self.trace_id}/{self._count}".encode()).hexdigest()[:16]
        parent = parent if parent is not None else (self._group or self._root)
        span = Span(
            self.trace_id,
            span_id,
            parent.span_id if parent else None,
            name,
            start_ns,
            start_ns,
            kind,
            dict(attributes),
            role=role,
        )
        if parent is not None:  # a chat span starts before the event that records it: widen its parents
            for p in (self._group, self._root):
                if p is not None and start_ns < p.start_ns:
                    p.start_ns = start_ns
        return span

    def _root_span(self, t_ns: int) -> Span:
        """The run's span; a trace cut before its run_started still gets one, so nothing is orphaned."""
        if self._root is None:
            self._root = self._new(
                "invoke_agent", t_ns, "run", {"gen_ai.operation.name": "invoke_agent", NS + "run_id": self.run_id}
            )
        return self._root

    def _close_group(self, end_ns: int) -> list[Span]:
        group, self._group = self._group, None
        if group is None:
            return []
        group.end_ns = max(group.end_ns, end_ns)
        return [group]

    def _host(self) -> Span:
        return self._group or self._root_span(self._last_ns)

    # --- events -----------------------------------------------------------------------------------

    def add(self, event: ev.Event) -> list[Span]:
        """Take in one event (tokens are ignored); the spans it finished, children first."""
        if isinstance(event, ev.Token):
            return []
        self._seq += 1
        seq = self._seq
        t_ns = max(_ns(self.start_ns, event.t), self.start_ns)
        self._last_ns = max(self._last_ns, t_ns)
        closed: list[Span] = []
        if isinstance(event, ev.RunStarted):
            root = self._root_span(t_ns)
            root.name = f"invoke_agent {event.pattern}"
            root.attributes.update({"gen_ai.agent.name": event.pattern, NS + "seq": seq, **event_attributes(event)})
            for name, value in self.config.items():
                if name.startswith("max_") and isinstance(value, int) and not isinstance(value, bool):
                    root.attributes[NS + "limit." + name] = value
            root.attributes[NS + "config"] = json.dumps(self.config, ensure_ascii=False)
            if self.fork:
                root.attributes[NS + "fork"] = json.dumps(self.fork, ensure_ascii=False)
            return []
        root = self._root_span(t_ns)
        if isinstance(event, ev.RunFinished):
            closed += self._close_tools(t_ns) + self._close_group(t_ns)
            root.attributes.update(
                {NS + "end_seq": seq, NS + "end_reason": event.reason, **event_attributes(event, skip=("step",))}
            )
            if event.reason == "error" and root.error is None:
                root.error = "the run failed"
            root.end_ns = max(root.end_ns, t_ns)
            self._root = None
            return closed + [root]
        if _by_iteration(self.config):
            closed += self._iteration(event, t_ns)
        if isinstance(event, ev.StepStarted):
            closed += self._close_group(t_ns)
            self._group = self._new(
                f"step {event.step_id}", t_ns, "step", {NS + "seq": seq, **event_attributes(event)}, parent=root
            )
            self._group.key = event.step_id
            return closed
        if isinstance(event, ev.StepFinished):
            group = self._group
            if group is not None and group.role == "step" and group.key == event.step_id:
                group.attributes.update({NS + "end_seq": seq, **event_attributes(event)})
                if event.status == "failed":
                    group.error = event.result[:500] or "the step failed"
                return closed + self._close_group(t_ns)
            self._host().events.append(self._span_event(event, seq, t_ns))  # an unmatched finish is kept as an event
            return closed
        if isinstance(event, ev.LlmCall):
            return closed + [self._chat(event, seq, t_ns)]
        if isinstance(event, ev.ToolCallEvent):
            span = self._new(
                f"execute_tool {event.name}",
                t_ns,
                "tool",
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": event.name,
                    "gen_ai.tool.type": "function",
                    "gen_ai.tool.call.id": event.call_id or None,
                    "gen_ai.tool.call.arguments": json.dumps(event.arguments, ensure_ascii=False, default=str),
                    NS + "seq": seq,
                    NS + "step": event.step,
                },
            )
            if event.server:  # the MCP server that served the tool
                span.attributes[MCP_SERVER] = event.server
            self._tools[event.call_id or event.name] = span
            return closed
        if isinstance(event, ev.ToolResult):
            opened = self._tools.pop(event.call_id or event.name, None)
            if opened is None:
                self._host().events.append(self._span_event(event, seq, t_ns))
                return closed
            opened.attributes.update(
                {"gen_ai.tool.call.result": event.output, NS + "result_seq": seq, NS + "is_error": event.is_error}
            )
            if event.is_error:
                opened.error = event.output[:500]
            opened.end_ns = max(opened.end_ns, t_ns)
            return closed + [opened]
        host = self._host()
        host.events.append(self._span_event(event, seq, t_ns))
        if isinstance(event, ev.VerdictEvent) and host.role in ("step", "iteration"):
            host.attributes[NS + "verdict"] = event.verdict
        elif isinstance(event, ev.PlanEvent):
            root.attributes[NS + "plan.revision"] = event.revision
        elif isinstance(event, ev.LimitReached):
            root.attributes[NS + "limit_reached"] = event.limit
        elif isinstance(event, ev.RunFailed):
            root.error = f"{event.error_type}: {event.message}"[:500]
        return closed

    def _iteration(self, event: ev.Event, t_ns: int) -> list[Span]:
        """Reflection: events that share a `step` (the iteration) go under one `iteration {n}` span."""
        group = self._group
        if event.step is None:
            return self._close_group(t_ns)
        if group is not None and group.key == event.step:
            return []
        closed = self._close_group(t_ns)
        start = t_ns - (round(event.latency_ms * 1e6) if isinstance(event, ev.LlmCall) else 0)
        self._group = self._new(
            f"iteration {event.step}",
            max(start, self.start_ns),
            "iteration",
            {NS + "iteration": event.step},
            parent=self._root,
        )
        self._group.key = event.step
        return closed

    def _chat(self, event: ev.LlmCall, seq: int, t_ns: int) -> Span:
        self.table.add(event)
        start = max(t_ns - round(event.latency_ms * 1e6), self.start_ns)
        span = self._new(
            f"chat {event.model}".strip(),
            start,
            "chat",
            kind=KIND_CLIENT,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": event.model,
                "gen_ai.response.model": event.model,
                "gen_ai.usage.input_tokens": event.prompt_tokens,
                "gen_ai.usage.output_tokens": event.completion_tokens,
                "gen_ai.response.finish_reasons": [event.finish_reason] if event.finish_reason else None,
                "gen_ai.request.temperature": event.temperature,
                NS + "seq": seq,
                **event_attributes(event, skip=_CHAT_GEN_AI),
            },
        )
        span.end_ns = t_ns
        request = self.table.request(event)
        if request:
            span.attributes["gen_ai.input.messages"] = json.dumps(
                [_semconv_message(m) for m in request], ensure_ascii=False
            )
        reply = self.table.reply(event)
        if reply is not None or event.partial_text:
            message = _semconv_message(reply or {"role": "assistant", "content": event.partial_text})
            message["finish_reason"] = event.finish_reason or "error"
            span.attributes["gen_ai.output.messages"] = json.dumps([message], ensure_ascii=False)
        if event.finish_reason is None and event.partial_text:
            span.error = "the call did not finish"
        return span

    def _span_event(self, event: ev.Event, seq: int, t_ns: int) -> SpanEvent:
        attributes = {NS + "seq": seq, **event_attributes(event)}
        if isinstance(event, ev.Draft):
            if self._last_draft is not None:
                stats = diff_stats(self._last_draft, event.text)
                attributes.update(
                    {
                        NS + "diff.lines_added": stats.added_lines,
                        NS + "diff.lines_removed": stats.removed_lines,
                        NS + "diff.changed_ratio": stats.changed_ratio,
                    }
                )
            self._last_draft = event.text
        return SpanEvent(NS + event.kind, t_ns, attributes)

    def _close_tools(self, end_ns: int) -> list[Span]:
        spans = list(self._tools.values())
        self._tools.clear()
        for span in spans:  # a tool call the run never saw finish: its span ends where the run did
            span.end_ns = max(span.end_ns, end_ns)
        return spans

    def close(self) -> list[Span]:
        """The spans still open when the events ran out (a stopped or cut run)."""
        end = self._last_ns
        closed = self._close_tools(end) + self._close_group(end)
        if self._root is not None:
            self._root.end_ns = max(self._root.end_ns, end)
            closed.append(self._root)
            self._root = None
        return closed


def _semconv_message(message: dict[str, Any]) -> dict[str, Any]:
    """A stored message in the GenAI conventions' shape: role and parts (text, tool_call, tool_call_response)."""
    role = str(message.get("role", "user"))
    parts: list[dict[str, Any]] = []
    content = message.get("content") or ""
    if role == "tool":
        parts.append({"type": "tool_call_response", "id": message.get("tool_call_id"), "response": content})
    elif content:
        parts.append({"type": "text", "content": content})
    for call in message.get("tool_calls") or ():
        if isinstance(call, dict):
            arguments: Any = call.get("arguments", "")
            try:
                arguments = untrusted.loads(arguments) if isinstance(arguments, str) else arguments
            except ValueError:
                pass
            parts.append({"type": "tool_call", "id": call.get("id"), "name": call.get("name"), "arguments": arguments})
    out: dict[str, Any] = {"role": role, "parts": parts}
    if message.get("name"):
        out["name"] = message["name"]
    return out


def spans_of(
    events: list[ev.Event],
    run_id: str,
    config: dict[str, Any] | None = None,
    start_ns: int = DEFAULT_START_NS,
    fork: dict[str, Any] | None = None,
) -> list[Span]:
    """Every span of a run, children before parents (as they close)."""
    builder = SpanBuilder(run_id, config, start_ns, fork)
    spans: list[Span] = []
    for event in events:
        spans += builder.add(event)
    return spans + builder.close()


def request_of(spans: list[Span], resource: dict[str, Any] | None = None) -> dict[str, Any]:
    """An ExportTraceServiceRequest in the OTLP/JSON mapping."""
    attrs = {"service.name": SERVICE_NAME, **(resource or {})}
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": attributes_json(attrs)},
                "scopeSpans": [
                    {"scope": {"name": SCOPE_NAME, "version": SCOPE_VERSION}, "spans": [s.to_otlp() for s in spans]}
                ],
            }
        ]
    }
