"""Traces: one JSON object holding a run's config, events and result — for export, import, replay.

A trace never holds an API key: the config has model names only, and `dumps` refuses to write a
key it is told about (belt and braces for exporters).
"""

from __future__ import annotations

import json
import math
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
    def of(cls, config: Mapping[str, Any], events: Iterable[ev.Event], models: Mapping[str, str] | None = None,
           keep_tokens: bool = False, run_id: str | None = None, fork: Mapping[str, Any] | None = None) -> Trace:
        """A trace of a (possibly partial) run; `token` events are dropped unless `keep_tokens`."""
        from .runner import result_of

        events = list(events)
        result = result_of(events)
        cfg = dict(config)
        if models is not None:
            cfg["models"] = dict(models)
        kept = events if keep_tokens else [e for e in events if not isinstance(e, ev.Token)]
        return cls(cfg, kept, {"final_answer": result.final_answer, "reason": result.reason,
                               "llm_calls": result.llm_calls,
                               "error": result.failed.message if result.failed else None},
                   run_id=run_id or uuid.uuid4().hex[:12], fork=dict(fork) if fork else None)

    def to_dict(self) -> dict[str, Any]:
        out = {"version": self.version, "run_id": self.run_id, "config": self.config,
               "events": [e.to_dict() for e in self.events], "result": self.result}
        if self.fork:
            out["fork"] = self.fork
        return out

    def dumps(self, secrets: Iterable[str] = (), indent: int | None = 2) -> str:
        from .settings import redact

        return redact(json.dumps(self.to_dict(), ensure_ascii=False, indent=indent), secrets, "[redacted]")


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of JSON data, without recursion (a hostile file could nest thousands deep)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, d = stack.pop()
        if d > limit:
            return d
        deepest = max(deepest, d)
        if isinstance(item, dict):
            stack += [(v, d + 1) for v in item.values()]
        elif isinstance(item, list):
            stack += [(v, d + 1) for v in item]
    return deepest


#: What a plan step's status can be, in a plan event (a step_finished has its own, shorter list).
PLAN_STEP_STATUSES = ("pending", "running", "done", "failed", "retried", "replanned", "skipped")
#: A plan step's fields as the core writes them (PlanStep.to_dict): name -> (allowed types, as said).
_STEP_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "id": ((int, str), "an int or a str"), "description": ((str,), "str"), "tool": ((str, type(None)), "str or null"),
    "critical": ((bool,), "bool"), "synthesis": ((bool,), "bool"), "status": ((str,), "str"), "reason": ((str,), "str"),
}


def _check_nested(item: Any) -> None:
    """The parts of an event dict that event_from_dict takes as they come: plan steps, and numbers
    JSON lets through (Infinity, NaN). Checked once here, so every view can trust the types."""
    if not isinstance(item, dict):
        return  # event_from_dict says so
    kind = item.get("kind")
    for name, value in item.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ev.EventFormatError(f"{kind}.{name} should be a finite number, got {value!r}")
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
            allowed, said = _STEP_FIELDS.get(name, ((object,), ""))
            if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
                raise ev.EventFormatError(f"{where}.{name} should be {said}, got {type(value).__name__}")
        if step.get("status", "pending") not in PLAN_STEP_STATUSES:
            raise ev.EventFormatError(f"{where}.status should be one of {', '.join(PLAN_STEP_STATUSES)}, "
                                      f"got {step['status'][:40]!r}")


def loads(data: str | bytes) -> Trace:
    """Parse and validate a trace; raises TraceFormatError with a message a user can act on."""
    size = len(data.encode() if isinstance(data, str) else data)
    if size > MAX_BYTES:
        raise TraceFormatError(f"the file is {size / 1e6:.1f} MB; traces are limited to {MAX_BYTES // 1024 // 1024} MB",
                               reason="too_large")
    try:
        raw = json.loads(data)
    except RecursionError:
        raise TraceFormatError("the JSON is nested too deeply to be a trace", reason="too_deep") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise TraceFormatError(f"not a JSON file ({exc})", reason="not_json") from None
    if not isinstance(raw, dict):
        raise TraceFormatError("a trace is a JSON object with version, config, events and result", reason="not_trace")
    if _depth(raw, MAX_DEPTH) > MAX_DEPTH:
        raise TraceFormatError(f"the JSON is nested more than {MAX_DEPTH} levels deep; not a trace", reason="too_deep")
    missing = [k for k in ("version", "config", "events") if k not in raw]
    if missing:
        raise TraceFormatError(f"not a trace: missing field(s) {', '.join(missing)}", reason="not_trace")
    if raw["version"] not in SUPPORTED_VERSIONS or isinstance(raw["version"], bool):
        raise TraceFormatError(f"trace version {raw['version']!r} is not supported (this app reads versions "
                               f"{', '.join(map(str, SUPPORTED_VERSIONS))})", reason="version")
    run_id = raw.get("run_id", "")
    fork = raw.get("fork")
    if not isinstance(run_id, str) or (fork is not None and not (
            isinstance(fork, dict) and isinstance(fork.get("run_id"), str) and isinstance(fork.get("at"), int))):
        raise TraceFormatError("not a trace: run_id must be a string and fork an object with run_id and at",
                               reason="not_trace")
    if not isinstance(raw["config"], dict) or not isinstance(raw["events"], list):
        raise TraceFormatError("not a trace: config must be an object and events a list", reason="not_trace")
    result = raw.get("result") or {}
    if not isinstance(result, dict):
        raise TraceFormatError("not a trace: result must be an object", reason="not_trace")
    models = raw["config"].get("models")
    if models is not None and not (isinstance(models, dict) and all(isinstance(v, str) for v in models.values())):
        raise TraceFormatError("not a trace: config.models must map roles to model names", reason="not_trace")
    events = []
    for i, item in enumerate(raw["events"]):
        try:
            _check_nested(item)
            events.append(ev.event_from_dict(item))
        except ev.EventFormatError as exc:
            raise TraceFormatError(f"event {i}: {exc}", reason="bad_event") from None
    return Trace(raw["config"], events, result, raw["version"], run_id, fork)
