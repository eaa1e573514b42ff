"""Pages drawn one at a time on a server. A page's script run draws the whole page (sidebar, setup,
the run so far) and then, on some pages, follows a run for as long as it goes (a Playground run, Play,
Compare's lanes, a room's seat). The drawing is a burst of the server's one interpreter: when forty
sessions press Run at once, forty pages draw together, and the interpreter's lock, shared among them,
left the server's event loop (websockets, `/_stcore/health`) waiting a second or more. In turns, the
work is the same and everything else waits for one page at most; a run is not held back by it (Run
starts the run in its click's callback), and following takes no turn.

A page waits at most WAIT_S for its turn, then draws anyway: a slow page never stalls the others. A
session's first page (a new visitor) takes a free turn but never queues for one: it is not kept
waiting behind the pages of forty finished runs.

A room's seat gives the page's turn back at once and catches up on the trainer's run in a turn of its
own (`catch_up`): after a poll, forty seats' pages rerun within seconds, and in the page's turns their
sidebars and heads queued behind each other as well (room lag p95 482 ms, against 409 in their own).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

import streamlit as st

#: pages of this server drawn at the same moment
_PAGES = threading.Semaphore(1)
#: the longest a page waits for its turn before it draws anyway (0.5 s was measured worse: the
#: queue dissolved into the same crowd it was meant to order)
WAIT_S = 2.0
#: seats of this server that draw a whole run at the same moment (a seat joining, a new run, the page's
#: next script run after a click). A vote reruns forty pages within seconds, and forty catch-ups at
#: once (each 20-40 ms of the one interpreter) shared its lock so finely that the trainer's tally and
#: the server's event loop (health, websockets) waited behind all of them. In turns, the work is the
#: same and everyone else waits for one catch-up at most. A seat's look at what changed (a millisecond
#: or two) takes no turn: it must not queue behind catch-ups.
_CATCH_UPS = threading.Semaphore(1)
#: set in a session's state once its first page is drawn
K_VISITED = "turns_visited"
_mine = threading.local()


@contextlib.contextmanager
def page() -> Iterator[None]:
    """This script run's turn to draw its page, given back at its end (or at `done()`)."""
    state = st.session_state
    if state.get(K_VISITED):
        _mine.held = _PAGES.acquire(timeout=WAIT_S)
    else:
        state[K_VISITED] = True
        _mine.held = _PAGES.acquire(blocking=False)
    try:
        yield
    finally:
        done()


def done() -> None:
    """The page is drawn and now follows a run, or waits: the next page may draw."""
    if getattr(_mine, "held", False):
        _mine.held = False
        _PAGES.release()


@contextlib.contextmanager
def catch_up(take_clicks: Callable[[], None], every: float) -> Iterator[None]:
    """A seat's turn to draw a whole run, calling `take_clicks` (live.take_clicks) every `every` seconds
    while it waits, so that a vote or a click reruns the page instead of waiting behind the queue."""
    while not _CATCH_UPS.acquire(timeout=every):
        take_clicks()
    try:
        yield
    finally:
        _CATCH_UPS.release()
