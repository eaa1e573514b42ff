"""A live view's pace: the trainer's own Reflection on primes shows every move of the graph the moment
it happens, and refreshes its counters at most every 0.2 s; a room's seat (one of forty drawing the same
run on one server) paints streamed text twice a second and refreshes counters, graph and side table once
a second, and no move is lost: the next refresh or a quiet look draws it. A batch of events (a seat's
look) refreshes once, after its last event, and a seat's look that drew a step leaves the refresh to a
later look. The clock is the test's, so the figures are exact."""

from __future__ import annotations

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.offline import OfflineModel
from pages.ui import render, room_view


@pytest.fixture(scope="module")
def primes() -> tuple[dict, list[ev.Event]]:
    config, task = ac.for_scenario("primes", "en")
    return config.to_dict(), list(ac.stream(task, config, OfflineModel()))


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def drawn(config: dict, events: list[ev.Event], pace: render.Pace, step_s: float, monkeypatch) -> tuple:
    """Feed `events` to a live view, `step_s` of the test's clock apart; the view's refreshes (each with
    whether it drew the graph), its paints of streamed text, and the moves of the graph."""
    clock = Clock()
    monkeypatch.setattr(render.time, "monotonic", clock)
    view = render.RunView(config, bound=9, key="pace", pace=pace)
    refreshes: list[tuple[float, bool]] = []  # (when, whether the graph was drawn)
    real = view._refresh
    view._refresh = lambda graph: refreshes.append((clock.now, graph)) or real(graph)  # type: ignore[method-assign]
    paints = 0
    moves = 0
    for event in events:
        clock.now += step_s
        before, painted = view.active, view._painted
        view.add(event)
        moves += view.active != before
        paints += view._painted != painted
    return view, refreshes, paints, moves, clock


def gaps(refreshes: list[tuple[float, bool]]) -> list[float]:
    return [round(b[0] - a[0], 6) for a, b in zip(refreshes, refreshes[1:], strict=False)]


def test_the_trainers_view_shows_every_move_of_the_graph_at_once(primes, monkeypatch):
    config, events = primes
    _view, refreshes, paints, moves, _clock = drawn(config, events, render.Pace(), 0.02, monkeypatch)
    assert moves >= 5  # generator, tests, critic, again
    assert [graph for _t, graph in refreshes].count(True) == moves  # each move drawn as it happens
    tokens = sum(isinstance(e, ev.Token) for e in events)
    # streamed text at most every 0.1 s (and once as each call starts): not at every one of its tokens
    assert 0 < paints <= tokens * 0.02 / render.TOKEN_PAINT_S + moves + 1 < tokens


def test_a_seat_paints_at_its_own_pace_and_draws_the_last_move_when_it_comes_to_rest(primes, monkeypatch):
    config, events = primes
    view, refreshes, paints, moves, clock = drawn(config, events, room_view.PACE, 0.02, monkeypatch)
    assert min(gaps(refreshes)) >= room_view.PACE.refresh  # moves included: once a second at most
    tokens = sum(isinstance(e, ev.Token) for e in events)
    assert 0 < paints <= tokens * 0.02 / room_view.PACE.tokens + moves + 1


def test_a_seat_draws_the_moves_it_held_back_at_its_next_refresh(primes, monkeypatch):
    config, events = primes
    # the whole run in a third of a second: every move after the first refresh is held back
    view, refreshes, _paints, moves, clock = drawn(config, events, room_view.PACE, 0.001, monkeypatch)
    assert moves >= 5 and len(refreshes) == 1 and view._moved
    view.tick()
    assert len(refreshes) == 1  # not before a refresh is due
    clock.now += room_view.PACE.refresh
    view.tick()  # the run comes to rest (a pause, a slow call): the graph shows where it is now
    assert refreshes[-1] == (clock.now, True) and not view._moved and not view._stale


def test_a_quiet_seat_shows_the_counts_of_its_last_events_within_a_refresh(primes, monkeypatch):
    config, events = primes
    view, refreshes, _paints, _moves, clock = drawn(config, events[:40], room_view.PACE, 0.02, monkeypatch)
    assert view._stale  # the last events are counted, not yet drawn
    drawn_before = len(refreshes)
    view.tick()
    assert len(refreshes) == drawn_before  # not before a refresh is due
    clock.now += room_view.PACE.refresh
    view.tick()
    assert len(refreshes) == drawn_before + 1 and not view._stale


def counted(config: dict, pace: render.Pace, monkeypatch) -> tuple[render.RunView, list[tuple[float, bool]], Clock]:
    """A live view on the test's clock whose refreshes (when, whether the graph was drawn) are counted."""
    clock = Clock()
    monkeypatch.setattr(render.time, "monotonic", clock)
    view = render.RunView(config, bound=9, key="batch", pace=pace)
    refreshes: list[tuple[float, bool]] = []
    real = view._refresh
    view._refresh = lambda graph: refreshes.append((clock.now, graph)) or real(graph)  # type: ignore[method-assign]
    return view, refreshes, clock


def test_a_batch_of_events_refreshes_the_counters_once_after_its_last_event(primes, monkeypatch):
    """A seat's look brings the critic's call, its verdict and the next draft at once: the counters,
    graph and side table are drawn once, after the steps, not between them (each refresh there was a
    dozen elements, forty seats over)."""
    config, events = primes
    batch = [e for e in events if not isinstance(e, ev.Token)][:6]
    assert len({e.kind for e in batch}) >= 3
    view, refreshes, clock = counted(config, render.Pace(), monkeypatch)  # moves drawn at once
    del refreshes[:]
    clock.now += 10
    view.add_all(batch)
    assert len(refreshes) == 1 and refreshes[0][1]  # once, the graph's moves with it
    assert not view._stale and not view._moved
    one_by_one, each, _clock = counted(config, render.Pace(), monkeypatch)
    del each[:]
    for event in batch:
        one_by_one.add(event)
    assert len(each) > 1  # what the batch saves: event by event, every move is its own refresh


def test_a_seat_leaves_the_refresh_of_a_step_to_a_later_look(primes, monkeypatch):
    """settle=False and point_at(draw=False): the step and the node about to run are noted, nothing is
    refreshed until the look that may (tick), and that refresh draws both."""
    config, events = primes
    batch = [e for e in events if not isinstance(e, ev.Token)][:6]
    view, refreshes, clock = counted(config, room_view.PACE, monkeypatch)
    del refreshes[:]
    clock.now += 10
    view.add_all(batch, settle=False)
    view.point_at(ev.LlmCall(role="critic"), draw=False)
    assert refreshes == [] and view._stale and view._moved
    view.tick(room_view.STEPPED_REFRESH_S)  # a look that drew a step: only if the last refresh is that old
    assert len(refreshes) == 1 and refreshes[0][1] and not view._stale
    clock.now += room_view.PACE.refresh
    view.add_all(batch[:1], settle=False)
    view.tick(room_view.STEPPED_REFRESH_S)
    assert len(refreshes) == 1  # drew a step a second after the last refresh: it waits
    view.tick()  # the next quiet look
    assert len(refreshes) == 2 and not view._stale
