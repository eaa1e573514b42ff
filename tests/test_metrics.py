"""Run metrics: the weather report (seed 01) and the primes refinement (seed 04) counted, timed and charted,
plus runs that stopped half-way or failed."""

import subprocess
import sys

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import metrics
from agent_core.errors import EndpointConnectionError


def play(scenario, **overrides):
    config, task = ac.for_scenario(scenario, **overrides)
    return ac.run(task, config, ac.OfflineModel()).events


@pytest.fixture(scope="module")
def weather():
    return play("weather-report")


@pytest.fixture(scope="module")
def primes():
    return play("primes")


class Down:
    """A model whose endpoint cannot be reached."""

    name = "down"

    def stream(self, request):
        raise EndpointConnectionError("cannot reach http://127.0.0.1:9/v1: connection refused")
        yield  # a generator, like every ChatModel


def test_weather_report_summary_matches_the_closing_event(weather):
    s = metrics.summary(weather)
    finished = weather[-1]
    assert isinstance(finished, ev.RunFinished)
    assert (s.llm_calls, s.total_tokens, s.end_reason) == (finished.llm_calls, finished.total_tokens, "cap")
    assert s.prompt_tokens + s.completion_tokens == s.total_tokens
    assert s.elapsed_s == pytest.approx(finished.elapsed_ms / 1000, abs=1e-3)
    assert (s.pattern, s.max_llm_calls, s.llm_calls) == (
        "react",
        ac.call_bound(ac.for_scenario("weather-report")[0]),
        6,
    )
    assert (s.tool_calls, s.tool_errors, s.drafts) == (4, 0, 2)  # each judged answer is a draft
    assert s.verdicts == {"REVISE": 2} and s.fallback_verdicts == 0
    assert s.limits == ("max_reflection_rounds",) and s.finished and s.usage_estimated
    answer = next(e for e in weather if isinstance(e, ev.FinalAnswer))
    assert s.final_answer_chars == len(answer.text) > 200


def test_primes_summary_counts_drafts_and_the_passing_critique(primes):
    s = metrics.summary(primes)
    assert (s.pattern, s.drafts, s.end_reason, s.llm_calls) == ("reflection", 2, "pass", 4)
    assert s.verdicts == {"REVISE": 1, "PASS": 1} and s.limits == ()


def test_order_99999_counts_the_replan_the_retry_and_the_pass():
    events = play("order-99999")
    s = metrics.summary(events)
    assert s.verdicts == {"REPLAN": 1, "RETRY": 1, "PASS": 1} and s.end_reason == "pass"
    assert (s.tool_calls, s.llm_calls) == (1, 9)
    frame = metrics.tokens_per_step(events)
    # planning, step 1, re-planning, then step 4 (the new synthesis step) with its retry
    assert frame["step"].isna().tolist() == [True, False, True, False] and frame["step"].dropna().tolist() == [1, 4]
    assert list(frame["roles"]) == ["planner", "executor, reflector", "planner", "synthesizer, reflector"]
    assert list(metrics.by_role(events)["role"]) == ["planner", "executor", "reflector", "synthesizer"]


def test_by_role_splits_the_actor_from_the_judge(weather):
    frame = metrics.by_role(weather)
    assert list(frame.columns) == list(metrics.ROLE_COLUMNS)
    assert list(frame["role"]) == ["actor", "judge"] and list(frame["calls"]) == [4, 2]
    assert frame["total_tokens"].sum() == metrics.summary(weather).total_tokens
    assert (frame["prompt_tokens"] + frame["completion_tokens"] == frame["total_tokens"]).all()
    assert frame["estimated"].all() and set(frame["model"]) == {"offline-scripted"}
    row = frame.iloc[0]
    assert row["latency_ms_mean"] == pytest.approx(row["latency_ms_total"] / row["calls"], abs=0.1)


