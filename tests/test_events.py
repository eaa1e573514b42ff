"""Events and traces survive a JSON round trip; bad traces are refused with a clear message."""

import dataclasses
import inspect
import json

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import trace
from agent_core.errors import TraceFormatError

SAMPLES = [
    ev.RunStarted(t=0.0, pattern="react", task="任务", max_llm_calls=9),
    ev.LlmCall(t=0.1, step=1, role="actor", model="m", prompt_tokens=10, completion_tokens=3, latency_ms=12.5),
    ev.Token(t=0.1, step=1, role="actor", text="Hel"),
    ev.Thought(t=0.2, step=1, text="I should look it up"),
    ev.ToolCallEvent(t=0.2, step=1, name="weather", arguments={"city": "北京"}, call_id="c1"),
    ev.ToolResult(t=0.3, step=1, name="weather", output='{"error": "x"}', is_error=True, call_id="c1"),
    ev.PlanEvent(
        t=0.3, steps=({"id": 1, "description": "query", "tool": "query_order", "critical": False},), revision=1
    ),
    ev.StepStarted(t=0.3, step=1, step_id=1, description="query", attempt=1),
    ev.StepFinished(t=0.4, step=1, step_id=1, status="failed", result="syncing"),
    ev.VerdictEvent(t=0.4, role="reflector", verdict="REPLAN", analysis="a", suggestion="s", parsed=False),
    ev.Draft(t=0.5, version=1, text="def f(): pass"),
    ev.FinalAnswer(t=0.6, text="done"),
    ev.LimitReached(t=0.6, limit="max_rounds", value=3, message="m"),
    ev.RunFailed(t=0.6, error_type="timeout", message="slow"),
    ev.RunFinished(t=0.7, reason="cap", llm_calls=2, total_tokens=13, elapsed_ms=700.0),
    ev.Paused(t=0.8, at="call", role="critic", call=2, reason="breakpoint"),
    ev.Resumed(t=0.9, action="step"),
    ev.Edited(t=0.9, role="critic", call=2, what="template", template="critic"),
    ev.HumanReply(
        t=0.9, role="judge", call=3, text='{"passed": true}', tool_calls=({"name": "search", "arguments": "{}"},)
    ),
    ev.TreeNode(
        t=1.0,
        step=2,
        node=3,
        parent=1,
        depth=2,
        summary="floor(x + 0.5)",
        value=0.6,
        visits=1,
        status="failed",
        uct=None,
        note="the float is below the half",
    ),
]


def test_every_kind_has_a_sample():
    assert {e.kind for e in SAMPLES} == set(ev.EVENT_KINDS)


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.kind)
def test_event_round_trips_through_json(event):
    data = json.loads(json.dumps(event.to_dict()))
    assert data["kind"] == event.kind
    assert ev.event_from_dict(data) == event


def test_events_are_frozen():
    with pytest.raises(AttributeError):
        SAMPLES[0].task = "changed"  # type: ignore[misc]


def test_event_from_dict_rejects_unknown_kind_and_wrong_types():
    with pytest.raises(ev.EventFormatError, match="unknown event kind"):
        ev.event_from_dict({"kind": "nope"})
    with pytest.raises(ev.EventFormatError, match="llm_call.prompt_tokens should be int"):
        ev.event_from_dict({"kind": "llm_call", "prompt_tokens": "many"})
    with pytest.raises(ev.EventFormatError, match="tool_result.is_error should be bool"):
        ev.event_from_dict({"kind": "tool_result", "is_error": 1})


def test_trace_of_a_real_run_round_trips_and_drops_tokens():
    config, task = ac.for_scenario("weather-report", max_reflection_rounds=2)
    models = ac.ModelRouter(ac.OfflineModel())
    events = list(ac.stream(task, config, models))
    tr = trace.Trace.of(config.to_dict(), events, models.names())
    loaded = trace.loads(tr.dumps())
    assert loaded.config["pattern"] == "react" and loaded.config["models"] == {"default": "offline-scripted"}
    assert loaded.events == [e for e in events if e.kind != "token"]
    assert loaded.result["reason"] == "cap"
    assert loaded.result["final_answer"].startswith("Weather analysis report")


def test_timestamps_are_run_relative_and_ordered():
    config, task = ac.for_scenario("dentist-booking")
    events = list(ac.stream(task, config, ac.OfflineModel()))
    times = [e.t for e in events]
    assert times[0] < 0.5 and times == sorted(times)


def test_dumps_redacts_a_secret_it_is_told_about():
    events = [ev.RunStarted(task="key sk-test-ABCDEFGHIJKLMNOP"), ev.RunFinished()]
    text = trace.Trace.of({"pattern": "react"}, events).dumps(secrets=["sk-test-ABCDEFGHIJKLMNOP"])
    assert "sk-test-ABCDEFGHIJKLMNOP" not in text and "[redacted]" in text


@pytest.mark.parametrize(
    "payload, message",
    [
        (b"not json", "not a JSON file"),
        (b"[1, 2]", "JSON object"),
        (json.dumps({"version": 1, "config": {}}).encode(), "missing field"),
        (json.dumps({"version": 99, "config": {}, "events": []}).encode(), "version 99 is not supported"),
        (json.dumps({"version": 1, "config": [], "events": []}).encode(), "config must be an object"),
        (json.dumps({"version": 1, "config": {}, "events": [{"kind": "bogus"}]}).encode(), "event 0"),
        (("[" * 50_000 + "]" * 50_000).encode(), "nested"),
        (
            json.dumps(
                {
                    "version": 1,
                    "config": {"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
                    "events": [],
                }
            ).encode(),
            "nested more than",
        ),
        (b" " * (trace.MAX_BYTES + 1), "limited to 5 MB"),
    ],
)
def test_bad_traces_are_refused_with_a_clear_message(payload, message):
    with pytest.raises(TraceFormatError, match=message):
        trace.loads(payload)


@pytest.mark.parametrize("cls", list(ev.EVENT_TYPES.values()), ids=lambda c: c.kind)
def test_fast_init_builds_what_the_dataclass_would(cls):
    """events._fast_init swaps each class's __init__ for a faster one: same fields, defaults and result."""
    fields = dataclasses.fields(cls)
    assert [p for p in inspect.signature(cls.__init__).parameters][1:] == [f.name for f in fields]
    default = cls()
    assert all(getattr(default, f.name) == f.default for f in fields)
    values = {f.name: (f"v-{f.name}" if isinstance(f.default, str) or f.default is None else f.default) for f in fields}
    built = cls(**values)
    assert dataclasses.asdict(built) == values
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.t = 9.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        cls(no_such_field=1)


def test_a_role_is_any_patterns_name_and_a_trace_holds_nothing_else():
    # a new pattern's roles need no edit to the events: any well-formed name is a role ...
    call = ev.event_from_dict({"kind": "llm_call", "role": "worker_2"})
    assert call.role == "worker_2"
    # ... and a file cannot put anything else there: not a number, not 5 MB, not markup
    for bad in (5, "", "Critic", "x" * 5_000_000, "<script>", "a b", None):
        with pytest.raises(ev.EventFormatError, match="role"):
            ev.event_from_dict({"kind": "llm_call", "role": bad})
