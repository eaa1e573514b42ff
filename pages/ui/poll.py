"""The classroom prediction poll. While a run is paused before a verdict, the presenter asks the room
"What will the critic say?"; everyone on the same server votes once, from the sidebar of any page;
when the run goes on, the real verdict and the tally show on both sides.

Per server and in memory, no accounts: polls live in this module (imported once per server process,
so every session sees the same dict), keyed by the session that opened them, and a vote is keyed by
an id kept in the voter's session state. What one session does never touches another's poll:

- a session holds at most one poll: opening a new one closes its previous one;
- a poll closes with its run (finished, failed, stopped, left idle, its tab gone) — the run's own
  thread says so (`RunPolls.close`, on the run's last event), and a poll whose run is over is never
  shown as open;
- at most `MAX_POLLS` are held at once: beyond that a new poll is refused (the presenter is told),
  never made by evicting another's;
- only the run that opened a poll reveals its answer, only others vote in it, once each (the last
  choice counts).

A revealed poll's result stays in the room's view for `RESULT_S`; an open one lasts at most
`EXPIRES_S`.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from agent_core.patterns import registry

from . import i18n, text

#: polls held at once on the server (each session holds at most one)
MAX_POLLS = 60
#: an open poll older than this goes (a paused run waits 30 minutes at most by default)
EXPIRES_S = 3600.0
#: how long the room still sees a revealed poll's answer
RESULT_S = 600.0
#: the room's view shows this many polls before it scrolls
SHOWN = 3
#: set in a session whose poll the server refused (it holds MAX_POLLS already)
K_REFUSED = "poll_refused"

_LOCK = threading.Lock()
_POLLS: dict[str, Poll] = {}  # owner's voter id -> that session's one poll


@dataclass
class Poll:
    id: str
    run_id: str
    role: str
    choices: tuple[str, ...]
    owner: str
    opened: float = field(default_factory=time.time)
    votes: dict[str, str] = field(default_factory=dict)
    answer: str | None = None
    #: when voting ended: the answer came or the run ended
    closed: float | None = None
    #: the run's own "finished" flag (its RunHandle's), so a run that ended never shows an open poll
    run_over: threading.Event | None = None
    #: whether the owner's browser session is still connected (None where nothing can tell)
    owner_alive: Callable[[], bool] | None = None

    @property
    def is_open(self) -> bool:
        return (
            self.answer is None and self.closed is None and not (self.run_over is not None and self.run_over.is_set())
        )

    def tally(self) -> Counter:
        return Counter(self.votes.values())


def _words(lang: str) -> dict[str, str]:
    return i18n.words("poll", lang)


def _role(role: str, lang: str) -> str:
    """A role's name in `lang` (a role the catalogue lacks, as it came, made safe for Markdown)."""
    return i18n.role_labels(lang).get(role) or text.inline(role, 30)


def _session() -> str:
    """This browser session's voter id (kept in its session state: no account, no cookie)."""
    return st.session_state.setdefault("poll_me", uuid.uuid4().hex)


# --- the rules (every caller names the session it acts for) ----------------------------------------


def _purge(now: float) -> None:
    """Drop what is over (call with the lock held): polls of ended runs nobody answered, results
    shown long enough, polls open too long, polls whose owner's tab is gone."""
    for owner, poll in list(_POLLS.items()):
        if poll.run_over is not None and poll.run_over.is_set() and poll.closed is None:
            poll.closed = now  # the run ended without its thread telling (it always tells; belt and braces)
        gone = poll.owner_alive is not None and not _alive(poll.owner_alive)
        if (
            gone
            or (poll.answer is None and poll.closed is not None)
            or (poll.closed is not None and now - poll.closed > RESULT_S)
            or now - poll.opened > EXPIRES_S
        ):
            del _POLLS[owner]


def _alive(check: Callable[[], bool]) -> bool:
    try:
        return bool(check())
    except Exception:  # a runtime shutting down: nothing left to show the poll to
        return False


def open_for(
    owner: str,
    run_id: str,
    call: int,
    role: str,
    run_over: threading.Event | None = None,
    owner_alive: Callable[[], bool] | None = None,
) -> bool:
    """Open `owner`'s poll on its run's pending call; False when refused (the server holds MAX_POLLS,
    or the run is over). The owner's previous poll, if any, closes."""
    grammar = registry.role(role)
    if grammar is None or not grammar.verdicts:
        return False
    pid = f"{run_id}-{call}"
    with _LOCK:
        _purge(time.time())
        mine = _POLLS.get(owner)
        if mine is not None and mine.id == pid:
            return True
        if run_over is not None and run_over.is_set():
            return False
        if any(p.id == pid for p in _POLLS.values()):  # run ids are the server's: only a forgery collides
            return False
        if mine is None and len(_POLLS) >= MAX_POLLS:
            return False
        _POLLS[owner] = Poll(pid, run_id, role, grammar.verdicts, owner, run_over=run_over, owner_alive=owner_alive)
    return True


def vote_for(voter: str, pid: str, choice: Any) -> bool:
    """`voter`'s vote in poll `pid`: counted once per voter (the last choice), never in their own poll,
    only while the poll is open and only for one of its choices."""
    with _LOCK:
        poll = next((p for p in _POLLS.values() if p.id == pid), None)
        if poll is None or poll.owner == voter or not poll.is_open or choice not in poll.choices:
            return False
        poll.votes[voter] = choice
    return True


