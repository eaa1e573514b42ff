"""A seat's and the trainer's room tools: the join card (the code, the ?room= link, its QR code), a
participant taking the trainer's run from the call it is at into their own Playground, and the room's
submissions — bounded, escaped, opened beside the default prompts in Compare.

The story: the trainer runs Reflection on primes in step mode, paused before the critic's second
verdict (call 4: the actor drafted, the critic said REVISE, the actor revised). A participant takes it
from there: calls 1-3 are the trainer's to the byte, call 4 on is their own run.
"""

from __future__ import annotations

import time

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.fork import ForkError, fork, fork_inputs, recorded_reply
from agent_core.offline import OfflineModel
from agent_core.stepping import Breakpoints, RunHandle
from pages.ui import room_fork
from tests.app_pages import open_page

LANGS = ["en", "zh"]


def wait_for(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def trainer_at_second_critic(lang: str = "en") -> tuple[dict, list[ev.Event]]:
    """The trainer's primes run, paused before the critic's second call, as a seat has it: the
    room's run meta and the events streamed so far."""
    config, task = ac.for_scenario("primes", lang)
    handle = RunHandle.for_run(task, config, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"critic"})))
    handle.start()
    wait_for(lambda: handle.paused)
    assert handle.pending.call == 2
    handle.resume()
    wait_for(lambda: handle.paused and handle.pending.call == 4)
    events = handle.drain()
    handle.stop()
    handle.join(10)
    run = {"run_id": "trainer-run-1", "task": task, "config": config.to_dict(), "models": {}, "bound": 7}
    return run, events


def calls(events: list[ev.Event]) -> list[ev.LlmCall]:
    return [e for e in events if isinstance(e, ev.LlmCall)]


def served(call: ev.LlmCall) -> tuple:
    """What makes a call the same call: who made it, on which model, what it was sent and what it got."""
    return (call.role, call.model, call.messages, call.new_messages, call.reply_message)


# --- where a seat's fork starts ---------------------------------------------------------------------


def test_a_paused_run_forks_at_the_call_it_waits_before():
    _run, events = trainer_at_second_critic()
    assert len(calls(events)) == 3 and not any(isinstance(e, ev.RunFinished) for e in events)
    assert room_fork.fork_point(events) == room_fork.Point(4, "critic", True)
    assert recorded_reply(events, 4).text == ""  # no reply recorded yet: the editor starts empty
    with pytest.raises(ForkError, match="calls 1 to 4"):
        fork_inputs(events, 5)


def test_a_finished_run_forks_at_its_last_call_and_nothing_after_it():
    config, task = ac.for_scenario("primes", "en")
    events = list(ac.stream(task, config, OfflineModel()))
    made = calls(events)
    assert room_fork.fork_point(events) == room_fork.Point(len(made), made[-1].role, False)
    with pytest.raises(ForkError, match=f"no call {len(made) + 1}"):
        fork_inputs(events, len(made) + 1)


def test_before_its_first_call_there_is_nothing_to_fork():
    config, task = ac.for_scenario("primes", "en")
    started = next(iter(ac.stream(task, config, OfflineModel())))
    assert room_fork.fork_point([started]) is None


def test_the_core_fork_of_a_paused_run_serves_every_recorded_call_and_goes_on_live():
    run, events = trainer_at_second_critic()
    stream, recorded = fork(events, 4, ac.config_from_dict(run["config"]), OfflineModel())
    forked = list(stream)
    assert [served(c) for c in calls(forked)[:3]] == [served(c) for c in calls(events)]
    assert recorded.first_difference is None  # the prefix's requests are the trainer's
    assert calls(forked)[3].role == "critic" and forked[-1].reason == "pass"


# --- "Take it from here" into the participant's Playground ---------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_take_it_from_here_runs_the_trainers_prefix_in_the_participants_playground(lang):
    run, events = trainer_at_second_critic(lang)
    target = room_fork.fork_target(run, events, room_fork.fork_point(events))
    at = open_page("pages/playground.py", sb_lang=lang, fork_target=target)
    nonce = at.session_state["fork_target"]["nonce"]
    assert at.toggle(key=f"fork_live_{nonce}").value is True  # the pending critic call goes to their model
    at.button(key=f"fork_run_{nonce}").click().run()
    assert not at.exception, [e.message for e in at.exception]
    wait_for(lambda: not at.session_state["pg_runs"][-1].active)
    at.run()
    record = at.session_state["pg_runs"][-1]
    assert record.fork["run_id"] == "trainer-run-1" and record.fork["at"] == 4 and not record.fork["edited"]
    mine = record.typed_events()
    assert [served(c) for c in calls(mine)[:3]] == [served(c) for c in calls(events)]
    assert calls(mine)[3].role == "critic" and len(calls(mine)) > 3
    assert mine[-1].reason == "pass"
