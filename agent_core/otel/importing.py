"""OTLP/JSON back to traces Replay can draw: our own export exactly, and other tools' GenAI spans.

What maps: `invoke_agent`, `chat` (and OpenInference LLM spans), `execute_tool` (and OpenInference
TOOL spans), our step and iteration spans, and span events in the `agent_patterns.*` namespace. What
does not map is listed by name in `ImportedTrace.unmapped`, never dropped silently. The file passes
the checks trace uploads do (5 MB, JSON, nesting depth, lone surrogates replaced), and the rebuilt
trace is validated by `trace.loads` like any uploaded trace.

Whatever the file holds, `loads` and `from_request` raise TraceFormatError and nothing else: JSON
inside a string attribute is parsed with its depth bounded (20,000 levels raised RecursionError),
times are nanoseconds that fit OTLP's fixed64 (a 400-digit start time raised OverflowError), and
every other value is read for the type it must have.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any

from .. import events as ev
from .. import trace, untrusted
from ..errors import TraceFormatError
from ..patterns import registry
from .mapping import NS

#: Field types written as attribute scalars; any other field travels as a JSON string.
_SCALARS = {"str", "int", "float", "bool", "str | None", "int | None", "float | None", "RoleName", *ev.LITERAL_TYPES}
_CHAT_OPERATIONS = ("chat", "text_completion", "generate_content")
#: How many unmapped spans are named one by one; the rest are counted.
MAX_LISTED = 200
#: The latest time OTLP can say: fixed64 nanoseconds since the epoch.
MAX_NS = 2**64 - 1


@dataclass
class ImportedTrace(trace.Trace):
    """A trace rebuilt from OTLP/JSON, with what could not be mapped."""

    #: "span name (why)" for every span, or span event, that has no counterpart in our events
    unmapped: list[str] = field(default_factory=list)
    #: how many spans the file held for this trace
    span_count: int = 0


def is_otlp(raw: Any) -> bool:
    """True for data shaped like an ExportTraceServiceRequest (has `resourceSpans`)."""
    return isinstance(raw, dict) and "resourceSpans" in raw


def loads(data: str | bytes) -> list[tuple[str, ImportedTrace]]:
    """Parse an OTLP/JSON file: (name, trace) per trace id in it; raises TraceFormatError saying why not."""
    size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    if size > trace.MAX_BYTES:
        raise TraceFormatError(
            f"the file is {size / 1e6:.1f} MB; files are limited to {trace.MAX_BYTES // 1024 // 1024} MB",
            reason="too_large",
        )
    try:
        raw = json.loads(data)
    except RecursionError:
        raise TraceFormatError("the JSON is nested too deeply to be OTLP/JSON", reason="too_deep") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise TraceFormatError(f"not a JSON file ({exc})", reason="not_json", detail=str(exc)) from None
    return from_request(raw)


def from_request(raw: Any) -> list[tuple[str, ImportedTrace]]:
    """The traces in a parsed ExportTraceServiceRequest."""
    if not is_otlp(raw):
        raise TraceFormatError("not OTLP/JSON: expected an object with resourceSpans", reason="not_otlp")
    if trace._depth(raw, trace.MAX_DEPTH) > trace.MAX_DEPTH:
        raise TraceFormatError(
            f"the JSON is nested more than {trace.MAX_DEPTH} levels deep; not OTLP/JSON", reason="too_deep"
        )
    spans = list(_spans(raw))
    if not spans:
        raise TraceFormatError("the OTLP/JSON file holds no spans", reason="no_run")
    by_trace: dict[str, list[_Span]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    out = []
    for trace_id, group in by_trace.items():
        imported = _rebuild(trace_id, group)
        ids = {g.span_id for g in group}  # once: built per span in the key, 20,000 spans cost 4·10⁸ steps
        root = min(group, key=lambda s: (s.parent_id is not None and s.parent_id in ids, s.start))
        out.append((f"{root.name or 'trace'} · {trace_id[:8]}" if len(by_trace) > 1 else root.name, imported))
    return out


# --- reading the request ------------------------------------------------------------------------


@dataclass
class _Span:
    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    events: list[tuple[str, int, dict[str, Any]]]
    error: bool


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TraceFormatError(
            f"not OTLP/JSON: {where} should be a list, got {type(value).__name__}", reason="not_otlp"
        )
    return value


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TraceFormatError(
            f"not OTLP/JSON: {where} should be an object, got {type(value).__name__}", reason="not_otlp"
        )
    return value


def _time(value: Any, where: str) -> int:
    try:
        out = int(value) if not isinstance(value, (bool, float)) else int(value) if math.isfinite(value) else None
    except (TypeError, ValueError):
        out = None
    if out is None or not 0 <= out <= MAX_NS:
        raise TraceFormatError(
            f"not OTLP/JSON: {where} should be a time in nanoseconds, got {str(value)[:40]!r}", reason="not_otlp"
        )
    return out


def _spans(raw: dict[str, Any]):
    for i, rs in enumerate(_list(raw.get("resourceSpans"), "resourceSpans")):
        rs = _object(rs, f"resourceSpans[{i}]")
        scopes = rs.get("scopeSpans", rs.get("instrumentationLibrarySpans"))
        for j, ss in enumerate(_list(scopes, f"resourceSpans[{i}].scopeSpans")):
            ss = _object(ss, f"resourceSpans[{i}].scopeSpans[{j}]")
            for k, sp in enumerate(_list(ss.get("spans"), f"resourceSpans[{i}].scopeSpans[{j}].spans")):
                where = f"span {k}"
                sp = _object(sp, where)
                trace_id, span_id = sp.get("traceId"), sp.get("spanId")
                if not isinstance(trace_id, str) or not isinstance(span_id, str):
                    raise TraceFormatError(
                        f"not OTLP/JSON: {where} needs traceId and spanId strings", reason="not_otlp"
                    )
                parent = sp.get("parentSpanId")
                status = sp.get("status")
                if not isinstance(status, dict):
                    status = {}
                events = []
                for m, item in enumerate(_list(sp.get("events"), f"{where}.events")):
                    item = _object(item, f"{where}.events[{m}]")
                    events.append(
                        (
                            str(item.get("name", "")),
                            _time(item.get("timeUnixNano", 0), f"{where}.events[{m}].timeUnixNano"),
                            _attributes(item.get("attributes"), f"{where}.events[{m}]"),
                        )
                    )
                start = _time(sp.get("startTimeUnixNano", 0), f"{where}.startTimeUnixNano")
                yield _Span(
                    trace_id,
                    span_id,
                    parent if isinstance(parent, str) and parent else None,
                    str(sp.get("name", "")),
                    start,
                    max(start, _time(sp.get("endTimeUnixNano", start), f"{where}.endTimeUnixNano")),
                    _attributes(sp.get("attributes"), where),
                    events,
                    status.get("code") in (2, "STATUS_CODE_ERROR"),
                )


def _attributes(items: Any, where: str) -> dict[str, Any]:
    out = {}
    for item in _list(items, f"{where}.attributes"):
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = _value(item.get("value"))
    return out


def _value(value: Any) -> Any:
    """An OTLP AnyValue as Python."""
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return str(value["stringValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError, OverflowError):  # OverflowError: Infinity, which JSON files may hold
            return None
    if "doubleValue" in value:
        try:
            number = float(value["doubleValue"])
        except (TypeError, ValueError, OverflowError):  # OverflowError: an int of 400 digits
            return None
        return number if math.isfinite(number) else None
    if "arrayValue" in value:
        values = value["arrayValue"].get("values") if isinstance(value["arrayValue"], dict) else None
        return [_value(v) for v in values] if isinstance(values, list) else []
    if "kvlistValue" in value:
        values = value["kvlistValue"].get("values") if isinstance(value["kvlistValue"], dict) else None
        return _attributes(values, "kvlistValue") if isinstance(values, list) else {}
    return None


# --- spans to events ----------------------------------------------------------------------------


def _event(kind: str, attributes: dict[str, Any], t: float, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """An event dict of `kind` from `agent_patterns.<field>` attributes (over `base`)."""
    cls = ev.EVENT_TYPES[kind]
    data: dict[str, Any] = {"kind": kind, **(base or {}), "t": t}
    for f in dataclasses.fields(cls):
        key = NS + f.name
        if f.name == "t" or key not in attributes:
            continue
        value = attributes[key]
        if str(f.type) not in _SCALARS and isinstance(value, str):
            try:
                value = untrusted.loads(value, max_depth=trace.MAX_DEPTH)
            except untrusted.JSONTooDeep:
                raise TraceFormatError(
                    f"{kind}.{f.name} holds JSON nested more than {trace.MAX_DEPTH} levels deep", reason="too_deep"
                ) from None
            except ValueError:
                raise TraceFormatError(f"{kind}.{f.name} should hold JSON", reason="bad_event") from None
        data[f.name] = value
    return data


def _json_or_text(value: Any) -> Any:
    """A string attribute that holds JSON (tool arguments, GenAI messages) as that JSON, else as the
    text: JSON nested past the trace's own depth stays text too (it is shown, not walked)."""
    if not isinstance(value, str):
        return value
    try:
        return untrusted.loads(value, max_depth=trace.MAX_DEPTH)
    except ValueError:
        return value


