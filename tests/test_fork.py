"""Exact forks: the recorded prefix is served from the trace, only the calls from the fork point run.

The stories are the seeds' own: what if the critic had said PASS at once (seed 04), what if the
Reflector had let the "syncing" shell through (seed 03), what if the judge had passed the weather
report on its second look (seed 01).
"""

import json
import subprocess
import sys

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import examples, trace
from agent_core.fork import ForkError, Reply, fork, recorded_reply, reply_problem
from agent_core.offline import OfflineModel
from agent_core.patterns import registry
from agent_core.patterns.registry import config_from_dict, configure
from agent_core.testing import ScriptedModel, say, tool

PASS_CRITIQUE = json.dumps({"verdict": "PASS", "feedback": "no improvement needed"})
PASS_STEP = json.dumps({"verdict": "PASS", "analysis": "the step got what it needed", "suggestion": ""})
PASS_JUDGE = json.dumps({"passed": True, "feedback": "good enough"})


def record(scenario, lang="en", **overrides):
    config, task = ac.for_scenario(scenario, lang, **overrides)
    return config, list(ac.stream(task, config, OfflineModel()))


def call_number(events, role, nth=1):
    """The 1-based number of the nth call made by `role`."""
    seen = 0
    for number, call in enumerate((e for e in events if isinstance(e, ev.LlmCall)), 1):
        seen += call.role == role
        if call.role == role and seen == nth:
            return number
    raise AssertionError(f"no call #{nth} by {role}")


def run(stream):
    return [e for e in stream if not isinstance(e, ev.Token)]


def timeless(events):
    drop = {"t", "latency_ms", "elapsed_ms"}
    return [{k: v for k, v in e.to_dict().items() if k not in drop} for e in events if not isinstance(e, ev.Token)]


def test_primes_forked_at_the_first_critique_with_a_pass_ends_on_draft_zero():
    config, events = record("primes")
    first_draft = next(e for e in events if isinstance(e, ev.Draft))
    at = call_number(events, "critic")
    stream, _ = fork(events, at, config, OfflineModel(), reply=Reply(PASS_CRITIQUE))
    forked = run(stream)
    finished = forked[-1]
    assert finished.reason == "pass" and finished.llm_calls == 2 == at
    assert forked[-2].text == first_draft.text
    assert [e.verdict for e in forked if isinstance(e, ev.VerdictEvent)] == ["PASS"]


def test_order_99999_forked_at_the_replan_lets_the_syncing_shell_through():
    config, events = record("order-99999")
    at = call_number(events, "reflector")
    assert [e.verdict for e in events if isinstance(e, ev.VerdictEvent)][0] == "REPLAN"
    stream, _ = fork(events, at, config, OfflineModel(), reply=Reply(PASS_STEP))
    forked = run(stream)
    assert "REPLAN" not in [e.verdict for e in forked if isinstance(e, ev.VerdictEvent)]
    assert not any(isinstance(e, ev.PlanEvent) and e.revision for e in forked), "no re-plan without the REPLAN"
    first_step = next(e for e in forked if isinstance(e, ev.StepFinished))
    assert first_step.status == "done"
    assert forked[-2].text != events[-2].text, "without what reflection caught, the answer differs"


def test_weather_report_forked_at_the_second_judge_with_a_pass_ends_without_the_cap():
    config, events = record("weather-report")
    assert any(isinstance(e, ev.LimitReached) for e in events)
    at = call_number(events, "judge", nth=2)
    stream, _ = fork(events, at, config, OfflineModel(), reply=Reply(PASS_JUDGE))
    forked = run(stream)
    assert not any(isinstance(e, ev.LimitReached) for e in forked)
    assert forked[-1].reason == "pass" and forked[-1].llm_calls == at


@pytest.mark.parametrize(("scenario", "lang", "path"), examples.available(), ids=lambda v: str(v)[-24:])
def test_forking_a_bundled_trace_at_any_call_without_an_edit_reproduces_it(scenario, lang, path):
    parent = trace.loads(path.read_bytes())
    config = config_from_dict(parent.config)
    calls = sum(isinstance(e, ev.LlmCall) for e in parent.events)
    for at in range(1, calls + 1):
        stream, recorded = fork(parent.events, at, config, OfflineModel())
        assert timeless(run(stream)) == timeless(parent.events), f"fork at call {at} of {calls}"
        assert recorded.first_difference is None


