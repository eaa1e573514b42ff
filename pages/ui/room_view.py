"""A seat's view of the trainer's run: read-only, live, drawn by the same renderer as the Playground.

A fragment looks at the room every LIVE_S while a run is under way (every IDLE_S otherwise), reads the
events published since its cursor, and redraws the run the way a Playground rerun in the middle of a
run does: what came before the newest streamed tokens quickly, those tokens live. A seat that joins
late reads from the start, so it sees everything so far at once. At a pause, the graph lights the node
about to run and a bar says where the run waits, with the pending prompt in an expander. Nothing here
can steer the trainer's run: the seat holds no handle on it, only the room's published copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from agent_core import events as ev
from agent_core.errors import AgentError
from agent_core.patterns.registry import config_from_dict
from agent_core.rooms import rooms, typed_events

from . import call_views, room_session, text
from .i18n import t
from .render import RunView, draw_run

#: the run view's key prefix on a seat (the Playground's is pg_view)
KEY = "rv_view"
#: seconds between looks while the trainer's run is under way, and while it is not
LIVE_S, IDLE_S = 0.75, 2.5
#: the seats' redraws one server takes per second, all seats of a room together: a seat redraws the
#: whole run at each look (a fragment cannot add to what it drew), and one interpreter serves every
#: seat, so a full room looks less often rather than starving the trainer's run (tests/bench/
#: bench_classroom.py: at 40 seats looking every 0.75 s the server took no vote in 30 s)
REDRAWS_PER_S = 12.0
#: this session's copy of the room's current run
K_SEEN = "room_seen"


@dataclass
class Seen:
    """What this seat has read of the room's current run: its published head and its typed events."""

    run_id: str
    run: dict[str, Any]
    events: list[ev.Event] = field(default_factory=list)
    #: published events read so far (entries that did not parse are skipped, but counted here)
    cursor: int = 0
    #: the run's config as the renderer takes it; None when it could not be read
    config: dict[str, Any] | None = None

    #: the trainer's side said the run ended (every kind of end)
    ended: bool = False

    @property
    def over(self) -> bool:
        return self.ended or (bool(self.events) and isinstance(self.events[-1], ev.RunFinished))


def pace(code: str, every: float) -> float:
    """Seconds between a seat's looks at room `code`: `every`, or longer in a full room, so that all its
    seats together redraw at most REDRAWS_PER_S times a second."""
    try:
        info = rooms().info(code)
    except Exception:
        info = None
    return max(every, (info.participants if info is not None else 0) / REDRAWS_PER_S)


def seat(member: room_session.Member, lang: str) -> None:
    """The trainer's run on this seat, looked at again and again (a fragment, at the pace of the run and
    the room's size), with "Take it from here" under it, redrawn with it so it names the current call."""
    seen = _read(member.code)
    live = seen is not None and not seen.over
    st.fragment(run_every=pace(member.code, LIVE_S if live else IDLE_S))(_seat)(member.code, live, lang)


def _seat(code: str, live: bool, lang: str) -> None:
    seen = _read(code)
    if (seen is not None and not seen.over) != live:
        st.rerun()  # the run began or ended: look again at the pace that fits
    if seen is None:
        st.info(t("room.no_run"), icon=":material/hourglass_empty:")
        return
    draw(seen, _pause(code, seen), lang)
    if seen.config is not None:
        from . import room_fork

        room_fork.take_button(seen.run, seen.events, lang)


def _read(code: str) -> Seen | None:
    """The room's current run, with the events published since this seat last looked."""
    state = st.session_state
    try:
        run = rooms().run(code)
    except Exception:
        return state.get(K_SEEN)  # the store away for a moment: what this seat had
    if not run or not isinstance(run.get("run_id"), str):
        state.pop(K_SEEN, None)
        return None
    seen = state.get(K_SEEN)
    if not isinstance(seen, Seen) or seen.run_id != run["run_id"]:
        seen = state[K_SEEN] = Seen(run["run_id"], dict(run), config=_config(run.get("config")))
    try:
        fresh = rooms().events(code, seen.run_id, start=seen.cursor)
    except Exception:
        fresh = []
    seen.cursor += len(fresh)
    seen.events += typed_events(fresh)  # an entry this seat cannot read is skipped: the rest still draws
    seen.ended = bool(run.get("ended"))
    return seen


def _config(data: Any) -> dict[str, Any] | None:
    """The run's config, checked the way a loaded trace's is: a seat draws only what it can read."""
    try:
        return config_from_dict(data).to_dict() if isinstance(data, dict) else None
    except (AgentError, TypeError, ValueError, KeyError):
        return None


def _pause(code: str, seen: Seen) -> dict[str, Any] | None:
    if seen.over:
        return None
    try:
        pause = rooms().pause(code)
    except Exception:
        return None
    return pause if isinstance(pause, dict) else None


def draw(seen: Seen, pause: dict[str, Any] | None, lang: str) -> None:
    """The run as the trainer's Playground draws it: redrawn once over; else caught up, then live."""
    run = seen.run
    if seen.config is None:
        st.warning(t("room.unreadable"), icon=":material/warning:")
        return
    bound = run.get("bound") if isinstance(run.get("bound"), int) else 0
    task = run.get("task") if isinstance(run.get("task"), str) else ""
    st.caption(t("room.watching", run=text.code_span(seen.run_id, 20)))
    if seen.over:
        draw_run(seen.config, seen.events, bound=bound, key=KEY, task=task)
        return
    events = seen.events
    split = len(events)
    while split and isinstance(events[split - 1], ev.Token):
        split -= 1  # the call being streamed now: its tokens are drawn live, the rest quickly
    view = RunView(seen.config, bound=bound, key=KEY, task=task)
    view.catch_up(events[:split])
    view.add_all(events[split:])
    if pause is not None:
        if pause.get("at") == "call":
            view.point_at(ev.LlmCall(role=str(pause.get("role", ""))))
        view.flush()
        pause_bar(pause, lang)


def pause_bar(pause: dict[str, Any], lang: str) -> None:
    """Where the trainer's run waits, and the prompt it is about to send (read-only)."""
    at, role = pause.get("at"), str(pause.get("role", ""))
    with st.container(border=True, key="rv_pause"):
        if at == "tool":
            head = t("room.paused_tool", tool=text.inline(role, 40))
        elif at == "verdict":
            head = t("room.paused_verdict", role=text.inline(call_views.role_name(role, lang), 40))
        else:
            call = pause.get("call") if isinstance(pause.get("call"), int) else 0
            head = t("room.paused_call", role=text.inline(call_views.role_name(role, lang), 40), call=call)
        st.markdown(f"#### :material/pause_circle: {head}")
        messages = [
            {"id": i, "role": str(m.get("role", "")), "content": str(m.get("content", ""))}
            for i, m in enumerate(pause.get("messages") or ())
            if isinstance(m, dict)
        ]
        if messages:
            with st.expander(t("room.pending_prompt", n=len(messages)), icon=":material/input:"):
                call_views.draw_prompt(messages, ev.LlmCall(role=role, new_messages=tuple(messages)), lang)