def test_by_role_keeps_two_models_of_one_role_apart():
    calls = [
        ev.LlmCall(t=1.0, role="executor", model="fast", prompt_tokens=10, completion_tokens=5, latency_ms=100),
        ev.LlmCall(t=2.0, role="planner", model="strong", prompt_tokens=50, completion_tokens=20, latency_ms=900),
        ev.LlmCall(t=3.0, role="executor", model="strong", prompt_tokens=12, completion_tokens=6, latency_ms=300),
        ev.LlmCall(t=4.0, role="executor", model="fast", prompt_tokens=8, completion_tokens=4, latency_ms=200),
    ]
    usage = metrics.role_usage(calls)
    assert [(u.role, u.model, u.calls, u.total_tokens, u.latency_ms_mean) for u in usage] == [
        ("executor", "fast", 2, 27, 150.0),
        ("planner", "strong", 1, 70, 900.0),
        ("executor", "strong", 1, 18, 300.0),
    ]
    assert not any(u.estimated for u in usage)


def test_timeline_has_one_row_per_llm_call_and_tool_call(weather):
    frame = metrics.timeline(weather)
    assert list(frame.columns) == list(metrics.TIMELINE_COLUMNS)
    assert sorted(frame["kind"]) == ["llm"] * 6 + ["tool"] * 4
    assert list(frame[frame["kind"] == "tool"]["name"]) == ["weather", "weather", "search", "search"]
    assert list(frame["start_s"]) == sorted(frame["start_s"]) and (frame["start_s"] >= 0).all()
    assert (frame["end_s"] >= frame["start_s"]).all() and frame["finished"].all()
    # llm_call is emitted when the call ends: it started latency_ms earlier
    call = next(e for e in weather if isinstance(e, ev.LlmCall))
    first = frame[frame["kind"] == "llm"].iloc[0]
    assert first["end_s"] == call.t and first["start_s"] == pytest.approx(max(0.0, call.t - call.latency_ms / 1000))
    assert "weather(city=Beijing)" in set(frame["label"])


def test_tool_results_are_matched_to_their_calls_by_id():
    events = [
        ev.ToolCallEvent(t=1.0, name="weather", arguments={"city": "Beijing"}, call_id="a"),
        ev.ToolCallEvent(t=1.1, name="weather", arguments={"city": "Shanghai"}, call_id="b"),
        ev.ToolResult(t=1.5, name="weather", output="{}", call_id="b"),
        ev.ToolResult(t=2.0, name="weather", output="boom", is_error=True, call_id="a"),
        ev.LlmCall(t=0.5, role="actor", latency_ms=2000),
    ]
    rows = [(s.label, s.start_s, s.end_s, s.error) for s in metrics.spans(events)]
    assert rows == [
        ("actor ·  · 0 tokens · 2000 ms", 0.0, 0.5, False),
        ("weather(city=Beijing) → error", 1.0, 2.0, True),
        ("weather(city=Shanghai)", 1.1, 1.5, False),
    ]


def test_tokens_per_step_follows_the_rounds(weather):
    frame = metrics.tokens_per_step(weather)
    assert list(frame["step"]) == [1, 2, 3, 4]
    assert list(frame["roles"]) == ["actor", "actor, judge", "actor", "actor, judge"]
    assert list(frame["calls"]) == [1, 2, 1, 2]
    assert frame["cumulative_tokens"].iloc[-1] == frame["total_tokens"].sum() == metrics.summary(weather).total_tokens


def test_tokens_per_step_keeps_a_replan_between_steps_in_its_own_row():
    events = [
        ev.LlmCall(t=0.1, step=None, role="planner", prompt_tokens=100, completion_tokens=40),
        ev.LlmCall(t=0.2, step=1, role="executor", prompt_tokens=30, completion_tokens=10),
        ev.LlmCall(t=0.3, step=1, role="reflector", prompt_tokens=60, completion_tokens=20),
        ev.LlmCall(t=0.4, step=None, role="planner", prompt_tokens=120, completion_tokens=30),
        ev.LlmCall(t=0.5, step=4, role="executor", prompt_tokens=30, completion_tokens=25),
    ]
    frame = metrics.tokens_per_step(events)
    assert frame["step"].isna().tolist() == [True, False, True, False] and frame["step"].dropna().tolist() == [1, 4]
    assert list(frame["total_tokens"]) == [140, 120, 150, 55]
    assert list(frame["cumulative_tokens"]) == [140, 260, 410, 465]


