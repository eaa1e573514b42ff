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
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import streamlit as st

#: pages of this server drawn at the same moment
_PAGES = threading.Semaphore(1)
#: the longest a page waits for its turn before it draws anyway (0.5 s was measured worse: the
#: queue dissolved into the same crowd it was meant to order)
WAIT_S = 2.0
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
