"""Faults from a real HTTP endpoint, for every pattern: a clear ending, nothing lost, bound kept.

A local OpenAI-compatible server on 127.0.0.1 answers like a sensible model (tools first, then JSON
plans and verdicts, then answers) and injects one fault on the second request. Every run must end
with a specific message or succeed after a retry, keep the events recorded before the fault, export
a valid trace, and stay within its call bound.
"""

from __future__ import annotations

import json
import socket

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import trace
from agent_core.llm import OpenAICompatibleModel
from tests.fake_openai_server import Fail, FakeCall, FakeOpenAIServer, Raw, RecordedRequest, Reply, big_reply

PATTERNS = ("react", "plan-execute", "reflection")


def sensible(request: RecordedRequest) -> Reply:
    """What a well-behaved model would say to each kind of prompt our patterns send."""
    body = request.body
    messages = body.get("messages", [])
    prompt = "\n".join(str(m.get("content") or "") for m in messages)
    if body.get("tools") and not any(m.get("role") == "tool" for m in messages):
        name = body["tools"][0]["function"]["name"]
        return Reply("Let me look that up.", (FakeCall(name, json.dumps({"order_id": "10001"})),))
    if '"steps"' in prompt:
        return Reply(
            json.dumps(
                {
                    "steps": [
                        {"id": 1, "description": "Look up order 10001", "tool": "query_order", "critical": False},
                        {"id": 2, "description": "Write the final reply", "tool": None, "critical": False},
                    ]
                }
            )
        )
    if '"passed"' in prompt:
        return Reply(json.dumps({"passed": True, "feedback": None}))
    if '"verdict"' in prompt:
        return Reply(json.dumps({"verdict": "PASS", "analysis": "fine", "suggestion": "", "feedback": ""}))
    return Reply("Order 10001 was delivered on 27 November.", chunks=3)


#: what a server sent before it closed the connection cleanly (a real server did so mid-answer)
PARTIAL = "Partial answer that never"

FAULTS = {
    # name: (behaviours for the 2nd request onwards, expected error code or None for success)
    "429 then ok": ([Fail(429, "slow down", retry_after=0.01)], None),
    "429 without retry-after then ok": ([Fail(429, "slow down")], None),
    "500": ([Fail(500, "boom")] * 2, "server_error"),
    "503": ([Fail(503, "overloaded")] * 2, "server_error"),
    "slow first byte": ([Reply("late", delay=3.0)] * 2, "timeout"),
    "stream cut mid-way": ([Reply("a long answer that breaks", chunks=6, cut_after=3)], "stream_cut"),
    "invalid JSON in a chunk": ([Reply("some text that breaks", chunks=5, bad_json_at=2)], "stream_cut"),
    # no transport error at all: the body just ends, with no finish reason and no [DONE]
    "connection closed cleanly after two chunks": (
        [Reply(PARTIAL + " reaches its final word.", chunks=4, end_after=3)],
        "stream_cut",
    ),
    "empty body": ([Raw(b"", 200, "text/event-stream")] * 2, "any"),
    "unknown tool": ([Reply("", (FakeCall("teleport", "{}"),))], None),
    "invalid JSON arguments": ([Reply("", (FakeCall("query_order", "{order_id: 99"),))], None),
    "arguments over the limit": ([Reply("", (FakeCall("query_order", json.dumps({"order_id": "9" * 2500})),))], None),
    "1 MB reply": ([big_reply()], None),
}


def config_for(pattern: str) -> ac.RunConfig:
    return ac.configure(
        pattern=pattern,
        tools=("query_order",),
        max_rounds=4,
        max_reflection_rounds=1,
        reflector=True,
        max_iterations=2,
        max_step_retries=1,
        max_replans=1,
    )


def run_against(server: FakeOpenAIServer, pattern: str, **model_options) -> tuple[list[ev.Event], ac.RunConfig]:
    model = OpenAICompatibleModel(
        server.url,
        "fake-model",
        api_key="sk-test-FAULTS0123456789",
        timeout=model_options.pop("timeout", 1.0),
        max_retries=1,
        **model_options,
    )
    config = config_for(pattern)
    return list(ac.stream("Has order 10001 arrived?", config, model)), config


