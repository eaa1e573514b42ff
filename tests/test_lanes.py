"""Lanes run concurrently, stop together, and keep every event."""

import time

import agent_core as ac
from agent_core import events as ev
from agent_core.lanes import Lane, LaneSet


def lane(name, scenario, pattern=None, speed=0.0):
    overrides = {"pattern": pattern} if pattern else {}
    config, task = ac.for_scenario(scenario, **overrides)
    return Lane(name, lambda: ac.stream(task, config, ac.OfflineModel(tokens_per_second=speed)))


def test_three_patterns_on_one_scenario_all_finish_with_their_own_events():
    lanes = LaneSet(
        [
            lane("react", "order-99999", "react"),
            lane("plan", "order-99999"),
            lane("reflection", "order-99999", "reflection"),
        ]
    ).start()
    lanes.join()
    for one in lanes.lanes:
        assert one.done and one.events[0].kind == "run_started" and one.events[-1].kind == "run_finished"
    assert [one.events[0].pattern for one in lanes.lanes] == ["react", "plan-execute", "reflection"]
    assert lanes.alive_workers() == 0


def test_lanes_progress_at_the_same_time():
    lanes = LaneSet([lane(str(i), "primes", speed=300) for i in range(3)]).start()
    seen_running_together = False
    while lanes.running:
        lanes.drain(timeout=0.05)
        if all(0 < len(one.events) for one in lanes.lanes) and not any(one.done for one in lanes.lanes):
            seen_running_together = True
    assert seen_running_together


def test_stop_ends_every_lane_quickly_and_keeps_their_events():
    lanes = LaneSet([lane(str(i), "primes", speed=50) for i in range(3)]).start()
    time.sleep(0.5)
    lanes.drain()
    started = time.perf_counter()
    lanes.stop()
    assert time.perf_counter() - started < 1.0
    assert lanes.alive_workers() == 0
    for one in lanes.lanes:
        assert one.events[0].kind == "run_started"
        assert isinstance(one.events[-1], ev.RunFinished) and one.events[-1].reason == "stop"


def test_a_lane_that_cannot_start_fails_alone():
    def broken():
        raise ac.ConfigError("bad prompt")

    lanes = LaneSet([Lane("bad", broken), lane("good", "primes")]).start()
    lanes.join()
    bad, good = lanes.lanes
    assert [e.kind for e in bad.events] == ["run_failed", "run_finished"] and "bad prompt" in bad.events[0].message
    assert good.events[-2].kind == "final_answer"
