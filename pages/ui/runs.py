"""The runs of a session: each one's event dicts, config, model names and run id.

A page keeps its runs under `<prefix>_runs` in session_state, newest last. One script run drives a
run; Streamlit may start the next script run while the old one is still iterating (fast reruns, the
Stop button, a page switch), so every write goes through `append`, which refuses events for a run
that has ended. Lifecycle: `begin` (pending, from the Run button's callback) -> `claim` (running,
in the script run that iterates the core) -> `finish` | `stop` | `settle_stale` (every kind of end
unlocks the page).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import streamlit as st

from agent_core import events as ev
from agent_core.config import RunConfig
from agent_core.patterns.registry import config_from_dict
from agent_core.trace import Trace

from . import telemetry

#: Finished runs kept per page: enough to look back, bounded so a workshop server's memory is too.
HISTORY = 10
PENDING, RUNNING, FINISHED, STOPPED = "pending", "running", "finished", "stopped"

# Guards check-then-append against the Stop callback running on another script thread.
_LOCK = threading.Lock()


@dataclass
class RunRecord:
    """One run as the session keeps it: plain data, so it can be redrawn, exported or compared."""

    run_id: str
    task: str
    config: dict[str, Any]
    models: dict[str, str]
    bound: int
    #: the run's events as the core yields them (tokens merged per call); serialised only for export
    events: list[ev.Event] = field(default_factory=list)
    status: str = PENDING
    started: float = 0.0
    #: set when the run ended without its own closing events (Stop, a page switch, the toolbar)
    interrupted: bool = False
    #: a fork: the parent's run id, the call it forks at, whether that call's reply was written by a
    #: person, and that reply ({"text", "tool_calls"}) — see agent_core.fork
    fork: dict[str, Any] | None = None
    #: a fork's parent events, whose recorded prefix the fork is served from
    parent: list[ev.Event] | None = None
    #: step mode: the breakpoints asked for ({"every_call", "roles", "verdicts", "tools", "people"})
    step: dict[str, Any] | None = None
    #: the agent_core.stepping.RunHandle driving the run in its own thread, across script runs
    handle: Any = None
    #: a fork: set (a threading.Event) once the handle has served the recorded prefix
    prefix_ready: Any = None

    @property
    def active(self) -> bool:
        return self.status in (PENDING, RUNNING)

    def run_config(self) -> RunConfig:
        return config_from_dict(self.config)

    def typed_events(self) -> list[ev.Event]:
        """The stored events so far (tokens are already coalesced per call): a copy, as the run goes on."""
        return list(self.events)  # (one C call: a copy the run's thread cannot change half-way)

    def trace(self) -> Trace:
        """The run as a trace: its own run id, and its parent's when it is a fork."""
        point = {k: self.fork[k] for k in ("run_id", "at", "edited")} if self.fork else None
        return Trace.of(self.config, self.typed_events(), self.models, run_id=self.run_id, fork=point)


def _key(prefix: str) -> str:
    return f"{prefix}_runs"


def history(prefix: str) -> list[RunRecord]:
    """Every kept run of a page, oldest first."""
    return st.session_state.setdefault(_key(prefix), [])


def current(prefix: str) -> RunRecord | None:
    """The page's latest run, if any."""
    kept = history(prefix)
    return kept[-1] if kept else None


def begin(
    prefix: str,
    task: str,
    config: Mapping[str, Any],
    models: Mapping[str, str],
    bound: int,
    *,
    fork: Mapping[str, Any] | None = None,
    parent: list[ev.Event] | None = None,
    step: Mapping[str, Any] | None = None,
) -> RunRecord:
    """Register a new pending run (called from the Run button's callback, before the page draws)."""
    record = RunRecord(
        uuid.uuid4().hex[:12],
        task,
        dict(config),
        dict(models),
        bound,
        fork=dict(fork) if fork else None,
        parent=parent,
        step=dict(step) if step else None,
    )
    kept = history(prefix)
    kept.append(record)
    del kept[:-HISTORY]
    return record