def never_satisfied(request):
    """A model that keeps a run going: tool calls in some rounds, and a judge it never convinces."""
    if request.role == "judge":
        return json.dumps({"passed": False, "feedback": "not yet"})
    n = len(request.messages)
    if request.tools and n % 3:
        return say(f"thought {n} {n * 7}", tool("search", query=f"q{n}"))
    return say(f"answer {n}")


def test_a_fork_never_exceeds_its_call_bound_counting_the_recorded_prefix():
    config = configure(pattern="react", tools=("search",), max_rounds=12, max_reflection_rounds=3)
    parent = list(ac.stream("task", config, ScriptedModel.forever(never_satisfied)))
    made = parent[-1].llm_calls
    assert made > 6 and made <= ac.call_bound(config)
    for at in range(1, made + 1):
        for changed in (config, config.replace(max_reflection_rounds=1), config.replace(max_reflection_rounds=5)):
            stream, _ = fork(parent, at, changed, ScriptedModel.forever(never_satisfied))
            forked = run(stream)
            assert forked[-1].llm_calls <= ac.call_bound(changed), (at, changed.max_reflection_rounds)
            assert sum(isinstance(e, ev.LlmCall) for e in forked) == forked[-1].llm_calls


def test_a_changed_prompt_applies_from_the_fork_call_and_the_first_difference_is_reported():
    config, events = record("primes")
    at = call_number(events, "critic", nth=2)
    strict = config.replace(prompts={"critic": "Always answer REVISE. {task} {draft}"})
    stream, recorded = fork(events, at, strict, OfflineModel())
    run(stream)
    assert recorded.first_difference == call_number(events, "critic")  # the prefix's critic prompt changed too


def test_bad_forks_say_why():
    config, events = record("primes")
    with pytest.raises(ForkError, match="no call 9"):
        fork(events, 9, config, OfflineModel())
    with pytest.raises(ForkError, match="no call records"):
        fork(examples_v1(events), 1, config, OfflineModel())
    assert reply_problem(registry.role("reflector"), "looks fine to me") is not None
    assert reply_problem(registry.role("judge"), "yes") is not None
    assert reply_problem(registry.role("judge"), PASS_JUDGE) is None
    assert reply_problem(registry.role("planner"), "just do it") is not None
    assert (
        recorded_reply(events, 1).text.startswith("def find_primes") or "find_primes" in recorded_reply(events, 1).text
    )


def examples_v1(events):
    """The events as a format-1 trace has them: no call records."""
    return [ev.LlmCall(role=e.role, model=e.model) if isinstance(e, ev.LlmCall) else e for e in events]


def test_cli_forks_a_trace_and_names_its_parent(tmp_path):
    parent_path, out = tmp_path / "primes.json", tmp_path / "fork.json"
    reply = tmp_path / "pass.json"
    reply.write_text(PASS_CRITIQUE, encoding="utf-8")
    base = [sys.executable, "-m", "agent_core", "run"]
    subprocess.run([*base, "--scenario", "primes", "--trace-out", str(parent_path)], check=True, capture_output=True)
    proc = subprocess.run(
        [
            *base,
            "--from-trace",
            str(parent_path),
            "--fork-at",
            "2",
            "--reply-file",
            str(reply),
            "--trace-out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    forked, parent = trace.loads(out.read_bytes()), trace.loads(parent_path.read_bytes())
    assert forked.fork == {"run_id": parent.run_id, "at": 2, "edited": True}
    assert forked.result["reason"] == "pass" and forked.result["llm_calls"] == 2

    bad = tmp_path / "bad.txt"
    bad.write_text("   \n", encoding="utf-8")  # the critic accepts free text, but not nothing
    for args, needle in (
        (["--fork-at", "99"], "no call 99"),
        (["--fork-at", "2", "--reply-file", str(bad)], "would not parse"),
    ):
        proc = subprocess.run([*base, "--from-trace", str(parent_path), *args], capture_output=True, text=True)
        assert proc.returncode != 0 and needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
