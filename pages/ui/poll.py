"""The classroom prediction poll. While a run is paused before a verdict, the presenter asks the room
"What will the critic say?"; everyone on the same server votes once, from the sidebar of any page;
when the run goes on, the real verdict and the tally show on both sides.

Per server and in memory, no accounts: polls live in this module (imported once per server process,
so every session sees the same dict), a vote is keyed by an id kept in the voter's session state, and polls expire an
hour after they open, at most `MAX_POLLS` at a time.
"""

from __future__ import annotations

import threading
import uuid
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from agent_core.stepping import VERDICT_CHOICES

from . import i18n, text

MAX_POLLS = 20
EXPIRES_S = 3600.0
_LOCK = threading.Lock()
_POLLS: dict[str, Poll] = {}


@dataclass
class Poll:
    id: str
    role: str
    choices: tuple[str, ...]
    owner: str
    opened: float = field(default_factory=time.time)
    votes: dict[str, str] = field(default_factory=dict)
    answer: str | None = None

    def tally(self) -> Counter:
        return Counter(self.votes.values())


def _words(lang: str) -> dict[str, str]:
    return i18n.words("poll", lang)


def _role(role: str, lang: str) -> str:
    """A role's name in `lang` (a role the catalogue lacks, as it came, made safe for Markdown)."""
    return i18n.words("roles", lang).get(role) or text.inline(role, 30)


def _session() -> str:
    """This browser session's voter id (kept in its session state: no account, no cookie)."""
    return st.session_state.setdefault("poll_me", uuid.uuid4().hex)


def _live() -> list[Poll]:
    now = time.time()
    with _LOCK:
        for pid in [pid for pid, p in _POLLS.items() if now - p.opened > EXPIRES_S]:
            del _POLLS[pid]
        return sorted(_POLLS.values(), key=lambda p: p.opened)


def open_poll(pid: str, role: str) -> None:
    """Open a poll (the presenter's button); the oldest goes when there are too many."""
    with _LOCK:
        if pid in _POLLS:
            return
        if len(_POLLS) >= MAX_POLLS:
            del _POLLS[min(_POLLS, key=lambda k: _POLLS[k].opened)]
        _POLLS[pid] = Poll(pid, role, VERDICT_CHOICES[role], _session())


def vote(pid: str, key: str) -> None:
    """A participant's vote (the Vote button's callback): one per session, the last one counts."""
    choice = st.session_state.get(key)
    with _LOCK:
        poll = _POLLS.get(pid)
        if poll is not None and poll.answer is None and choice in poll.choices:
            poll.votes[_session()] = choice


def reveal(run_id: str, verdict: str) -> None:
    """The run's next verdict is the answer to its open poll."""
    with _LOCK:
        for poll in _POLLS.values():
            if poll.id.startswith(f"{run_id}-") and poll.answer is None:
                poll.answer = verdict


def ask_room(prefix: str, record: Any, pending: Any, lang: str) -> None:
    """The presenter's side, inside the pause banner: open the poll, then watch the votes come in."""
    w = _words(lang)
    pid = f"{record.run_id}-{pending.call}"
    with _LOCK:
        opened = pid in _POLLS
    if not opened:
        st.button(w["ask"].format(role=_role(pending.role, lang)), key=f"{prefix}_poll_open",
                  icon=":material/how_to_vote:", on_click=open_poll, args=(pid, pending.role))
        return
    st.fragment(run_every=2.0)(_tally)(pid, lang)


def _tally(pid: str, lang: str) -> None:
    w = _words(lang)
    with _LOCK:
        poll = _POLLS.get(pid)
        counts = poll.tally() if poll is not None else Counter()
    if poll is None:
        return
    st.caption(w["open"].format(n=sum(counts.values())))
    row = st.container(horizontal=True, gap="small")
    for choice in poll.choices:
        row.metric(choice, counts.get(choice, 0))


@st.fragment(run_every=3.0)
def room_box(lang: str) -> None:
    """Every session's view of the room's polls (call inside the sidebar): vote on an open one, see the
    answer of a closed one. It looks again every 3 s, so a poll reaches the room without a click."""
    polls = [p for p in _live() if p.owner != _session()]
    if not polls:
        return
    w = _words(lang)
    with st.container(border=True, key="poll_box"):
        st.markdown(f"**:material/how_to_vote: {w['room']}**")
        for poll in polls[-3:]:
            role = _role(poll.role, lang)
            mine = poll.votes.get(_session())
            if poll.answer is not None:
                right = sum(1 for v in poll.votes.values() if v == poll.answer)
                st.markdown(w["answer"].format(role=role, answer=text.inline(poll.answer, 20), right=right,
                                               n=len(poll.votes)))
            elif mine is not None:
                st.markdown(w["voted"].format(choice=text.inline(mine, 20), role=role))
            else:
                st.markdown(w["question"].format(role=role))
                key = f"poll_choice_{poll.id}"
                st.segmented_control(w["question"].format(role=role), poll.choices, key=key,
                                     label_visibility="collapsed", on_change=vote, args=(poll.id, key),
                                     persist_state="session")
