"""This session's place in a workshop room: which room, as its trainer or as a participant.

The trainer's role is a secret that `Rooms.open` hands to the session that opened the room: it is kept
in this session's state only (never in the URL, never drawn), so another seat cannot take the role by
guessing the code or by reloading. A participant is an opaque id this session makes up when it joins.
`?room=CODE` in the URL joins that room on any page; typing the code on the Room page does the same.

Everything about the room itself is the core's (agent_core.rooms); this module keeps the membership,
draws the entry (open / join), the compact badge in the sidebar, and says the core's refusals in the
page's language.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import streamlit as st

from agent_core.rooms import RoomError, RoomInfo, rooms
from agent_core.text import Text

from . import text
from .i18n import t

#: the URL parameter a join link carries
PARAM = "room"
ROOM_PAGE = "pages/room.py"
K_CODE, K_ROLE, K_SECRET, K_ME = "room_code", "room_role", "room_secret", "room_me"
#: the last refusal or notice to show on the Room page: ("error" | "info", Text)
K_NOTE = "room_note"
#: the join link's code this session has acted on (leaving a room does not join it again from the URL)
K_LINK = "room_link"
#: the code box on the Room page
K_TYPED = "room_typed"
TRAINER, PARTICIPANT = "trainer", "participant"
#: a typed code longer than this is not read at all (a code is six characters)
TYPED_CHARS = 40
#: how often the trainer's badge says "still here" (the room counts a trainer present for presence_s)
HEARTBEAT_S = 5.0
#: the session key of this trainer's latest published run (pages.ui.room_cast.Cast)
K_CAST = "room_cast"


@dataclass(frozen=True)
class Member:
    """This session in one room. `secret` is the trainer's alone (None for a participant); it is never
    printed (repr=False), so a stray st.write of a Member cannot show it."""

    code: str
    role: str
    me: str
    secret: str | None = field(default=None, repr=False)

    @property
    def trainer(self) -> bool:
        return self.role == TRAINER


def _me() -> str:
    """This session's participant id: made once, kept in its state (no account, no cookie)."""
    return st.session_state.setdefault(K_ME, uuid.uuid4().hex)


def _note(kind: str, message: Text) -> None:
    st.session_state[K_NOTE] = (kind, message)


def _said(key: str, **values: object) -> Text:
    """A notice of this module's own, in both languages (the core's refusals come as Text already)."""
    return Text(t(key, "en", **values), t(key, "zh", **values))


def _forget() -> None:
    for key in (K_CODE, K_ROLE, K_SECRET):
        st.session_state.pop(key, None)


def current() -> Member | None:
    """This session's membership, checked against the room: a room that expired or was closed is let
    go (and the Room page says so); a trainer whose secret no longer opens the room is no trainer."""
    state = st.session_state
    code, role = state.get(K_CODE), state.get(K_ROLE)
    if not isinstance(code, str) or role not in (TRAINER, PARTICIPANT):
        return None
    secret = state.get(K_SECRET) if role == TRAINER else None
    try:
        alive = rooms().info(code) is not None and (role != TRAINER or rooms().is_trainer(code, str(secret)))
    except Exception:  # the shared store unreachable: nothing can be shown of the room now
        alive = False
    if not alive:
        _forget()
        _note("info", _said("room.ended", code=code))
        return None
    return Member(code, role, _me(), secret)


def trainer() -> Member | None:
    """This session's membership when it is a room's trainer, else None."""
    member = current()
    return member if member is not None and member.trainer else None


def info(code: str) -> RoomInfo | None:
    try:
        return rooms().info(code)
    except Exception:
        return None


# --- the moves (callbacks) ------------------------------------------------------------------------


def open_room() -> None:
    """Open a new room with this session as its trainer (a participant's seat elsewhere is left)."""
    try:
        code, secret = rooms().open()
    except RoomError as exc:
        _note("error", exc.message)
        return
    _forget()
    state = st.session_state
    state[K_CODE], state[K_ROLE], state[K_SECRET] = code, TRAINER, secret
    state.pop(K_NOTE, None)


def join(typed: object) -> bool:
    """Join the room `typed` names as a participant; False (and the reason, noted) when refused."""
    raw = typed if isinstance(typed, str) else ""
    code = rooms().normalise(raw[:TYPED_CHARS]) if raw.strip() else None
    if code is None:
        _note("error", _said("room.bad_code"))
        return False
    state = st.session_state
    if state.get(K_CODE) == code and state.get(K_ROLE) in (TRAINER, PARTICIPANT):
        return True  # already in it (a trainer following their own link stays the trainer)
    try:
        rooms().join(code, _me())
    except RoomError as exc:
        _note("error", exc.message)
        return False
    _forget()
    state[K_CODE], state[K_ROLE] = code, PARTICIPANT
    state.pop(K_NOTE, None)
    return True


