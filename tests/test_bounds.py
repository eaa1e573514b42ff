"""Bounded calls: the output cap on every request, the token budget and the time limit
enforced while tokens stream, and fallbacks that say when a reply was cut at the cap."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import trace
from agent_core.errors import ConfigError
from agent_core.llm import OpenAICompatibleModel
from agent_core.messages import ChatRequest, Completion, Usage, estimate_prompt_tokens
from agent_core.offline import OfflineModel
from agent_core.testing import ScriptedModel, say, tool
from tests.fake_openai_server import FakeOpenAIServer, Reply


class Rambler:
    """A model that streams "word " until it is stopped (or 20,000 words), noting how it ended."""

    name = "rambler"

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.sent = 0
        self.closed = False
        self.requests: list[ChatRequest] = []

    def stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        self.requests.append(request)
        try:
            for _ in range(20_000):
                if self.delay:
                    time.sleep(self.delay)
                self.sent += 1
                yield "word "
            yield Completion("word " * 20_000, usage=Usage(10, 20_000), finish_reason="stop")
        finally:
            self.closed = True


def kinds(events: list[ev.Event]) -> list[str]:
    return [e.kind for e in events if e.kind != "token"]


# -- the output cap --------------------------------------------------------------------------------


def test_every_request_carries_the_output_cap_and_a_role_can_override_it():
    model = ScriptedModel(
        [
            say("", tool("weather", city="Beijing"), role="actor"),
            say("Sunny.", role="actor"),
            say('{"passed": true, "feedback": ""}', role="judge"),
        ]
    )
    config = ac.configure(
        pattern="react",
        tools=("weather",),
        max_reflection_rounds=1,
        max_output_tokens=300,
        max_output_tokens_by_role={"judge": 64},
    )
    result = ac.run("Weather in Beijing?", config, model)
    assert result.reason == "pass"
    assert [(r.role, r.max_tokens) for r in model.requests] == [("actor", 300), ("actor", 300), ("judge", 64)]


def test_the_default_cap_is_1024_and_zero_sends_none():
    assert ac.configure().output_cap("actor") == 1024
    assert ac.configure(max_output_tokens=0).output_cap("planner") is None


@pytest.mark.parametrize("caps", [{"boss": 10}, {"judge": -1}, {"judge": 40_000}, {"judge": True}, ["judge"]])
def test_bad_per_role_caps_are_refused_with_a_clear_message(caps):
    with pytest.raises(ConfigError, match="max_output_tokens_by_role"):
        ac.configure(max_output_tokens_by_role=caps)


def test_the_caps_travel_in_the_trace_and_load_back():
    config = ac.configure(
        pattern="reflection", max_output_tokens=200, max_output_tokens_by_role={"critic": 80}, max_seconds=30
    )
    events = list(ac.stream("Write a haiku.", config, OfflineModel()))
    loaded = trace.loads(trace.Trace.of(config.to_dict(), events).dumps())
    again = ac.config_from_dict(loaded.config)
    assert again.output_cap("critic") == 80 and again.output_cap("actor") == 200 and again.max_seconds == 30


def test_the_offline_model_honours_the_cap_and_reports_length():
    config, task = ac.for_scenario("report-criteria", "en", max_output_tokens=40)
    events = list(ac.stream(task, config, OfflineModel()))
    calls = [e for e in events if isinstance(e, ev.LlmCall)]
    assert calls and all(c.completion_tokens <= 40 for c in calls)
    assert any(c.finish_reason == "length" and c.cut_at_cap for c in calls)
    uncapped = [
        e for e in ac.stream(task, config.replace(max_output_tokens=0), OfflineModel()) if isinstance(e, ev.LlmCall)
    ]
    assert max(c.completion_tokens for c in uncapped) > 40 and not any(c.cut_at_cap for c in uncapped)


def test_a_verdict_cut_at_the_cap_says_so_in_its_fallback_en_and_zh():
    def junk_judge(request: ChatRequest) -> Iterator[str | Completion]:
        if request.role == "judge":
            yield Completion('{"passed": tr', usage=Usage(5, 6), finish_reason="length")
        else:
            yield Completion("Sunny.", usage=Usage(5, 2), finish_reason="stop")

    for lang, phrase in (("en", "cut at max_output_tokens (6)"), ("zh", "在 max_output_tokens（6）处被截断")):
        model = type("M", (), {"name": "m", "stream": staticmethod(junk_judge)})()
        config = ac.configure(
            pattern="react", lang=lang, max_reflection_rounds=1, max_output_tokens_by_role={"judge": 6}
        )
        events = list(ac.stream("Weather?", config, model))
        verdict = next(e for e in events if isinstance(e, ev.VerdictEvent))
        assert not verdict.parsed and phrase in verdict.analysis


def test_a_plan_cut_at_the_cap_says_so_in_the_plan_error():
    def cut_planner(request: ChatRequest) -> Iterator[str | Completion]:
        yield Completion("Sure! First I will look up the", usage=Usage(5, 8), finish_reason="length")

    model = type("M", (), {"name": "m", "stream": staticmethod(cut_planner)})()
    config = ac.configure(pattern="plan-execute", max_output_tokens_by_role={"planner": 8})
    events = list(ac.stream("Plan a trip.", config, model))
    failed = next(e for e in events if isinstance(e, ev.RunFailed))
    assert failed.error_type == "plan_error" and "cut at max_output_tokens (8)" in failed.message


# -- the token budget while streaming --------------------------------------------------------------


def test_the_token_budget_stops_a_rambling_reply_mid_stream_and_keeps_its_text():
    model = Rambler()
    config = ac.configure(pattern="reflection", max_total_tokens=300)
    events = list(ac.stream("Write a poem.", config, model))
    assert kinds(events)[-4:] == ["llm_call", "limit_reached", "final_answer", "run_finished"]
    assert events[-1].reason == "budget"
    limit = next(e for e in events if isinstance(e, ev.LimitReached))
    assert limit.limit == "max_total_tokens" and "while a actor reply was streaming" in limit.message
    call = next(e for e in events if isinstance(e, ev.LlmCall))
    assert call.partial_text.startswith("word word") and call.usage_estimated and call.finish_reason is None
    assert call.messages and call.new_messages and call.context is not None  # what it was sent is recorded
    # stopped at the budget (prompt estimate + 2 estimated tokens a word), not after 20,000 words
    prompt = estimate_prompt_tokens(model.requests[0].messages)
    assert model.sent == (300 - prompt) // 2 + 1 and model.closed
    assert events[-1].total_tokens == call.prompt_tokens + call.completion_tokens
    loaded = trace.loads(trace.Trace.of(config.to_dict(), events).dumps())
    assert next(e for e in loaded.events if isinstance(e, ev.LlmCall)).partial_text == call.partial_text


def test_the_token_budget_closes_a_real_http_stream_early():
    text = "All work and no play. " * 400
    with FakeOpenAIServer(default=Reply(text, chunks=400, chunk_delay=0.005)) as server:
        model = OpenAICompatibleModel(server.url, "fake-model", timeout=5, max_retries=0)
        started = time.perf_counter()
        events = list(ac.stream("Say it.", ac.configure(pattern="reflection", max_total_tokens=120), model))
        elapsed = time.perf_counter() - started
        time.sleep(0.1)
        disconnects = server.disconnects
    assert events[-1].reason == "budget" and elapsed < 1.5  # the whole reply takes 2 s to stream
    assert disconnects == 1, "closing the stream hangs up on the server"


# -- the time limit -------------------------------------------------------------------------------


def test_max_seconds_stops_a_slow_stream_while_it_streams():
    model = Rambler(delay=0.01)
    started = time.perf_counter()
    events = list(ac.stream("Write a poem.", ac.configure(pattern="reflection", max_seconds=1), model))
    assert time.perf_counter() - started < 1.6
    limit = next(e for e in events if isinstance(e, ev.LimitReached))
    assert limit.limit == "max_seconds" and limit.value == 1 and events[-1].reason == "budget"
    assert model.closed and next(e for e in events if isinstance(e, ev.LlmCall)).partial_text


def test_max_seconds_is_checked_between_calls():
    def slow_tool_loop(request: ChatRequest):
        time.sleep(0.3)
        return say("", tool("weather", city=f"City {len(request.messages)}"))  # never a repeated call

    model = ScriptedModel.forever(slow_tool_loop)
    config = ac.configure(pattern="react", tools=("weather",), max_rounds=30, max_seconds=1)
    events = list(ac.stream("Weather?", config, model))
    limit = next(e for e in events if isinstance(e, ev.LimitReached))
    assert limit.limit == "max_seconds" and "time limit max_seconds=1 s is up" in limit.message
    assert events[-1].reason == "budget" and 3 <= model.calls <= 5


def test_max_seconds_lowers_the_read_timeout_of_a_stalled_server():
    with FakeOpenAIServer(default=Reply("late", delay=5)) as server:
        model = OpenAICompatibleModel(server.url, "fake-model", timeout=60, max_retries=0)
        started = time.perf_counter()
        events = list(ac.stream("Hi", ac.configure(pattern="reflection", max_seconds=1), model))
        elapsed = time.perf_counter() - started
    assert elapsed < 2.5, "the 60 s read timeout must not outlast the run's time limit"
    assert events[-1].reason == "budget"
    assert next(e for e in events if isinstance(e, ev.LimitReached)).limit == "max_seconds"


def test_sdk_retries_never_take_a_stalled_call_past_the_time_limit():
    with FakeOpenAIServer(default=Reply("late", delay=8)) as server:
        model = OpenAICompatibleModel(server.url, "fake-model", timeout=60, max_retries=2)
        started = time.perf_counter()
        events = list(ac.stream("Hi", ac.configure(pattern="reflection", max_seconds=1), model))
        elapsed, attempts = time.perf_counter() - started, server.call_count
    assert elapsed < 2.5 and attempts == 1, (elapsed, attempts)  # 3 attempts took 4.4 s before
    assert next(e for e in events if isinstance(e, ev.LimitReached)).limit == "max_seconds"


def test_max_seconds_out_of_range_is_refused():
    with pytest.raises(ConfigError, match="max_seconds must be an integer from 0 to 86400"):
        ac.configure(max_seconds=-1)
    assert json.dumps(ac.configure(max_seconds=5).to_dict())  # serialisable for traces
