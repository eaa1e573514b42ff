"""The room's prediction poll. While the trainer's run waits before a verdict, the trainer asks the room
"What will the critic say?"; every participant sees the question at the top of their Room page (with a
toast as it arrives), votes once (the last choice counts), sees the tally after voting, and sees the
real verdict when it comes: "The critic said REVISE · 3 of 5 predicted it".

A poll belongs to one room, one run and one call of it (agent_core.rooms: open_poll): there is no poll
outside a room, and only the room's trainer can open one. It closes when the run goes on (step,
continue, edit, answer), is answered by the verdict it asked about, and closes unanswered when the run
ends (pages.ui.room_cast does all three from the run's thread). A poll of a run that is no longer the
room's current one is never shown open, nor its answer kept on screen.
"""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from agent_core.rooms import PollState, RoomError, rooms

from . import i18n, room_cast, room_session, text
from .slots import nth

#: seconds between the trainer's looks at its tally (one fragment on one page: it can look often)
TALLY_S = 0.25
#: the least between two redraws of a seat's tally (it moves with every vote, on forty seats)
SEAT_TALLY_S = 1.0
#: the trainer's last refusal by the room (e.g. its polls are all used), said in the pause bar
K_REFUSED = "poll_refused"
#: the poll this seat has been told of with a toast, and why the room refused this seat's last vote
K_TOASTED, K_VOTE_REFUSED = "poll_toasted", "poll_vote_refused"


def _words(lang: str) -> dict[str, str]:
    return i18n.words("poll", lang)


def _role(role: str, lang: str) -> str:
    """A role's name in `lang` (a role the catalogue lacks, as it came, made safe for Markdown)."""
    return i18n.role_labels(lang).get(role) or text.inline(role, 30)


def _latest(code: str) -> PollState | None:
    try:
        return rooms().poll(code)
    except Exception:
        return None


# --- the trainer's side ---------------------------------------------------------------------------


def ask_room(prefix: str, record: Any, pending: Any, lang: str) -> None:
    """The trainer's "Ask the room", inside the pause bar, then the tally as the votes come in. Drawn
    only when this session is a room's trainer and the paused run is the one the room is watching."""
    member = room_session.trainer()
    if member is None or not room_cast.is_cast(record.run_id, member):
        return
    state = _latest(member.code)
    if state is not None and state.run_id == record.run_id and state.call == pending.call:
        st.session_state.pop(K_REFUSED, None)
        st.fragment(run_every=TALLY_S)(_tally)(member.code, state.id, lang)
        return
    w = _words(lang)
    choices = tuple(pending.grammar.verdicts) if pending.grammar is not None else ()
    st.button(
        w["ask"].format(role=_role(pending.role, lang)),
        key=f"{prefix}_poll_open",
        icon=":material/how_to_vote:",
        on_click=_open,
        args=(record.run_id, pending.call, pending.role, choices),
    )
    refused = st.session_state.get(K_REFUSED)
    if refused is not None:
        st.warning(refused(lang), icon=":material/hourglass_top:")


def _open(run_id: str, call: int, role: str, choices: tuple[str, ...]) -> None:
    member = room_session.trainer()
    if member is None or member.secret is None:
        return
    try:
        rooms().open_poll(member.code, member.secret, run_id, call, role, choices)
    except RoomError as exc:
        st.session_state[K_REFUSED] = exc.message
    else:
        st.session_state.pop(K_REFUSED, None)


def _tally(code: str, poll_id: str, lang: str) -> None:
    state = _latest(code)
    if state is None or state.id != poll_id:
        return
    w = _words(lang)
    if state.answer is not None:
        st.caption(_answer_line(state, w, lang))
    else:
        st.caption(w["open" if state.is_open else "closed"].format(n=state.voters))
    row = st.container(horizontal=True, gap="small")
    for choice in state.choices:
        row.metric(text.flat(choice, 20), state.tally.get(choice, 0))


def _answer_line(state: PollState, w: dict[str, str], lang: str) -> str:
    right = state.tally.get(state.answer or "", 0)
    return w["answer"].format(
        role=_role(state.role, lang), answer=text.inline(state.answer or "", 20), right=right, n=state.voters
    )


# --- a seat's side ----------------------------------------------------------------------------------


