"""The trainer's run on every seat: while a session is a room's trainer, every run it starts (or forks
from a replay) is published to the room as it happens — the run, each event, every pause with its
pending prompt, the run's end — and the room's poll on that run follows it (closed when the run goes
on, revealed by the verdict it asked about).

Published from the run's own thread (`RunHandle.on_event` sees every event of every kind of run, on
whatever page the trainer is, and the end of every kind: finished, failed, stopped, left idle, its tab
gone), through a queue to a publisher thread of its own: a slow or failing store never slows or breaks
the trainer's run. Consecutive streamed tokens of one call are sent merged, at most every TOKEN_S, so
a long reply costs the room a few events, not one per token. A store error is noted once (`problem`,
shown in the trainer's sidebar) and publishing goes on; a room that is gone ends it.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import streamlit as st

from agent_core import events as ev
from agent_core.rooms import RoomError, Rooms, rooms
from agent_core.text import Text

from . import room_session
from .i18n import t

#: streamed tokens are sent merged, at most this often (seconds)
TOKEN_S = 0.25
#: how long the publisher waits for a pause's pending request (set just after the paused event)
PENDING_WAIT_S = 1.0
#: what a seat is shown of a pending prompt: its last messages, each cut to this many characters
PAUSE_MESSAGES, MESSAGE_CHARS = 40, 20_000
_END = object()


class Cast:
    """One run of the trainer's, published to one room. `in_run` is called in the run's thread with
    every event; everything else happens in the cast's own publisher thread."""

    def __init__(self, room: Rooms, code: str, secret: str, record: Any) -> None:
        self.room, self.code, self._secret, self.record = room, code, secret, record
        self.run_id: str = record.run_id
        #: the first store error, said once to the trainer
        self.problem: Text | None = None
        #: False once the room is gone or refused the run: nothing more is sent
        self.on = True
        self._queue: queue.Queue[Any] = queue.Queue()
        self._calls = 0  # model calls seen so far: a verdict answers the poll on the call before it
        self._last = 0.0
        self._thread = threading.Thread(target=self._work, name="room-cast", daemon=True)

    # --- the script's side ------------------------------------------------------------------------
    def start(self) -> Cast:
        """Make this run the room's current one (the seats start drawing it), then start publishing."""
        record = self.record
        run: dict[str, Any] = {
            "run_id": record.run_id,
            "task": record.task,
            "config": dict(record.config),
            "models": dict(record.models),
            "bound": record.bound,
        }
        if record.fork:
            run["fork"] = {k: record.fork[k] for k in ("run_id", "at", "edited") if k in record.fork}
        self._call("start_run", run)
        self._thread.start()
        return self

    # --- the run's thread -------------------------------------------------------------------------
    def in_run(self, event: ev.Event) -> None:
        """Hand one event to the publisher (never blocks the run)."""
        if self.on:
            self._queue.put(event)
            if isinstance(event, ev.RunFinished):
                self._queue.put(_END)

    # --- the publisher's thread -------------------------------------------------------------------
    def _work(self) -> None:
        while self.on:
            batch = [self._queue.get()]
            deadline = self._last + TOKEN_S
            while True:  # tokens wait a little for the next ones; anything else goes at once
                batch += _drain(self._queue)
                if any(not isinstance(e, ev.Token) for e in batch) or time.monotonic() >= deadline:
                    break
                time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
            if not self._send(batch):
                return

    def _send(self, batch: list[Any]) -> bool:
        """Publish a batch in order; the pause, the poll and the end where they fall. False: done."""
        out: list[dict[str, Any]] = []
        merged: ev.Token | None = None

        def flush() -> None:
            nonlocal merged
            if merged is not None:
                out.append(merged.to_dict())
                merged = None
            if out:
                self._call("publish", self.run_id, list(out))
                out.clear()
                self._last = time.monotonic()

        for item in batch:
            if item is _END:
                flush()
                self._call("set_pause", self.run_id, None)
                self._call("end_run", self.run_id)
                self.on = False
                return False
            if isinstance(item, ev.Token):
                if merged is not None and merged.role == item.role and merged.step == item.step:
                    merged = replace(merged, text=merged.text + item.text)
                else:
                    if merged is not None:
                        out.append(merged.to_dict())
                    merged = item
                continue
            if merged is not None:
                out.append(merged.to_dict())
                merged = None
            out.append(item.to_dict())
            if isinstance(item, ev.LlmCall):
                self._calls += 1
            elif isinstance(item, ev.Paused):
                flush()
                self._call("set_pause", self.run_id, self._pause(item))
            elif isinstance(item, ev.Resumed):
                flush()
                self._call("set_pause", self.run_id, None)
                self._close_poll()
            elif isinstance(item, ev.VerdictEvent):
                flush()
                self._reveal(item)
        flush()
        return self.on

    def _pause(self, paused: ev.Paused) -> dict[str, Any]:
        """The pause as the seats see it: where, whose, and the messages about to be sent (the pending
        request is set just after the paused event is made, so it is waited for, briefly)."""
        pending = None
        until = time.monotonic() + PENDING_WAIT_S
        while time.monotonic() < until:
            handle = self.record.handle
            pending = handle.pending if handle is not None else None
            if pending is not None and pending.at == paused.at and pending.call == paused.call:
                break
            pending = None
            if handle is not None and not handle.alive:
                break
            time.sleep(0.01)
        messages = pending.messages[-PAUSE_MESSAGES:] if pending is not None else ()
        return {
            "at": paused.at,
            "role": paused.role,
            "call": paused.call,
            "messages": [{"role": m.role, "content": str(m.content or "")[:MESSAGE_CHARS]} for m in messages],
        }

    def _close_poll(self) -> None:
        """The run goes on (step, continue, edit, answer): voting on its question ends."""
        state = self._call("poll", secret=False)
        if state is not None and state.run_id == self.run_id and not state.closed and state.answer is None:
            self._call("close_poll", state.id)

    def _reveal(self, verdict: ev.VerdictEvent) -> None:
        """The verdict the poll asked about answers it, for the whole room to see."""
        state = self._call("poll", secret=False)
        if (
            state is not None
            and state.run_id == self.run_id
            and state.answer is None
            and state.role == verdict.role
            and state.call <= self._calls
        ):
            self._call("reveal", state.id, verdict.verdict)

    def _call(self, name: str, *args: Any, secret: bool = True) -> Any:
        """One call of the room's (`name`, with the code, and the secret for the trainer's calls), its
        error noted once; a room gone or no longer this trainer's ends the cast."""
        if not self.on:
            return None
        head = (self.code, self._secret) if secret else (self.code,)
        try:
            return getattr(self.room, name)(*head, *args)
        except RoomError as exc:
            if self.problem is None:
                self.problem = exc.message
            if exc.why in ("no_room", "not_trainer"):
                self.on = False
        except Exception as exc:  # the shared store away: said once, the run goes on untouched
            if self.problem is None:
                self.problem = Text(
                    t("room.cast_failed", "en", error=type(exc).__name__),
                    t("room.cast_failed", "zh", error=type(exc).__name__),
                )
        return None


def _drain(q: queue.Queue[Any]) -> list[Any]:
    out = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out


def for_run(record: Any) -> Cast | None:
    """Start publishing `record` to this session's room when the session is its trainer (call in the
    script run that starts the run, before its thread starts); None outside a room."""
    member = room_session.trainer()
    if member is None or member.secret is None:
        return None
    cast = Cast(rooms(), member.code, member.secret, record).start()
    st.session_state[room_session.K_CAST] = cast  # its problem, if any, is said in the sidebar's badge
    return cast


def is_cast(run_id: str, member: room_session.Member) -> bool:
    """Whether `run_id` is the run this trainer's room shows now."""
    try:
        run: Mapping[str, Any] | None = rooms().run(member.code)
    except Exception:
        return False
    return run is not None and run.get("run_id") == run_id