def _int(value: Any) -> int:
    try:
        return max(int(value), 0)
    except (TypeError, ValueError, OverflowError):
        return 0


class _Messages:
    """Interns the GenAI-convention messages of foreign chat spans into a call record (calls.py)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def record(self, messages: Any) -> tuple[list[list[int]], list[dict[str, Any]], list[int]]:
        pairs: list[list[int]] = []
        new: list[dict[str, Any]] = []
        ids = []
        for m in messages if isinstance(messages, list) else []:
            message = _our_message(m)
            if message is None:
                continue
            key = json.dumps(message, sort_keys=True, ensure_ascii=False)
            if key not in self.ids:
                self.ids[key] = len(self.ids)
                new.append({"id": self.ids[key], **message})
            i = self.ids[key]
            ids.append(i)
            if pairs and pairs[-1][1] + 1 == i:
                pairs[-1][1] = i
            else:
                pairs.append([i, i])
        return pairs, new, ids


def _our_message(message: Any) -> dict[str, Any] | None:
    """A GenAI-convention message ({role, parts}) as the trace stores one ({role, content, tool_calls})."""
    if not isinstance(message, dict):
        return None
    out: dict[str, Any] = {"role": str(message.get("role", "user")), "content": ""}
    texts, calls = [], []
    for part in message.get("parts") or ():
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            texts.append(str(part.get("content", "")))
        elif kind == "tool_call":
            arguments = part.get("arguments")
            calls.append(
                {
                    "id": str(part.get("id") or ""),
                    "name": str(part.get("name") or ""),
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False),
                }
            )
        elif kind == "tool_call_response":
            out["tool_call_id"] = str(part.get("id") or "")
            response = part.get("response")
            texts.append(response if isinstance(response, str) else json.dumps(response, ensure_ascii=False))
    if isinstance(message.get("content"), str):  # older instrumentations: {role, content}
        texts.append(message["content"])
    out["content"] = "\n".join(texts)
    if calls:
        out["tool_calls"] = calls
    if isinstance(message.get("name"), str):
        out["name"] = message["name"]
    return out


def _rebuild(trace_id: str, spans: list[_Span]) -> ImportedTrace:
    spans.sort(key=lambda s: s.start)
    base = spans[0].start
    points: list[tuple[int, float, int, dict[str, Any]]] = []  # (time, seq, order, event dict)
    unmapped: list[str] = []
    messages = _Messages()
    config: dict[str, Any] | None = None
    run_id = ""
    fork = None

    def t_of(ns: int) -> float:
        return round((ns - base) / 1e9, 4)

    def add(ns: int, seq: Any, data: dict[str, Any]) -> None:
        points.append((ns, seq if isinstance(seq, int) else math.inf, len(points), data))

    for s in spans:
        a = s.attributes
        op = a.get("gen_ai.operation.name")
        oi = a.get("openinference.span.kind")
        if op == "invoke_agent" or (oi == "AGENT" and not run_id):
            if NS + "config" in a:
                loaded = _json_or_text(a[NS + "config"])
                config = loaded if isinstance(loaded, dict) else None
                run_id = str(a.get(NS + "run_id") or "")
                fork = _json_or_text(a.get(NS + "fork")) if NS + "fork" in a else None
            base_started = {"pattern": str(a.get("gen_ai.agent.name") or ""), "task": ""}
            add(s.start, a.get(NS + "seq"), _event("run_started", a, t_of(s.start), base_started))
            if NS + "end_seq" in a or NS + "seq" not in a:
                finished = {"reason": "error" if s.error else "answer"}
                add(s.end, a.get(NS + "end_seq"), _event("run_finished", a, t_of(s.end), finished))
        elif op in _CHAT_OPERATIONS or oi == "LLM":
            reasons = a.get("gen_ai.response.finish_reasons")
            chat = {
                "model": str(
                    a.get("gen_ai.request.model") or a.get("gen_ai.response.model") or a.get("llm.model_name") or ""
                ),
                "prompt_tokens": _int(a.get("gen_ai.usage.input_tokens", a.get("llm.token_count.prompt"))),
                "completion_tokens": _int(a.get("gen_ai.usage.output_tokens", a.get("llm.token_count.completion"))),
                "finish_reason": str(reasons[0]) if isinstance(reasons, list) and reasons and reasons[0] else None,
                "latency_ms": round((s.end - s.start) / 1e6, 1),
            }
            if NS + "reply_message" not in a and NS + "messages" not in a:
                pairs, new, _ = messages.record(_json_or_text(a.get("gen_ai.input.messages")))
                out_pairs, out_new, out_ids = messages.record(_json_or_text(a.get("gen_ai.output.messages")))
                chat.update(messages=pairs, new_messages=new + out_new, reply_message=out_ids[0] if out_ids else None)
            add(s.end, a.get(NS + "seq"), _event("llm_call", a, t_of(s.end), chat))
        elif op == "execute_tool" or oi == "TOOL":
            name = str(a.get("gen_ai.tool.name") or a.get("tool.name") or s.name.removeprefix("execute_tool ").strip())
            call = {
                "name": name,
                "call_id": str(a.get("gen_ai.tool.call.id") or ""),
                "arguments": _json_or_text(a.get("gen_ai.tool.call.arguments", a.get("input.value"))),
                "step": a.get(NS + "step"),
            }
            if isinstance(a.get("mcp.server.name"), str):
                call["server"] = a["mcp.server.name"]
            add(s.start, a.get(NS + "seq"), {"kind": "tool_call", "t": t_of(s.start), **call})
            if NS + "result_seq" in a or NS + "seq" not in a:
                output = a.get("gen_ai.tool.call.result", a.get("output.value"))
                add(
                    s.end,
                    a.get(NS + "result_seq"),
                    {
                        "kind": "tool_result",
                        "t": t_of(s.end),
                        "name": name,
                        "call_id": call["call_id"],
                        "step": call["step"],
                        "server": call.get("server", ""),
                        "is_error": bool(a.get(NS + "is_error", s.error)),
                        "output": output if isinstance(output, str) else json.dumps(output, ensure_ascii=False),
                    },
                )
        elif NS + "step_id" in a and NS + "attempt" in a:
            add(s.start, a.get(NS + "seq"), _event("step_started", a, t_of(s.start)))
            if NS + "end_seq" in a:
                add(s.end, a.get(NS + "end_seq"), _event("step_finished", a, t_of(s.end)))
        elif NS + "iteration" in a:
            pass  # a reflection iteration groups its children; it has no event of its own
        elif len(unmapped) < MAX_LISTED:
            unmapped.append(f"{s.name or '(no name)'} (span)")
        else:
            unmapped[-1] = f"… and more spans ({len(spans)} in all)"
        for name, ns, attributes in s.events:
            kind = name.removeprefix(NS) if name.startswith(NS) else ""
            if kind in ev.EVENT_TYPES and kind not in ("token", "llm_call", "tool_call", "tool_result"):
                add(ns, attributes.get(NS + "seq"), _event(kind, attributes, t_of(ns)))
            elif len(unmapped) < MAX_LISTED:
                unmapped.append(f"{name or '(no name)'} (event on {s.name or 'a span'})")

    if all(p[1] != math.inf for p in points):
        points.sort(key=lambda p: p[1])  # our own export: the run's exact order
    else:
        points.sort(key=lambda p: (p[0], p[1], p[2]))
    event_dicts = [p[3] for p in points]
    if config is None:  # another tool's spans: drawn as a tool loop, the models named as they were
        models = sorted({d["model"] for d in event_dicts if d["kind"] == "llm_call" and d.get("model")})
        # drawn as the default pattern (RunConfig's: the registry's first), a tool loop
        config = {"pattern": registry.names()[0], "lang": "en", "models": {"default": models[0]} if models else {}}
    events = []
    for i, data in enumerate(event_dicts):
        try:
            trace._check_nested(data)
            events.append(ev.event_from_dict(data))
        except ev.EventFormatError as exc:
            raise TraceFormatError(f"span data {i}: {exc}", reason="bad_event") from None
    from ..runner import result_of

    result = result_of(events)
    raw = {
        "version": trace.VERSION,
        "run_id": run_id or trace_id[:12],
        "config": config,
        "events": [e.to_dict() for e in events],
        "result": {
            "final_answer": result.final_answer,
            "reason": result.reason,
            "llm_calls": result.llm_calls,
            "error": result.failed.message if result.failed else None,
        },
    }
    if isinstance(fork, dict):
        raw["fork"] = fork
    checked = trace.loads(json.dumps(raw, ensure_ascii=False))
    return ImportedTrace(
        checked.config,
        checked.events,
        checked.result,
        checked.version,
        checked.run_id,
        checked.fork,
        unmapped=unmapped,
        span_count=len(spans),
    )
