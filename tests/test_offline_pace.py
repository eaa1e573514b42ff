"""The offline model streams at its own pace, as an endpoint does: a reply of n pieces at r pieces a
second takes n / r seconds whether the run that reads it is quick or slow to take each piece (a busy
server: forty sessions pressing Run at once). A slow reader finds the next pieces ready; the reply never
takes the model's time plus the reader's. The clock is the test's, so the figures are exact."""

from __future__ import annotations

import pytest

import agent_core as ac
from agent_core.messages import ChatRequest, Completion, Message
from agent_core.offline import OfflineModel
from agent_core.offline import model as offline_model


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(offline_model.time, "perf_counter", clock.perf_counter)
    monkeypatch.setattr(offline_model.time, "sleep", clock.sleep)
    return clock


def request() -> ChatRequest:
    config, task = ac.for_scenario("primes", "en")
    return ChatRequest(messages=[Message("user", task)], role="generator")


def read(model: OfflineModel, clock: Clock, per_piece_s: float) -> tuple[int, float]:
    """Read a whole reply, spending `per_piece_s` of the clock on each piece; (pieces, seconds)."""
    began, pieces = clock.now, 0
    for item in model.stream(request()):
        if isinstance(item, Completion):
            break
        pieces += 1
        clock.now += per_piece_s
    return pieces, clock.now - began


def test_a_reader_slower_than_the_model_gets_the_reply_in_its_own_time_not_the_sum(clock):
    model = OfflineModel(tokens_per_second=50)  # a piece every 20 ms
    pieces, quick = read(model, clock, 0.0)
    assert pieces > 10 and quick == pytest.approx(pieces * 0.02)
    _, slower = read(model, clock, 0.01)  # the reader takes 10 ms a piece: still the model's pace
    assert slower == pytest.approx(pieces * 0.02 + 0.01)  # (the last piece's reading, after the model)
    _, slowest = read(model, clock, 0.05)  # the reader is the slow one: its time, nothing added
    assert slowest == pytest.approx(0.02 + pieces * 0.05)  # (the first piece, at the model's pace)


def test_a_reader_that_stalls_once_catches_up_on_the_pieces_that_came_meanwhile(clock):
    model = OfflineModel(tokens_per_second=50)
    pieces, alone = read(model, clock, 0.0)
    began, seen = clock.now, 0
    for item in model.stream(request()):
        if isinstance(item, Completion):
            break
        seen += 1
        if seen == 3:
            clock.now += 0.2  # the run's thread waited for the server for 0.2 s
    assert alone > 3 * 0.02 + 0.2  # the stall ended before the model would have
    assert seen == pieces and clock.now - began == pytest.approx(alone)  # not alone + 0.2: it caught up
