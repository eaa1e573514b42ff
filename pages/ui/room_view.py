"""A seat's view of the trainer's run: read-only, live, drawn by the same renderer as the Playground.

A seat's page follows the room in one script run, the way the trainer's Playground follows its run:
it draws the run so far the quick way (a late joiner sees everything at once; the newest streamed
tokens live), then waits on the room's bell (agent_core.rooms.bell) and draws what each change
brought: new events added to the same RunView, the pause bar, the room's question at the top, the
call "Take it from here" forks at. It never draws the whole run again, so a seat's look costs what
changed, not the run's length: a room of 40 follows its trainer within a fraction of a second on one
server, where timed redraws of the whole run (each 25-50 ms of the one interpreter) fell seconds
behind. A click (a vote, a submission, Take it from here) reruns the page, which catches up the same
way and follows on. Nothing here can steer the trainer's run: the seat holds no handle on it, only
the room's published copy.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from agent_core import events as ev
from agent_core.errors import AgentError
from agent_core.patterns.registry import config_from_dict
from agent_core.rooms import rooms, typed_events

from . import call_views, live, poll, room_fork, room_session, runs, text, turns
from .i18n import t
from .render import Pace, RunView, draw_run, hide_stale
from .slots import nth

#: the run view's key prefix on a seat (the Playground's is pg_view)
KEY = "rv_view"
#: the seat's area, whose leftovers from the page's previous script run stay hidden (render.hide_stale)
AREA = "rv_area"
#: the longest a seat waits before it looks at the room again. A change made on this server wakes it
#: at once (the room's bell); one made by another server sharing the store is seen at the next look.
LOOK_S = 0.5
#: the shortest time between two looks of a seat: a burst of writes (tokens, a pause and its poll) is
#: drawn once, not once per write by every seat
GAP_S = 0.12
#: how often a waiting seat lets a click through (live.take_clicks: a read of its state, nothing drawn)
CLICK_S = 0.1
#: how often a seat paints what changes all the time (the trainer's own view: render.Pace()): streamed
#: text twice a second, the counters, graph and side table once. Forty seats painting at the
#: trainer's pace were most of a room's server time.
PACE = Pace(tokens=0.5, refresh=1.0, moves=False)
#: the least time between two refreshes of the counters, graph and side table in a look that drew a step
#: (in the others: PACE.refresh). Every seat draws a step in the same instant (the room's bell rang), and
#: the refresh is the part that can wait for the next look of streamed text or none: done in the step's
#: look, it was a third of a seat's work in that burst, and the burst is the room's lag.
STEPPED_REFRESH_S = 3.0
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


def seat(member: room_session.Member, lang: str, question: Any) -> None:
    """The room on this seat: its question in `question` (a slot at the top of the page), the trainer's
    run here, with "Take it from here" under it. Followed until the room's run changes (then the page
    draws the new one from its start), a click reruns the page, or the tab closes. Under AppTest, where
    no browser session follows, one look per script run."""
    with st.container(key=AREA):
        hide_stale(AREA, live=True)
        turns.done()  # a seat's catch-up takes its own turn (turns.catch_up), not the page's
        with turns.catch_up(live.take_clicks, CLICK_S):
            follower = Follower(member, lang, question)
            follower.first_look()
        alive = live.session_alive()
        if alive is not None:
            follower.follow(alive)


class Follower:
    """One script run's drawing of the room on a seat, and what it has drawn so far."""

    def __init__(self, member: room_session.Member, lang: str, question: Any) -> None:
        self.code, self.lang = member.code, lang
        self.question = poll.SeatQuestion(member, lang, question)
        self.seen = _read(member.code)
        self.run_id = self.seen.run_id if self.seen is not None else None
        self.view: RunView | None = None
        self.drawn = 0  # events of the run drawn so far
        self.closed = False  # the view drew the run's end
        self.pause: dict[str, Any] | None = None  # the pause the bar shows
        self.point: tuple[Any, bool] | None = None  # the fork point (and busy) the button was drawn for
        self.looked: tuple[int, bool] | None = None  # the events (and busy) the fork point was found for
        self.bars = self.buttons = 0  # pause bars and fork buttons drawn by this script run (their keys)
        self.pause_slot = self.take_slot = None

    def first_look(self) -> None:
        self.question.update(self.run_id)
        seen = self.seen
        if seen is None:
            st.info(t("room.no_run"), icon=":material/hourglass_empty:")
            return
        if seen.config is None:
            st.warning(t("room.unreadable"), icon=":material/warning:")
            return
        run = seen.run
        bound = run.get("bound") if isinstance(run.get("bound"), int) else 0
        task = run.get("task") if isinstance(run.get("task"), str) else ""
        st.caption(t("room.watching", run=text.code_span(seen.run_id, 20)))
        events = seen.events
        self.drawn = len(events)
        if seen.over:
            draw_run(seen.config, events, bound=bound, key=KEY, task=task)
            self.closed = True
        else:
            split = len(events)
            while split and isinstance(events[split - 1], ev.Token):
                split -= 1  # the call being streamed now: its tokens are drawn live, the rest quickly
            self.view = RunView(seen.config, bound=bound, key=KEY, task=task, pace=PACE)
            self.view.catch_up(events[:split])
            self.view.add_all(events[split:])
        self.pause_slot, self.take_slot = st.empty(), st.empty()
        self._pause()
        self._take()

    def follow(self, alive: Callable[[], bool]) -> None:
        """Look at the room whenever it changes (at least every LOOK_S), drawing what changed, for as
        long as the tab is open and no click asks for a new script run."""
        bell = rooms().bell
        looked = 0.0
        while alive():
            self._wait(looked + GAP_S)
            looked = time.monotonic()
            mark = bell.mark(self.code)  # before reading: a write after the read wakes the wait below
            self.look()
            self._wait(looked + LOOK_S, mark)

    def _wait(self, until: float, mark: int | None = None) -> None:
        """Sleep until `until` (monotonic), or until the room's bell moves past `mark` if one is given,
        taking a click every CLICK_S: a quiet seat costs the server a lock and a dict read a tick."""
        bell = rooms().bell
        while (left := until - time.monotonic()) > 0:
            live.take_clicks()
            if mark is None:
                time.sleep(min(CLICK_S, left))
            elif bell.wait(self.code, mark, min(CLICK_S, left)):
                return

    def look(self) -> None:
        """Draw what changed in the room since the last look. A run other than the one drawn (a new run,
        or none: the room closed) reruns the page."""
        try:
            run = rooms().run(self.code)
        except Exception:
            return  # the store away for a moment: look again later
        run_id = run.get("run_id") if run else None
        self.question.update(run_id)
        if run_id != self.run_id:
            st.rerun()
        seen = self.seen
        if seen is None or seen.config is None:
            return
        _fresh(self.code, seen, run)
        stepped = False  # this look drew a step (not only streamed text)
        if self.view is not None:
            fresh = seen.events[self.drawn :]
            self.drawn = len(seen.events)
            if fresh:
                self.view.add_all(fresh, settle=False)
                stepped = any(not isinstance(e, ev.Token) for e in fresh)
            if seen.over and not self.closed:
                self.view.close()
                self.closed = True
        self._pause()
        if self.view is not None and not self.closed:
            self.view.tick(STEPPED_REFRESH_S if stepped else None)
        self._take()

    def _pause(self) -> None:
        seen = self.seen
        pause = None if seen is None or seen.over else _pause(self.code)
        if pause == self.pause or self.pause_slot is None:
            return
        self.pause = pause
        if pause is None:
            self.pause_slot.empty()
            return
        if self.view is not None and pause.get("at") == "call":
            # the node about to run lights with the counters at the next quiet look (within a second)
            self.view.point_at(ev.LlmCall(role=str(pause.get("role", ""))), draw=False)
        self.bars += 1
        with self.pause_slot.container():
            pause_bar(pause, self.lang, key=nth("rv_pause", self.bars))

    def _take(self) -> None:
        seen = self.seen
        if seen is None or seen.config is None or self.take_slot is None:
            return
        looked = (len(seen.events), runs.any_active())
        if looked == self.looked:
            return  # the fork point follows from the events, which only grow: none came
        self.looked = looked
        point = (room_fork.fork_point(seen.events), looked[1])
        if point == self.point:
            return
        self.point = point
        self.buttons += 1
        with self.take_slot.container():
            room_fork.take_button(
                {**seen.run, "config": seen.config},
                seen.events,
                self.lang,
                point=point[0],
                busy=point[1],
                key=nth("room_take", self.buttons),
            )


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
    _fresh(code, seen, run)
    return seen


def _fresh(code: str, seen: Seen, run: dict[str, Any]) -> None:
    """Add to `seen` the events published since its cursor, and whether `run` (the room's, the same) ended."""
    try:
        fresh = rooms().events(code, seen.run_id, start=seen.cursor)
    except Exception:
        fresh = []
    seen.cursor += len(fresh)
    seen.events += typed_events(fresh)  # an entry this seat cannot read is skipped: the rest still draws
    seen.ended = bool(run.get("ended"))


def _config(data: Any) -> dict[str, Any] | None:
    """The run's config, checked the way a loaded trace's is: a seat draws only what it can read."""
    try:
        return config_from_dict(data).to_dict() if isinstance(data, dict) else None
    except (AgentError, TypeError, ValueError, KeyError):
        return None


def _pause(code: str) -> dict[str, Any] | None:
    try:
        pause = rooms().pause(code)
    except Exception:
        return None
    return pause if isinstance(pause, dict) else None


def pause_bar(pause: dict[str, Any], lang: str, *, key: str = "rv_pause") -> None:
    """Where the trainer's run waits, and the prompt it is about to send (read-only)."""
    at, role = pause.get("at"), str(pause.get("role", ""))
    with st.container(border=True, key=key):
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
