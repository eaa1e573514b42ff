"""Traces: one JSON object holding a run's config, events and result — for export, import, replay.

A trace never holds an API key: the config has model names only, and `dumps` refuses to write a
key it is told about (belt and braces for exporters).
"""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import events as ev
from .errors import TraceFormatError

#: 2 adds the call record (every llm_call's messages and reply, see calls.py), a run id, and the fork
#: point of a forked run. Version 1 traces still load, replay and report; they cannot be forked.
VERSION = 2
SUPPORTED_VERSIONS = (1, 2)
MAX_BYTES = 5 * 1024 * 1024
MAX_DEPTH = 32


@dataclass
class Trace:
    config: dict[str, Any]
    events: list[ev.Event]
    result: dict[str, Any] = field(default_factory=dict)
    version: int = VERSION
    run_id: str = ""
    #: for a forked run: {"run_id": the parent's, "at": the call it was forked at, "edited": a person's reply}
    fork: dict[str, Any] | None = None

    @classmethod
    def of(
        cls,
        config: Mapping[str, Any],
        events: Iterable[ev.Event],
        models: Mapping[str, str] | None = None,
        keep_tokens: bool = False,
        run_id: str | None = None,
        fork: Mapping[str, Any] | None = None,
    ) -> Trace:
        """A trace of a (possibly partial) run; `token` events are dropped unless `keep_tokens`."""
        from .runner import result_of

        events = list(events)
        result = result_of(events)
        cfg = dict(config)
        if models is not None:
            cfg["models"] = dict(models)
        kept = events if keep_tokens else [e for e in events if not isinstance(e, ev.Token)]
        return cls(
            cfg,
            kept,
            {
                "final_answer": result.final_answer,
                "reason": result.reason,
                "llm_calls": result.llm_calls,
                "error": result.failed.message if result.failed else None,
            },
            run_id=run_id or uuid.uuid4().hex[:12],
            fork=dict(fork) if fork else None,
        )

    def to_dict(self) -> dict[str, Any]:
        out = {
            "version": self.version,
            "run_id": self.run_id,
            "config": self.config,
            "events": [e.to_dict() for e in self.events],
            "result": self.result,
        }
        if self.fork:
            out["fork"] = self.fork
        return out

    def dumps(self, secrets: Iterable[str] = (), indent: int | None = 2) -> str:
        from .settings import redact

        return redact(json.dumps(self.to_dict(), ensure_ascii=False, indent=indent), secrets, "[redacted]")


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of JSON data, without recursion (a hostile file could nest thousands deep).

    The same pass replaces every lone UTF-16 surrogate (JSON's `"\\ud800"`, or a string a JavaScript
    exporter cut between the two halves of a pair) with U+FFFD, in place: no page can draw one
    (Streamlit's messages are UTF-8), and a run of a file that holds one ended in a traceback."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, d = stack.pop()
        if d > limit:
            return d
        deepest = max(deepest, d)
        if isinstance(item, dict):
            renamed = []
            for key, v in item.items():
                if type(v) is str:
                    if not v.isascii() and _SURROGATE.search(v):
                        item[key] = _SURROGATE.sub("\ufffd", v)  # (a value, not a key: the dict keeps its size)
                elif isinstance(v, (dict, list)):
                    stack.append((v, d + 1))
                if not key.isascii() and _SURROGATE.search(key):
                    renamed.append(key)
            for key in renamed:
                item[_SURROGATE.sub("\ufffd", key)] = item.pop(key)
        elif isinstance(item, list):
            for i, v in enumerate(item):
                if type(v) is str:
                    if not v.isascii() and _SURROGATE.search(v):
                        item[i] = _SURROGATE.sub("\ufffd", v)
                elif isinstance(v, (dict, list)):
                    stack.append((v, d + 1))
        if item and isinstance(item, (dict, list)):  # members one level deeper (scalars are not pushed)
            deepest = max(deepest, d + 1)
    return deepest


_SURROGATE = re.compile("[\ud800-\udfff]")
#: The largest whole number an event may hold: beyond it a float is no longer exact, and a time or a
#: latency of 10⁴⁰⁰ made a page's arithmetic raise OverflowError.
MAX_INT = 2**53
#: The most message ids one call record may name (a 200-round run sends some 400): the ranges are
#: compressed, so a small file could otherwise name a billion and the page expand them.
MAX_CALL_MESSAGES = 20_000


#: What a plan step's status can be, in a plan event (a step_finished has its own, shorter list).
PLAN_STEP_STATUSES = ("pending", "running", "done", "failed", "retried", "replanned", "skipped")
#: A plan step's fields as the core writes them (PlanStep.to_dict): name -> (allowed types, as said).
_STEP_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "id": ((int, str), "an int or a str"),
    "description": ((str,), "str"),
    "tool": ((str, type(None)), "str or null"),
    "critical": ((bool,), "bool"),
    "synthesis": ((bool,), "bool"),
    "status": ((str,), "str"),
    "reason": ((str,), "str"),
}
#: A field a pattern adds to its plan's steps (the orchestrator's `fallback`): any JSON scalar, never a nest.
_OTHER_STEP_FIELD: tuple[tuple[type, ...], str] = (
    (str, int, float, bool, type(None)),
    "a string, a number, true, false or null",
)


