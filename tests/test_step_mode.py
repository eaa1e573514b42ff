"""Step mode: pause before the critic speaks, show the room its prompt, answer it yourself, step one
call at a time — and the run ends exactly as it would have, within the same call bound."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import threading
import time

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.messages import Message
from agent_core.offline import OfflineModel
from agent_core.patterns import registry
from agent_core.stepping import Breakpoints, RunHandle
from agent_core.testing import ScriptedModel


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def paused(handle):
    wait_for(lambda: handle.paused or not handle.alive)
    return handle.pending


def finish(handle):
    assert handle.join(10)
    return [e for e in handle.drain() if not isinstance(e, ev.Token)]


def timeless(events, drop_kinds=("paused", "resumed")):
    drop = {"t", "latency_ms", "elapsed_ms"}
    return [
        {k: v for k, v in e.to_dict().items() if k not in drop}
        for e in events
        if e.kind not in drop_kinds and e.kind != "token"
    ]


def test_primes_pauses_before_the_critic_with_draft_zero_and_a_person_passes_it():
    config, task = ac.for_scenario("primes", "en")
    handle = RunHandle.for_run(task, config, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"critic"})))
    pending = paused(handle.start())
    assert (pending.at, pending.role, pending.call) == ("call", "critic", 2)
    draft = next(e for e in handle.drain() if isinstance(e, ev.Draft))
    assert draft.text in pending.messages[-1].content, "the critic's full prompt, draft 0 inside it"
    handle.answer(registry.role("critic").verdict_reply("PASS"))
    events = finish(handle)
    assert events[-1].reason == "pass" and events[-1].llm_calls == 2
    (human,) = [e for e in events if isinstance(e, ev.HumanReply)]
    assert human.role == "critic" and json.loads(human.text)["verdict"] == "PASS"
    assert [e.model for e in events if isinstance(e, ev.LlmCall)] == ["person"]  # call 1 was drained before


def test_order_99999_stepped_one_call_at_a_time_names_every_role_and_ends_as_the_plain_run():
    config, task = ac.for_scenario("order-99999", "en")
    plain = list(ac.stream(task, config, OfflineModel()))
    roles = [e.role for e in plain if isinstance(e, ev.LlmCall)]
    handle = RunHandle.for_run(task, config, OfflineModel(), breakpoints=Breakpoints(every_call=True)).start()
    seen, events = [], []
    while True:
        pending = paused(handle)
        events += handle.drain()
        if pending is None:
            break
        if pending.at == "call":
            seen.append(pending.role)
        handle.step()
    events += finish(handle)
    assert seen == roles
    assert timeless(events) == timeless(plain)


def test_a_person_in_the_judge_role_from_the_cli_reads_both_verdicts_from_standard_input(tmp_path):
    out = tmp_path / "t.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_core",
            "run",
            "--pattern",
            "react",
            "--scenario",
            "weather-report",
            "--reflection-rounds",
            "2",
            "--human",
            "judge",
            "--trace-out",
            str(out),
        ],
        input="REVISE: add the warning level\nPASS\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "finished (pass)" in proc.stdout
    events = json.loads(out.read_text(encoding="utf-8"))["events"]
    humans = [e for e in events if e["kind"] == "human_reply"]
    assert [json.loads(h["text"]) for h in humans] == [
        {"passed": False, "feedback": "add the warning level"},
        {"passed": True, "feedback": ""},
    ]
    assert [e["kind"] for e in events].count("paused") == 2


def never_pass(request):
    return (
        json.dumps({"passed": False, "feedback": "more"})
        if request.role == "judge"
        else f"answer {len(request.messages)}"
    )


def test_a_hand_answered_run_never_exceeds_its_call_bound():
    config = ac.configure(pattern="react", max_rounds=6, max_reflection_rounds=3)
    handle = RunHandle.for_run(
        "task", config, ScriptedModel.forever(never_pass), breakpoints=Breakpoints(people=frozenset({"judge"}))
    ).start()
    while paused(handle) is not None:
        handle.answer(registry.role("judge").verdict_reply("REVISE: not good enough"))
    events = finish(handle)
    assert events[-1].llm_calls <= ac.call_bound(config)
    assert sum(isinstance(e, ev.HumanReply) for e in events) == 3


def test_an_edited_call_is_what_the_model_gets_and_what_the_record_shows():
    model = ScriptedModel(["The answer."])
    handle = RunHandle.for_run(
        "What is 2 + 2?", ac.configure(pattern="react"), model, breakpoints=Breakpoints(every_call=True)
    ).start()
    pending = paused(handle)
    edited = (*pending.messages[:-1], Message("user", "What is 3 + 3?"))
    handle.send(edited)
    events = finish(handle)
    assert model.requests[0].messages[-1].content == "What is 3 + 3?"
    (edit,) = [e for e in events if isinstance(e, ev.Edited)]
    assert (edit.what, edit.call) == ("messages", 1)
    call = next(e for e in events if isinstance(e, ev.LlmCall))
    assert any(m["content"] == "What is 3 + 3?" for m in call.new_messages)


def test_a_template_edited_at_a_pause_is_used_from_there_on():
    config, task = ac.for_scenario("primes", "en")
    handle = RunHandle.for_run(task, config, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"refiner"})))
    paused(handle.start())
    handle.send(template=("critic", "STRICT REVIEW. {task}\n{draft}"))
    events = finish(handle)
    critics = [e for e in events if isinstance(e, ev.LlmCall) and e.role == "critic"]
    assert critics, "a critic call follows the refinement"
    sent = critics[-1].new_messages[0]
    assert sent["content"].startswith("STRICT REVIEW.") and sent["edited"] is True
    assert any(isinstance(e, ev.Edited) and e.template == "critic" for e in events)


def test_a_paused_run_costs_no_cpu_and_ends_after_its_idle_time_with_its_thread_gone():
    config, task = ac.for_scenario("primes", "en")
    handle = RunHandle.for_run(
        task, config, OfflineModel(), breakpoints=Breakpoints(every_call=True), idle_timeout_s=0.6
    )
    threads = threading.active_count()
    paused(handle.start())
    before = resource.getrusage(resource.RUSAGE_SELF)
    time.sleep(0.3)
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 0.1
    events = finish(handle)
    assert handle.timed_out and events[-1].reason == "stop"
    assert threading.active_count() <= threads


@pytest.mark.parametrize("where", ["verdicts", "tools"])
def test_verdict_and_tool_breakpoints_pause_after_the_event_shows(where):
    config, task = ac.for_scenario("order-99999", "en")
    handle = RunHandle.for_run(task, config, OfflineModel(), breakpoints=Breakpoints(**{where: True})).start()
    pending = paused(handle)
    shown = handle.drain()
    assert pending.at == {"verdicts": "verdict", "tools": "tool"}[where]
    kind = ev.VerdictEvent if where == "verdicts" else ev.ToolCallEvent
    assert isinstance(shown[-1], ev.Paused) and isinstance(shown[-2], kind) and pending.event is shown[-2]
    handle.stop()
    events = finish(handle)
    assert events[-1].reason == "stop"


def test_step_mode_on_an_openai_compatible_endpoint_sends_the_edit_and_never_sends_the_persons_role():
    from agent_core.llm import OpenAICompatibleModel
    from tests.fake_openai_server import FakeOpenAIServer
    from tests.test_faults import sensible

    config = ac.configure(pattern="react", tools=("query_order",), max_reflection_rounds=1)
    with FakeOpenAIServer(default=sensible) as server:
        model = OpenAICompatibleModel(server.url, "fake-model", api_key="sk-test-not-a-real-key-000")
        handle = RunHandle.for_run(
            "Has order 10001 arrived?",
            config,
            model,
            breakpoints=Breakpoints(roles=frozenset({"actor"}), people=frozenset({"judge"})),
        )
        handle.start()
        while (pending := paused(handle)) is not None:
            if pending.role == "judge":
                handle.answer(registry.role("judge").verdict_reply("PASS"))
            elif pending.call == 1:
                handle.send((*pending.messages[:-1], Message("user", "Has order 10001 arrived? Answer briefly.")))
            else:
                handle.resume()
        events = finish(handle)
        sent = server.bodies
    assert events[-1].reason == "pass"
    assert sent[0]["messages"][-1]["content"] == "Has order 10001 arrived? Answer briefly."
    judge_calls = [e for e in events if isinstance(e, ev.LlmCall) and e.role == "judge"]
    assert [c.model for c in judge_calls] == ["person"]
    assert len(sent) == sum(isinstance(e, ev.LlmCall) and e.role != "judge" for e in events)


def test_a_run_stops_soon_after_its_owner_goes_away_running_or_paused():
    there = [True]
    config, task = ac.for_scenario("primes", "en")
    handle = RunHandle.for_run(
        task, config, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"critic"})), owner_alive=lambda: there[0]
    )
    paused(handle.start())
    there[0] = False  # the tab closed while the run waited for a person
    events = finish(handle)
    assert events[-1].reason == "stop" and not handle.timed_out

    there[0] = True
    slow = RunHandle.for_run(task, config, OfflineModel(tokens_per_second=20), owner_alive=lambda: there[0]).start()
    time.sleep(0.3)
    there[0] = False  # the tab closed while a reply streamed
    started = time.monotonic()
    assert slow.join(5) and time.monotonic() - started < 2.5
    assert [e for e in slow.drain() if isinstance(e, ev.RunFinished)][-1].reason == "stop"
