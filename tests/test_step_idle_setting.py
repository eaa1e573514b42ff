"""The server's idle time for paused runs: AGENT_PLAYGROUND_STEP_IDLE_S, read in one place, with the
30-minute default for anything that is not a positive number of seconds."""

from __future__ import annotations

import threading
import time

import pytest

import agent_core as ac
from agent_core.offline import OfflineModel
from agent_core.settings import STEP_IDLE_ENV, step_idle_timeout_s
from agent_core.stepping import IDLE_TIMEOUT_S, Breakpoints, RunHandle


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("20", 20.0),
        (" 0.5 ", 0.5),
        ("", IDLE_TIMEOUT_S),
        ("soon", IDLE_TIMEOUT_S),
        ("0", IDLE_TIMEOUT_S),
        ("-5", IDLE_TIMEOUT_S),
        ("nan", IDLE_TIMEOUT_S),
        ("inf", IDLE_TIMEOUT_S),
    ],
)
def test_the_setting_is_a_positive_number_of_seconds_or_the_default(value, seconds):
    assert step_idle_timeout_s({STEP_IDLE_ENV: value}) == seconds
    assert step_idle_timeout_s({}) == IDLE_TIMEOUT_S == 30 * 60


def test_a_handle_left_paused_ends_after_the_servers_idle_time(monkeypatch):
    monkeypatch.setenv(STEP_IDLE_ENV, "0.3")
    config, task = ac.for_scenario("primes", "en")
    before = threading.active_count()
    handle = RunHandle.for_run(task, config, OfflineModel(), breakpoints=Breakpoints(every_call=True))
    assert handle.idle_timeout_s == 0.3
    assert RunHandle.for_run(task, config, OfflineModel(), idle_timeout_s=7.0).idle_timeout_s == 7.0
    began = time.monotonic()
    handle.start()
    assert handle.join(10), "the paused run outlived its idle time"
    assert 0.3 <= time.monotonic() - began < 5
    events = handle.drain()
    assert handle.timed_out and events[-1].kind == "run_finished" and events[-1].reason == "stop"
    assert [e.kind for e in events if e.kind == "paused"] == ["paused"]
    assert threading.active_count() == before