def assert_well_formed(events: list[ev.Event], config: ac.RunConfig) -> None:
    assert events[0].kind == "run_started" and events[-1].kind == "run_finished"
    assert events[-2].kind in ("final_answer", "run_failed")
    assert sum(isinstance(e, ev.LlmCall) for e in events) <= ac.call_bound(config)
    assert events[-1].llm_calls <= ac.call_bound(config)
    exported = trace.Trace.of(config.to_dict(), events, {"default": "fake-model"}).dumps(
        secrets=["sk-test-FAULTS0123456789"]
    )
    assert "sk-test-FAULTS0123456789" not in exported
    assert trace.loads(exported).events == [e for e in events if e.kind != "token"]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("fault", list(FAULTS))
def test_fault_on_the_second_call(pattern, fault):
    behaviours, expected = FAULTS[fault]
    with FakeOpenAIServer(default=sensible) as server:
        server.push(sensible, *behaviours)
        events, config = run_against(server, pattern)
    assert_well_formed(events, config)
    first_call = next(i for i, e in enumerate(events) if isinstance(e, ev.LlmCall))
    assert first_call > 0, "the events of the first call are kept"
    failed = [e for e in events if isinstance(e, ev.RunFailed)]
    if expected is None:
        assert not failed, failed
    elif expected == "any":
        assert all(f.error_type in {"malformed_response", "stream_cut", "plan_error"} for f in failed)
    else:
        assert [f.error_type for f in failed] == [expected]
        assert "sk-test-FAULTS" not in failed[0].message and len(failed[0].message) > 20


@pytest.mark.parametrize("pattern", PATTERNS)
def test_connection_refused_fails_at_once_with_the_address(pattern):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAICompatibleModel(f"http://127.0.0.1:{port}/v1", "fake-model", timeout=1.0, max_retries=0)
    config = config_for(pattern)
    events = list(ac.stream("Has order 10001 arrived?", config, model))
    assert_well_formed(events, config)
    failed = events[-2]
    assert failed.error_type == "connection_error" and f"127.0.0.1:{port}" in failed.message


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_healthy_endpoint_runs_every_pattern_to_an_answer(pattern):
    with FakeOpenAIServer(default=sensible) as server:
        events, config = run_against(server, pattern)
        sent = server.bodies
    assert_well_formed(events, config)
    assert events[-2].kind == "final_answer" and events[-2].text
    assert all(body["stream"] is True for body in sent)


def cut_answers(request: RecordedRequest) -> Reply:
    """A sensible model whose answers (not its tool calls, plans or verdicts) end after two chunks."""
    reply = sensible(request)
    if reply.tool_calls or reply.text.startswith("{"):
        return reply
    return Reply(PARTIAL + " reaches its final word.", chunks=4, end_after=3)


@pytest.mark.parametrize(
    "pattern,options",
    [
        ("react", {"max_reflection_rounds": 0}),
        ("react", {"max_reflection_rounds": 1}),  # ReAct + judge: the judge must never see the fragment
        ("plan-execute", {}),
        ("reflection", {}),
    ],
    ids=["react", "react+judge", "plan-execute", "reflection"],
)
def test_an_answer_cut_cleanly_after_two_chunks_ends_the_run_with_stream_cut(pattern, options):
    with FakeOpenAIServer(default=cut_answers) as server:
        model = OpenAICompatibleModel(server.url, "fake-model", timeout=2.0, max_retries=0)
        config = config_for(pattern).replace(**options)
        events = list(ac.stream("Has order 10001 arrived?", config, model))
    assert_well_formed(events, config)
    failed = [e for e in events if isinstance(e, ev.RunFailed)]
    assert [f.error_type for f in failed] == ["stream_cut"]
    assert "without a finish reason" in failed[0].message
    assert not any(isinstance(e, ev.FinalAnswer) for e in events), "a fragment is never the final answer"
    assert not any(isinstance(e, (ev.VerdictEvent, ev.Draft)) and PARTIAL in str(e) for e in events)
    assert events[-1].reason == "error"
    cut = [e for e in events if isinstance(e, ev.LlmCall) and e.partial_text]
    assert [c.partial_text for c in cut] == [PARTIAL] and cut[0].finish_reason is None
    exported = trace.loads(trace.Trace.of(config.to_dict(), events).dumps())
    assert any(getattr(e, "partial_text", "") == PARTIAL for e in exported.events), "the fragment is in the trace"
