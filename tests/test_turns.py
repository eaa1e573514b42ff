"""Pages drawn in turns: forty sessions pressing Run at once draw their pages one after another, so
the server's event loop (websockets, health, a new visitor) waits for one page at most, not for forty
sharing the interpreter's lock. A page that follows a run gives its turn back; a turn is given back
however the page's script run ends; no page waits longer than WAIT_S; a new visitor never queues."""

from __future__ import annotations

import threading
import time
import types

import pytest

from pages.ui import turns


class States:
    """Each thread's own session state, as each session's script thread has; a session that has drawn
    a page before unless a test says otherwise."""

    def __init__(self) -> None:
        self._local = threading.local()

    @property
    def state(self) -> dict:
        if not hasattr(self._local, "state"):
            self._local.state = {turns.K_VISITED: True}
        return self._local.state

    @state.setter
    def state(self, value: dict) -> None:
        self._local.state = value

    def get(self, key, default=None):  # noqa: ANN001, ANN201 - st.session_state's two calls
        return self.state.get(key, default)

    def __setitem__(self, key, value) -> None:  # noqa: ANN001
        self.state[key] = value


@pytest.fixture
def sessions(monkeypatch) -> States:
    states = States()
    monkeypatch.setattr(turns, "st", types.SimpleNamespace(session_state=states))
    monkeypatch.setattr(turns, "_PAGES", threading.Semaphore(1))
    monkeypatch.setattr(turns, "_CATCH_UPS", threading.Semaphore(1))
    return states


def drawing(events: list[str], name: str, hold: threading.Event, *, follow: bool = False) -> None:
    with turns.page():
        events.append(f"{name} draws")
        if follow:
            turns.done()  # the page is drawn; it follows a run from here
            events.append(f"{name} follows")
        hold.wait(5)
        events.append(f"{name} ends")


def test_a_second_page_is_drawn_when_the_first_is_done(sessions):
    events: list[str] = []
    first_hold, second_hold = threading.Event(), threading.Event()
    first = threading.Thread(target=drawing, args=(events, "A", first_hold))
    first.start()
    while "A draws" not in events:
        time.sleep(0.005)
    second = threading.Thread(target=drawing, args=(events, "B", second_hold))
    second.start()
    time.sleep(0.2)
    assert events == ["A draws"]  # B waits for its turn
    first_hold.set()
    second_hold.set()
    first.join(5)
    second.join(5)
    assert events == ["A draws", "A ends", "B draws", "B ends"]


def test_a_page_that_follows_a_run_gives_its_turn_back(sessions):
    events: list[str] = []
    follow_hold, other_hold = threading.Event(), threading.Event()
    follower = threading.Thread(target=drawing, args=(events, "A", follow_hold), kwargs={"follow": True})
    follower.start()
    while "A follows" not in events:
        time.sleep(0.005)
    other_hold.set()
    drawing(events, "B", other_hold)  # drawn at once, while A still follows its run
    assert events == ["A draws", "A follows", "B draws", "B ends"]
    follow_hold.set()
    follower.join(5)


def test_a_turn_is_given_back_when_the_script_run_is_cut(sessions):
    class Rerun(Exception):  # what a click does to a script run (Streamlit's RerunException)
        pass

    with pytest.raises(Rerun), turns.page():
        raise Rerun
    assert turns._PAGES.acquire(blocking=False)  # free again


def test_no_page_waits_longer_than_the_bound_nor_a_new_visitor_at_all(sessions, monkeypatch):
    monkeypatch.setattr(turns, "WAIT_S", 0.2)
    assert turns._PAGES.acquire(blocking=False)  # a slow page holds the turn
    began = time.perf_counter()
    with turns.page():
        waited = time.perf_counter() - began
    assert 0.15 < waited < 2  # drew anyway, after the bound
    sessions.state = {}  # a session's first page
    began = time.perf_counter()
    with turns.page():
        assert time.perf_counter() - began < 0.1  # never queued
    assert sessions.state[turns.K_VISITED]
    turns._PAGES.release()


def test_a_seat_waiting_for_its_catch_up_lets_clicks_through_and_draws_after_the_one_before():
    """A seat's catch-up waits for the one drawing now, taking a click every `every` seconds (a vote
    reruns its page rather than queueing); it draws once the other is done."""
    clicks: list[float] = []
    order: list[str] = []
    with turns.catch_up(lambda: None, 0.05):
        waiting = threading.Thread(target=lambda: _catch_up(order, lambda: clicks.append(time.perf_counter())))
        waiting.start()
        time.sleep(0.3)
        order.append("first done")
    waiting.join(5)
    assert order == ["first done", "second draws"]
    assert len(clicks) >= 3  # it let clicks through while it waited


def _catch_up(order: list[str], take_clicks) -> None:  # noqa: ANN001
    with turns.catch_up(take_clicks, 0.05):
        order.append("second draws")