@dataclass(frozen=True)
class RunPolls:
    """What a run does to its owner's poll, from the run's own thread: a verdict answers it, the run's
    end closes it. Bound to the owner and the run when the run starts, so nothing else can."""

    owner: str
    run_id: str

    def reveal(self, verdict: str) -> None:
        with _LOCK:
            poll = _POLLS.get(self.owner)
            if poll is not None and poll.run_id == self.run_id and poll.is_open:
                poll.answer, poll.closed = verdict, time.time()

    def close(self) -> None:
        with _LOCK:
            poll = _POLLS.get(self.owner)
            if poll is None or poll.run_id != self.run_id:
                return
            if poll.answer is None:
                del _POLLS[self.owner]  # nothing to show: the run ended before its verdict
            elif poll.closed is None:
                poll.closed = time.time()


def for_run(run_id: str) -> RunPolls:
    """The run's hold on this session's poll (call in the script run that starts the run)."""
    return RunPolls(_session(), run_id)


def held() -> list[Poll]:
    """Every poll the server holds now, oldest first."""
    with _LOCK:
        _purge(time.time())
        return sorted(_POLLS.values(), key=lambda p: p.opened)


# --- the widgets ---------------------------------------------------------------------------------


def open_poll(run_id: str, call: int, role: str, run_over: threading.Event | None = None) -> None:
    """The presenter's button: open this session's poll (refused when the server holds too many)."""
    state = st.session_state
    state[K_REFUSED] = not open_for(_session(), run_id, call, role, run_over, _session_alive())


def vote(pid: str, key: str) -> None:
    """A participant's vote (the choice's callback)."""
    vote_for(_session(), pid, st.session_state.get(key))


def ask_room(prefix: str, record: Any, pending: Any, lang: str) -> None:
    """The presenter's side, inside the pause banner: open the poll, then watch the votes come in."""
    w = _words(lang)
    pid = f"{record.run_id}-{pending.call}"
    me = _session()
    with _LOCK:
        mine = _POLLS.get(me)
        opened = mine is not None and mine.id == pid
    if not opened:
        run_over = getattr(record.handle, "finished", None)
        st.button(
            w["ask"].format(role=_role(pending.role, lang)),
            key=f"{prefix}_poll_open",
            icon=":material/how_to_vote:",
            on_click=open_poll,
            args=(record.run_id, pending.call, pending.role, run_over),
        )
        if st.session_state.get(K_REFUSED):
            st.warning(w["full"].format(n=MAX_POLLS), icon=":material/hourglass_top:")
        return
    st.session_state[K_REFUSED] = False
    st.fragment(run_every=2.0)(_tally)(me, pid, lang)


def _tally(owner: str, pid: str, lang: str) -> None:
    w = _words(lang)
    with _LOCK:
        poll = _POLLS.get(owner)
        counts = poll.tally() if poll is not None and poll.id == pid else None
    if poll is None or counts is None:
        return
    st.caption(w["open"].format(n=sum(counts.values())))
    row = st.container(horizontal=True, gap="small")
    for choice in poll.choices:
        row.metric(choice, counts.get(choice, 0))


@st.fragment(run_every=3.0)
def room_box(lang: str) -> None:
    """Every session's view of the room's polls (call inside the sidebar): vote on an open one, see the
    answer of a closed one. It looks again every 3 s, so a poll reaches the room without a click.

    Open polls come first, oldest first, so a poll opened later never pushes an earlier one out of
    view; answers follow, newest first. Past `SHOWN` polls the box scrolls."""
    me = _session()
    polls = [p for p in held() if p.owner != me and (p.is_open or p.answer is not None)]
    if not polls:
        return
    polls.sort(key=lambda p: (not p.is_open, p.opened if p.is_open else -(p.closed or 0.0)))
    w = _words(lang)
    with st.container(border=True, key="poll_box"):
        st.markdown(f"**:material/how_to_vote: {w['room']}**")
        inner = st.container(height=360, border=False) if len(polls) > SHOWN else st.container()
        with inner:
            for poll in polls:
                _one(poll, me, w, lang)


def _one(poll: Poll, me: str, w: dict[str, str], lang: str) -> None:
    role = _role(poll.role, lang)
    mine = poll.votes.get(me)
    if poll.answer is not None:
        right = sum(1 for v in poll.votes.values() if v == poll.answer)
        st.markdown(w["answer"].format(role=role, answer=text.inline(poll.answer, 20), right=right, n=len(poll.votes)))
    elif mine is not None:
        st.markdown(w["voted"].format(choice=text.inline(mine, 20), role=role))
    else:
        st.markdown(w["question"].format(role=role))
        key = f"poll_choice_{poll.id}"
        st.segmented_control(
            w["question"].format(role=role),
            poll.choices,
            key=key,
            label_visibility="collapsed",
            on_change=vote,
            args=(poll.id, key),
            persist_state="session",
        )


def _session_alive() -> Callable[[], bool] | None:
    """Whether this browser session is still connected; None where there is no server session (AppTest)."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return None
    runtime, session = Runtime.instance(), ctx.session_id
    if not runtime.is_active_session(session):
        return None
    return lambda: runtime.is_active_session(session)
