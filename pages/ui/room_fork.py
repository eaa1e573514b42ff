""" "Take it from here": a participant forks the trainer's run, at the call it is at, into their own
Playground.

The fork is the one Replay's and the Playground's "Fork from here" make (fork_view.py): this module
only builds its target from what the seat has — the room's run (its config, task, run id) and the
events streamed to this seat so far — puts the trainer's configuration into the Playground's widgets
(handoff.py) and switches there, where the fork editor opens above the run. The recorded prefix is
served from the seat's own events (agent_core.fork), so calls 1 … k−1 are the trainer's to the byte;
from call k on the participant edits the reply, the prompts and the limits, and runs on their own
model.

The call it is at: the call a paused run waits before, or the one it is streaming (every recorded
call is served and that call goes live, or gets the participant's reply); once the run has ended, or
when nothing says which call comes next, the latest call made (its recorded reply pre-filled, as a
fork of a finished run has it). Before the first call there is nothing to serve: the trainer's
configuration opens in the Playground as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from agent_core import events as ev
from agent_core.fork import ForkError, fork_inputs

from . import fork_view, handoff
from .i18n import t


@dataclass(frozen=True)
class Point:
    """Where a seat's fork of the trainer's run starts: call `at`, made by `role`; `pending` when
    that call has no record yet (the run waits before it or is streaming it)."""

    at: int
    role: str
    pending: bool


def fork_point(events: Sequence[ev.Event]) -> Point | None:
    """The call the trainer's run is at, per the events this seat has; None before its first call
    (or when the events carry no call records to serve a prefix from)."""
    calls = [e for e in events if isinstance(e, ev.LlmCall)]
    if not calls:
        return None
    ended = any(isinstance(e, ev.RunFinished) for e in events)
    after = events[max(i for i, e in enumerate(events) if isinstance(e, ev.LlmCall)) + 1 :]
    role = ""
    if not ended:
        # the next call's role: its pause (before it), or its streamed tokens (while it runs)
        for e in after:
            if isinstance(e, ev.Paused) and e.at == "call" and e.call == len(calls) + 1:
                role = e.role
            elif isinstance(e, ev.Token):
                role = e.role
    point = Point(len(calls) + 1, role, True) if role else Point(len(calls), calls[-1].role, False)
    try:
        fork_inputs(list(events), point.at)
    except ForkError:
        return None
    return point


def take_button(
    run: Mapping[str, Any],
    events: Sequence[ev.Event],
    lang: str,
    *,
    point: Point | None,
    busy: bool,
    key: str = "room_take",
) -> None:
    """Under the trainer's run on a seat: the button that forks it, at the call it is at (`point`, from
    `fork_point(events)`), into this participant's Playground; `busy`: a run of this session's is
    active. `run`: the room's run ({"run_id", "task", "config", ...}), its config as a seat has checked
    it (room_view); `events`: its typed events as this seat has them."""
    handoff.go_if_requested()  # the click's rerun: on to the Playground, where the fork editor waits
    if point is None:
        hint = t("room_seat.take_start_help", lang)
    else:
        hint = t("room_seat.take_help_pending" if point.pending else "room_seat.take_help", lang, k=point.at)
    st.button(
        t("room_seat.take", lang),
        key=key,
        icon=":material/call_split:",
        type="primary",
        on_click=_take,
        args=(dict(run), list(events), point),
        disabled=busy,
        help=t("room_seat.take_busy", lang) if busy else hint,
    )


def fork_target(run: Mapping[str, Any], events: Sequence[ev.Event], point: Point) -> dict[str, Any]:
    """The fork editor's target (fork_view.TARGET) for a seat's fork of the room's run at `point`:
    the Playground's fork, served from `events`."""
    target: dict[str, Any] = {
        "events": list(events),
        "run_id": str(run.get("run_id") or ""),
        "config": dict(run.get("config") or {}),
        "task": str(run.get("task") or ""),
        "at": point.at,
        "role": point.role,
        "home": fork_view.PLAYGROUND,
    }
    if point.pending:
        target["live"] = True  # no reply recorded for it: the participant's model answers, unless they write one
    return target


def _take(run: dict[str, Any], events: list[ev.Event], point: Point | None) -> None:
    """The button's callback: the trainer's setup into the Playground, and the fork editor opened on it."""
    handoff.load_into_playground(run.get("config") or {}, str(run.get("task") or ""))
    if point is not None:  # else no call made yet: the same setup, run from the start
        st.session_state[fork_view.TARGET] = fork_target(run, events, point)