def test_a_partial_run_is_summarised_as_far_as_it_got(weather):
    # the page was closed while the third tool call ran
    cut = [i for i, e in enumerate(weather) if isinstance(e, ev.ToolCallEvent)][2] + 1
    partial = weather[:cut]
    s = metrics.summary(partial)
    assert s.end_reason is None and not s.finished
    assert (s.llm_calls, s.tool_calls, s.final_answer_chars) == (1, 3, 0)
    assert s.elapsed_s == pytest.approx(partial[-1].t, abs=1e-3)
    open_span = [sp for sp in metrics.spans(partial) if not sp.finished]
    assert [(sp.name, sp.start_s, sp.end_s) for sp in open_span] == [("search", partial[-1].t, partial[-1].t)]
    assert open_span[0].label.endswith("…")


def test_a_failed_run_records_its_error():
    config, task = ac.for_scenario("weather-report")
    events = ac.run(task, config, Down()).events
    s = metrics.summary(events)
    assert s.end_reason == "error" and s.llm_calls == 0 and s.final_answer_chars == 0
    assert s.error.startswith("connection_error: cannot reach")
    assert metrics.by_role(events).empty and metrics.timeline(events).empty


def test_no_events_at_all():
    s = metrics.summary([])
    assert (s.llm_calls, s.total_tokens, s.elapsed_s, s.end_reason, s.verdicts) == (0, 0, 0.0, None, {})
    assert metrics.by_role([]).empty and list(metrics.by_role([]).columns) == list(metrics.ROLE_COLUMNS)
    assert metrics.timeline([]).empty and metrics.tokens_per_step([]).empty
    fig = metrics.timeline_figure([])
    assert len(fig.data) == 0 and fig.layout.annotations[0].text == "no calls yet"


def test_timeline_figure_draws_a_bar_per_call(weather):
    fig = metrics.timeline_figure(weather)
    assert [trace.name for trace in fig.data] == ["LLM call", "tool call"]
    assert [len(trace.y) for trace in fig.data] == [6, 4]
    assert all(trace.orientation == "h" for trace in fig.data)
    assert set(fig.data[0].y) == {"actor", "judge"} and set(fig.data[1].y) == {"weather", "search"}
    assert all(x > 0 for trace in fig.data for x in trace.x)  # instant mock tools still show
    assert metrics.timeline_figure(weather, lang="zh").data[0].name == "LLM 调用"


def test_tool_errors_get_their_own_colour():
    events = [
        ev.ToolCallEvent(t=0.1, name="query_logistics", arguments={"waybill": "SF0000000"}, call_id="x"),
        ev.ToolResult(t=0.2, name="query_logistics", output='{"error": "no such waybill"}', is_error=True, call_id="x"),
    ]
    fig = metrics.timeline_figure(events)
    assert [(trace.name, list(trace.y)) for trace in fig.data] == [("tool error", ["query_logistics"])]


def test_cost_figure_and_table_compare_lanes(weather, primes):
    first_result = next(i for i, e in enumerate(weather) if isinstance(e, ev.ToolResult))
    lanes = {
        "ReAct": metrics.summary(weather),
        "Reflection": metrics.summary(primes),
        "stopped": metrics.summary(weather[: first_result + 1]),
    }
    fig = metrics.cost_figure(lanes)
    assert len(fig.data) == 3 and all(list(trace.x) == list(lanes) for trace in fig.data)
    assert list(fig.data[0].y) == [6, 4, 1]
    assert list(fig.data[1].y) == [s.total_tokens for s in lanes.values()]
    assert fig.layout.annotations[1].text == "tokens (estimated)"
    table = metrics.compare_table(lanes)
    assert list(table["lane"]) == list(lanes)
    assert list(table["verdicts_REVISE"]) == [2, 1, 0] and list(table["verdicts_PASS"]) == [0, 1, 0]
    assert list(table["end_reason"][:2]) == ["cap", "pass"] and table["end_reason"].isna().tolist() == [
        False,
        False,
        True,
    ]


def test_summary_needs_neither_pandas_nor_plotly():
    code = (
        "import sys, agent_core as ac; from agent_core.metrics import summary; "
        "c, t = ac.for_scenario('weather-report'); s = summary(ac.run(t, c, ac.OfflineModel()).events); "
        "assert s.llm_calls == 6; print(sorted({'pandas', 'plotly'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