def _check_nested(item: Any) -> None:
    """The parts of an event dict that event_from_dict takes as they come: plan steps, and numbers
    JSON lets through (Infinity, NaN). Checked once here, so every view can trust the types."""
    if not isinstance(item, dict):
        return  # event_from_dict says so
    kind = item.get("kind")
    if not isinstance(kind, str):
        raise ev.EventFormatError(f"unknown event kind: an event's kind is a name, got {type(kind).__name__}")
    for name, value in item.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ev.EventFormatError(f"{kind}.{name} should be a finite number, got {value!r}")
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise ev.EventFormatError(
                f"{kind}.{name} should be a number of at most 2**53, got one of {len(str(abs(value)))} digits"
            )
    if kind == "llm_call":
        _check_record(item)
    elif kind == "human_reply":
        _objects(item.get("tool_calls", []), "human_reply.tool_calls")
    if kind != "plan" or "steps" not in item:
        return
    steps = item["steps"]
    if not isinstance(steps, list):
        raise ev.EventFormatError(f"plan.steps should be a list of objects, got {type(steps).__name__}")
    for n, step in enumerate(steps):
        where = f"plan.steps[{n}]"
        if not isinstance(step, dict):
            raise ev.EventFormatError(f"{where} should be an object, got {type(step).__name__}")
        for name, value in step.items():
            allowed, said = _STEP_FIELDS.get(name, _OTHER_STEP_FIELD)
            if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
                raise ev.EventFormatError(f"{where}.{name} should be {said}, got {type(value).__name__}")
        if step.get("status", "pending") not in PLAN_STEP_STATUSES:
            raise ev.EventFormatError(
                f"{where}.status should be one of {', '.join(PLAN_STEP_STATUSES)}, got {step['status'][:40]!r}"
            )


def _objects(value: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ev.EventFormatError(f"{where} should be a list of objects")
    return value


#: A recorded message's fields the views and Fork read: name -> (allowed types, as said).
_MESSAGE_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "role": ((str,), "str"),
    "content": ((str, type(None)), "str or null"),
    "tool_call_id": ((str, type(None)), "str or null"),
    "name": ((str, type(None)), "str or null"),
    "template": ((str, type(None)), "str or null"),
    "edited": ((bool,), "bool"),
    "fills": ((list,), "a list"),
    "tool_calls": ((list,), "a list"),
}


def _check_record(item: dict[str, Any]) -> None:
    """An llm_call's call record: id ranges, new messages and tool names of the types calls.py reads."""
    pairs, total = item.get("messages", []), 0
    if not isinstance(pairs, list):
        raise ev.EventFormatError("llm_call.messages should be a list of [first, last] id ranges")
    for n, pair in enumerate(pairs):
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and all(type(v) is int for v in pair)
            and 0 <= pair[0] <= pair[1] <= MAX_INT
        ):
            raise ev.EventFormatError(f"llm_call.messages[{n}] should be a range [first, last] of message ids")
        total += pair[1] - pair[0] + 1
    if total > MAX_CALL_MESSAGES:
        raise ev.EventFormatError(
            f"llm_call.messages names {total:,} messages; a call record holds at most {MAX_CALL_MESSAGES:,}"
        )
    tools = item.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise ev.EventFormatError("llm_call.tools should be a list of tool names")
    for n, message in enumerate(_objects(item.get("new_messages", []), "llm_call.new_messages")):
        where = f"llm_call.new_messages[{n}]"
        if type(message.get("id")) is not int or not 0 <= message["id"] <= MAX_INT:
            raise ev.EventFormatError(f"{where}.id should be a message id (a whole number from 0)")
        for name, (allowed, said) in _MESSAGE_FIELDS.items():
            if name in message and (
                not isinstance(message[name], allowed) or (isinstance(message[name], bool) and bool not in allowed)
            ):
                raise ev.EventFormatError(f"{where}.{name} should be {said}, got {type(message[name]).__name__}")
        for call in _objects(message.get("tool_calls", []), f"{where}.tool_calls"):
            if not all(isinstance(call.get(k, ""), str) for k in ("id", "name", "arguments")):
                raise ev.EventFormatError(f"{where}.tool_calls: id, name and arguments should be strings")