def claim(prefix: str) -> RunRecord | None:
    """The pending run this script run must drive, now marked running; else None."""
    record = current(prefix)
    with _LOCK:
        if record is None or record.status != PENDING:
            return None
        record.status = RUNNING
        record.started = time.time()
    return record


def append(record: RunRecord, event: ev.Event) -> bool:
    """Store one event of a running run; False once the run has ended (stop it iterating).

    Consecutive tokens of one call are merged into one token event, so a stored run holds at most
    one token event per LLM call and redraws fast.
    """
    with _LOCK:
        if record.status != RUNNING:
            return False
        last = record.events[-1] if record.events else None
        if (
            isinstance(event, ev.Token)
            and isinstance(last, ev.Token)
            and last.role == event.role
            and last.step == event.step
        ):
            record.events[-1] = replace(last, text=last.text + event.text)
        else:
            record.events.append(event)
    if not isinstance(event, ev.Token):  # live OpenTelemetry export, when an endpoint is set
        telemetry.feed(record.run_id, record.config, event, record.fork)
    return True


def finish(record: RunRecord) -> None:
    """The core's generator ran to its end."""
    with _LOCK:
        if record.status == RUNNING:
            record.status = FINISHED


def stop(prefix: str) -> None:
    """End the page's active run now, keeping what it recorded (the Stop button's callback)."""
    record = current(prefix)
    if record is not None:
        if record.handle is not None:
            record.handle.stop()
        _interrupt(record)


def settle(record: RunRecord) -> None:
    """Mark a run whose driver is gone as stopped; a no-op for runs that ended properly."""
    _interrupt(record)


def settle_stale() -> None:
    """At the start of a script run, end every run still marked running.

    A new script run means the one that drove it was stopped (toolbar Stop, page switch, a click
    while running), so its flag would otherwise lock the page for good. Pending runs are left:
    the Run button has just asked for them.
    """
    for record in _all_records():
        if record.status == RUNNING and record.handle is not None:
            absorb(record)  # a stepped run lives in its handle's thread: only Stop or its idle time ends it
        elif record.status == RUNNING:
            _interrupt(record)


def absorb(record: RunRecord) -> list[ev.Event]:
    """Store the events a stepped run's handle made since they were last taken (its thread goes on
    whatever the pages do); mark the run finished once the handle is done. Returns the new events."""
    fresh = [e for e in record.handle.drain() if append(record, e)]
    if not record.handle.alive and record.handle.events.empty():
        finish(record)
    return fresh


#: the session key under which the Eval page keeps the id of the evaluation it is running
EVAL_JOB = "ev_job"


def any_active() -> bool:
    """True while any page has a run pending or running, or an evaluation is going (the sidebar locks
    then: a change of model mid-way would mix two models in one run or one evaluation)."""
    return st.session_state.get(EVAL_JOB) is not None or any(r.active for r in _all_records())


def _all_records() -> Iterable[RunRecord]:
    for key in list(st.session_state.keys()):
        if isinstance(key, str) and key.endswith("_runs"):
            value = st.session_state[key]
            if isinstance(value, list):
                yield from (r for r in value if isinstance(r, RunRecord))


def _interrupt(record: RunRecord) -> None:
    """Close a pending or running run with a `run_finished(reason="stop")` built from its events."""
    with _LOCK:
        if not record.active:
            return
        record.status = STOPPED
        record.interrupted = True
        if record.events and isinstance(record.events[-1], ev.RunFinished):
            return
        calls = [e for e in record.events if isinstance(e, ev.LlmCall)]
        elapsed = time.time() - record.started if record.started else 0.0
        last_t = max((e.t for e in record.events), default=0.0)
        closing = ev.RunFinished(
            t=round(max(elapsed, last_t), 4),
            reason="stop",
            llm_calls=len(calls),
            total_tokens=sum(c.prompt_tokens + c.completion_tokens for c in calls),
            elapsed_ms=round(max(elapsed, last_t) * 1000, 1),
        )
        record.events.append(closing)
    if len(record.events) > 1:  # a run that never started sends no spans
        telemetry.feed(record.run_id, record.config, closing, record.fork)