class SeatQuestion:
    """The room's question at the top of a seat's page, in `slot`: a toast when it arrives, the choices,
    the tally once this seat has voted, and the real verdict once it came. The seat's script run follows
    the room (room_view.Follower) and calls `update` at each look: the slot is drawn again only when what
    it shows changed, and a tally that moves with every vote at most every SEAT_TALLY_S."""

    def __init__(self, member: room_session.Member, lang: str, slot: Any) -> None:
        self.code, self.me, self.lang, self.slot = member.code, member.me, lang, slot
        self.shown: tuple[Any, ...] | None = None  # what the slot shows
        self.drawn_at = 0.0
        self.boxes = 0  # boxes this script run drew (their keys: unique in a script run)
        self.choices: set[str] = set()  # the choice widgets' keys this script run drew

    def update(self, run_id: str | None) -> None:
        """Draw the question again if what it shows changed; `run_id` is the room's current run."""
        state = _latest(self.code)
        if state is None or state.run_id != run_id:
            state = None  # no poll, or one of a run the room no longer shows
        elif state.answer is None and not state.is_open:
            state = None  # closed unanswered (the run went on or ended, or the trainer is away)
        voted = None
        if state is not None:
            try:
                voted = rooms().voted(self.code, self.me, state.id)
            except Exception:
                voted = None
        refused = st.session_state.get(K_VOTE_REFUSED)
        look = (
            None
            if state is None
            else (state.id, state.is_open, state.answer, voted, refused is not None, state.choices)
        )
        tally = dict(state.tally) if state is not None and voted is not None else None
        now = time.monotonic()
        if self.shown is not None and look == self.shown[0]:
            if tally == self.shown[1] or now - self.drawn_at < SEAT_TALLY_S:
                return  # the same question, and its tally as drawn (or drawn a moment ago)
        self.shown, self.drawn_at = (look, tally), now
        if state is None:
            self.slot.empty()
            return
        if state.is_open and st.session_state.get(K_TOASTED) != state.id:  # once per poll, a toast says so
            st.session_state[K_TOASTED] = state.id
            # it names the call: the browser shows no new toast while one of the same text is still on
            # screen, so a second question asked within 10 s of the first would arrive unannounced
            st.toast(
                _words(self.lang)["toast"].format(role=_role(state.role, self.lang), call=state.call),
                icon=":material/how_to_vote:",
                duration="long",
            )
        key = f"poll_choice_{state.id}"
        if state.answer is None and voted is None and key in self.choices:
            st.rerun()  # the same choices again in this script run (the trainer came back): a widget is drawn once a run
        self.boxes += 1
        with self.slot.container(border=True, key=nth("poll_seat", self.boxes)):
            self._draw(state, voted, refused)

    def _draw(self, state: PollState, voted: str | None, refused: Any) -> None:
        w, lang = _words(self.lang), self.lang
        role = _role(state.role, lang)
        if state.answer is not None:
            st.markdown(f"### :material/how_to_vote: {_answer_line(state, w, lang)}")
            if voted is not None:
                st.caption(w["you_said"].format(choice=text.inline(voted, 20)))
            return
        st.markdown(f"### :material/how_to_vote: {w['question'].format(role=role)}")
        if voted is None:
            key = f"poll_choice_{state.id}"
            self.choices.add(key)
            st.segmented_control(
                w["question"].format(role=role),
                state.choices,
                key=key,
                label_visibility="collapsed",
                on_change=vote,
                args=(self.code, self.me, state.id, key),
            )
            if refused is not None:
                st.warning(refused(lang), icon=":material/block:")
            return
        st.markdown(w["voted"].format(choice=text.inline(voted, 20), role=role))
        row = st.container(horizontal=True, gap="small")
        for choice in state.choices:
            row.metric(text.flat(choice, 20), state.tally.get(choice, 0))


def vote(code: str, me: str, poll_id: str, key: str) -> None:
    """A seat's vote (the choice's callback): the room counts it once, the last choice."""
    choice = st.session_state.get(key)
    if not isinstance(choice, str):
        return
    try:
        rooms().vote(code, me, poll_id, choice)
    except RoomError as exc:
        st.session_state[K_VOTE_REFUSED] = exc.message
        return
    st.session_state.pop(K_VOTE_REFUSED, None)