def _check_prompts(config: dict[str, Any]) -> None:
    """A trace's prompt templates: text, and placeholders that are bare names (prompts.placeholders),
    so opening or forking the run never expands a format spec a participant wrote."""
    from .errors import TemplateError
    from .prompts import placeholders

    prompts = config.get("prompts")
    if prompts is None:
        return
    if not isinstance(prompts, dict) or not all(isinstance(v, str) for v in prompts.values()):
        raise TraceFormatError(
            "the run configuration's prompts must map prompt names to template text", reason="config"
        )
    for key, template in prompts.items():
        try:
            placeholders(template, key)
        except TemplateError as exc:
            raise TraceFormatError(f"the run configuration's prompt cannot be used: {exc}", reason="config") from None


def loads(data: str | bytes) -> Trace:
    """Parse and validate a trace; raises TraceFormatError with a message a user can act on."""
    size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    if size > MAX_BYTES:
        raise TraceFormatError(
            f"the file is {size / 1e6:.1f} MB; traces are limited to {MAX_BYTES // 1024 // 1024} MB", reason="too_large"
        )
    try:
        raw = json.loads(data)
    except RecursionError:
        raise TraceFormatError("the JSON is nested too deeply to be a trace", reason="too_deep") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise TraceFormatError(f"not a JSON file ({exc})", reason="not_json", detail=str(exc)) from None
    return from_json(raw)


def from_json(raw: Any) -> Trace:
    """Validate data parsed from a trace file (json.loads of at most MAX_BYTES), as `loads` does after
    parsing; for a caller that parsed the file already. Lone surrogates in it are replaced in place."""
    if not isinstance(raw, dict):
        raise TraceFormatError("a trace is a JSON object with version, config, events and result", reason="not_trace")
    if _depth(raw, MAX_DEPTH) > MAX_DEPTH:
        raise TraceFormatError(f"the JSON is nested more than {MAX_DEPTH} levels deep; not a trace", reason="too_deep")
    missing = [k for k in ("version", "config", "events") if k not in raw]
    if missing:
        raise TraceFormatError(f"not a trace: missing field(s) {', '.join(missing)}", reason="not_trace")
    if raw["version"] not in SUPPORTED_VERSIONS or isinstance(raw["version"], bool):
        raise TraceFormatError(
            f"trace version {ev.quoted(raw['version'])} is not supported (this app reads versions "
            f"{', '.join(map(str, SUPPORTED_VERSIONS))})",
            reason="version",
        )
    run_id = raw.get("run_id", "")
    fork = raw.get("fork")
    if not isinstance(run_id, str) or (
        fork is not None
        and not (isinstance(fork, dict) and isinstance(fork.get("run_id"), str) and isinstance(fork.get("at"), int))
    ):
        raise TraceFormatError(
            "not a trace: run_id must be a string and fork an object with run_id and at", reason="not_trace"
        )
    if not isinstance(raw["config"], dict) or not isinstance(raw["events"], list):
        raise TraceFormatError("not a trace: config must be an object and events a list", reason="not_trace")
    result = raw.get("result") or {}
    if not isinstance(result, dict):
        raise TraceFormatError("not a trace: result must be an object", reason="not_trace")
    models = raw["config"].get("models")
    if models is not None and not (isinstance(models, dict) and all(isinstance(v, str) for v in models.values())):
        raise TraceFormatError("not a trace: config.models must map roles to model names", reason="not_trace")
    _check_prompts(raw["config"])
    events = []
    for i, item in enumerate(raw["events"]):
        try:
            _check_nested(item)
            events.append(ev.event_from_dict(item))
        except ev.EventFormatError as exc:
            raise TraceFormatError(f"event {i}: {exc}", reason="bad_event") from None
    return Trace(raw["config"], events, result, raw["version"], run_id, fork)
