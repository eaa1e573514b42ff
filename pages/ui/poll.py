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

from typing import Any

import streamlit as st

from agent_core.rooms import PollState, RoomError, rooms

from . import i18n, room_cast, room_session, text

#: seconds between a seat's looks at the room's poll (longer in a full room: room_view.pace), and
#: between the trainer's looks at its tally (one fragment on one page: it can look often)
LOOK_S, TALLY_S = 1.0, 0.5
#: the trainer's last refusal by the room (e.g. its polls are all used), said in the pause bar
K_REFUSED = "poll_refused"
#: the poll this seat has been told of with a toast, and why the room refused this seat's last vote
K_TOASTED, K_VOTE_REFUSED = "poll_toasted", "poll_vote_refused"
#: a new question's (role, call), for the toast the next whole-page run shows
K_ARRIVED = "poll_arrived"


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


def _current_run(code: str) -> str | None:
    try:
        run = rooms().run(code)
    except Exception:
        return None
    return run.get("run_id") if isinstance(run, dict) else None


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


def seat_box(member: room_session.Member, lang: str) -> None:
    """The room's question at the top of a seat's page: a toast when it arrives, the choices, the tally
    once this seat has voted, and the real verdict once it came."""
    arrived = st.session_state.pop(K_ARRIVED, None)
    if arrived is not None:  # said by the whole page's run: a toast from a fragment's rerun is not shown
        # it names the call: the browser shows no new toast while one of the same text is still on
        # screen, so a second question asked within 10 s of the first would arrive unannounced
        role, call = arrived
        st.toast(
            _words(lang)["toast"].format(role=_role(role, lang), call=call),
            icon=":material/how_to_vote:",
            duration="long",
        )
    from . import room_view  # a full room looks less often (room_view.pace)

    st.fragment(run_every=room_view.pace(member.code, LOOK_S))(_seat)(member.code, member.me, lang)


def _seat(code: str, me: str, lang: str) -> None:
    state = _latest(code)
    if state is None or state.run_id != _current_run(code):
        return  # no poll, or one of a run the room no longer shows
    w = _words(lang)
    role = _role(state.role, lang)
    if state.answer is None and not state.is_open:
        return  # closed unanswered (the run went on or ended, or the trainer is away)
    try:
        voted = rooms().voted(code, me, state.id)
    except Exception:
        voted = None
    with st.container(border=True, key="poll_seat"):
        if state.answer is not None:
            st.markdown(f"### :material/how_to_vote: {_answer_line(state, w, lang)}")
            if voted is not None:
                st.caption(w["you_said"].format(choice=text.inline(voted, 20)))
            return
        if st.session_state.get(K_TOASTED) != state.id:  # a new question: once per poll, a toast says so
            st.session_state[K_TOASTED], st.session_state[K_ARRIVED] = state.id, (state.role, state.call)
            st.rerun()
        st.markdown(f"### :material/how_to_vote: {w['question'].format(role=role)}")
        if voted is None:
            key = f"poll_choice_{state.id}"
            st.segmented_control(
                w["question"].format(role=role),
                state.choices,
                key=key,
                label_visibility="collapsed",
                on_change=vote,
                args=(code, me, state.id, key),
            )
            refused = st.session_state.get(K_VOTE_REFUSED)
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