def join_typed() -> None:
    """The Room page's Join button: the code typed in its box."""
    if join(st.session_state.get(K_TYPED, "")):
        st.session_state[K_TYPED] = ""


def leave() -> None:
    """A participant leaves the room (their votes so far stay counted)."""
    _forget()
    st.session_state.pop(K_NOTE, None)


def close_room() -> None:
    """The trainer ends the room for everyone."""
    member = current()
    if member is None or not member.trainer:
        return
    try:
        rooms().close(member.code, str(member.secret))
    except RoomError as exc:
        _note("error", exc.message)
        return
    _forget()
    _note("info", _said("room.closed", code=member.code))


def from_link() -> None:
    """Join the room a `?room=CODE` link names (call once per script run, before the page draws).
    Acted on once per code: a participant who left is not joined again by the URL still in the bar."""
    raw = st.query_params.get(PARAM)
    if not raw or st.session_state.get(K_LINK) == raw:
        return
    st.session_state[K_LINK] = raw
    join(raw)


# --- drawing ----------------------------------------------------------------------------------------


def notice(lang: str) -> None:
    """The last refusal or notice, in the page's language (said once)."""
    note = st.session_state.pop(K_NOTE, None)
    if not note:
        return
    kind, message = note
    if kind == "error":
        st.error(message(lang), icon=":material/block:")
    else:
        st.info(message(lang), icon=":material/info:")


def entry(lang: str) -> None:
    """No room yet: open one (a trainer), or join one by its code (a participant)."""
    notice(lang)
    left, right = st.columns(2, gap="large")
    with left.container(border=True):
        st.markdown(f"#### :material/co_present: {t('room.open_head')}")
        st.caption(t("room.open_help"))
        st.button(t("room.open"), key="room_open", type="primary", icon=":material/add_circle:", on_click=open_room)
    with right.container(border=True):
        st.markdown(f"#### :material/login: {t('room.join_head')}")
        st.text_input(
            t("room.code"),
            key=K_TYPED,
            max_chars=TYPED_CHARS,
            placeholder=t("room.code_placeholder"),
            persist_state="session",
        )
        st.button(t("room.join"), key="room_join", icon=":material/login:", on_click=join_typed)


def trainer_head(member: Member, lang: str) -> None:
    """The trainer's own view of the room: its code, who is here, where to run, and Close."""
    notice(lang)
    room = info(member.code)
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", key="room_trainer_head")
    row.markdown(t("room.you_train", code=text.code_span(member.code)))
    if room is not None:
        row.badge(t("room.participants", n=room.participants), icon=":material/group:", color="blue")
    row.button(
        t("room.close"), key="room_close", icon=":material/cancel:", on_click=close_room, help=t("room.close_help")
    )
    st.caption(t("room.trainer_help"))
    st.page_link(page="pages/playground.py", label=t("room.to_playground"), icon=":material/play_circle:")


def participant_head(member: Member, lang: str) -> None:
    """A seat's line about the room: its code, whether the trainer is here, and Leave."""
    notice(lang)
    room = info(member.code)
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", key="room_seat_head")
    row.markdown(t("room.you_sit", code=text.code_span(member.code)))
    if room is not None and not room.trainer_here:
        row.badge(t("room.trainer_away"), icon=":material/person_off:", color="gray")
    row.button(t("room.leave"), key="room_leave", icon=":material/logout:", on_click=leave)


def badge(lang: str) -> None:
    """The sidebar's line on every page: "Room ABC123 · trainer · close" or "… · participant · leave".
    A trainer's badge also says "still here" every HEARTBEAT_S (a fragment), so polls stay open and the
    seats know the trainer is present while the trainer's page waits at a pause."""
    member = current()
    if member is None:
        return
    if member.trainer:
        st.fragment(run_every=HEARTBEAT_S)(_trainer_badge)(member, lang)
    else:
        _badge_row(member, lang)


def _trainer_badge(member: Member, lang: str) -> None:
    try:
        rooms().heartbeat(member.code, str(member.secret))
    except Exception:  # the room went (the next full rerun lets it go) or the store is away for a moment
        pass
    _badge_row(member, lang)


def _badge_row(member: Member, lang: str) -> None:
    with st.container(border=True, key="room_badge"):
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        role = t("room.role_trainer") if member.trainer else t("room.role_participant")
        row.markdown(t("room.badge", code=text.code_span(member.code), role=role))
        if member.trainer:
            row.button(
                t("room.close"), key="room_badge_close", type="tertiary", on_click=close_room, help=t("room.close_help")
            )
        else:
            row.button(t("room.leave"), key="room_badge_leave", type="tertiary", on_click=leave)
        st.page_link(page=ROOM_PAGE, label=t("room.to_room"), icon=":material/groups:")
        problem = getattr(st.session_state.get(K_CAST), "problem", None) if member.trainer else None
        if problem is not None:  # the run goes on; the room missed some of it
            st.caption(f":material/warning: {problem(lang)}")
