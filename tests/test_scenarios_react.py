"""The ReAct scenarios play their seeds' documented runs on the offline model, in both languages."""

import pytest

import agent_core as ac
from agent_core import events as ev


def play(scenario, lang, **overrides):
    config, task = ac.for_scenario(scenario, lang, **overrides)
    return ac.run(task, config, ac.OfflineModel())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_weather_report_revise_search_revise_cap(lang):
    result = play("weather-report", lang)
    tools = [e.name for e in result.events if isinstance(e, ev.ToolCallEvent)]
    assert tools == ["weather", "weather", "search", "search"]
    verdicts = [e for e in result.events if isinstance(e, ev.VerdictEvent)]
    assert [v.verdict for v in verdicts] == ["REVISE", "REVISE"] and all(v.feedback for v in verdicts)
    # the second search happens between the two verdicts
    order = [e.kind for e in result.events if e.kind in ("verdict", "tool_call")]
    assert order == ["tool_call"] * 3 + ["verdict", "tool_call", "verdict"]
    assert result.reason == "cap" and result.llm_calls == 6
    assert ("warning" in result.final_answer) if lang == "en" else ("预警" in result.final_answer)


def test_weather_report_with_a_third_round_passes():
    result = play("weather-report", "en", max_reflection_rounds=3)
    assert [e.verdict for e in result.events if isinstance(e, ev.VerdictEvent)] == ["REVISE", "REVISE", "PASS"]
    assert result.reason == "pass"


def test_weather_report_with_the_advisor_off_answers_after_one_round_of_tools():
    result = play("weather-report", "en", max_reflection_rounds=0)
    assert not any(isinstance(e, ev.VerdictEvent) for e in result.events) and result.llm_calls == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_dentist_booking_over_the_text_protocol(lang):
    result = play("dentist-booking", lang)
    assert [e.name for e in result.events if isinstance(e, ev.ToolCallEvent)] == [
        "find_dentist",
        "book_appointment",
        "add_calendar_event",
    ]
    assert not any(e.is_error for e in result.events if isinstance(e, ev.ToolResult))
    assert "BK-4821" in result.final_answer and result.reason == "answer"


def test_dentist_booking_with_too_few_rounds_is_forced_to_answer():
    result = play("dentist-booking", "en", max_rounds=2)
    assert any(isinstance(e, ev.LimitReached) and e.limit == "max_rounds" for e in result.events)
    assert result.final_answer and result.llm_calls == 3


@pytest.mark.parametrize("lang, label", [("en", "Scripted offline demo"), ("zh", "离线脚本演示")])
def test_free_text_task_is_a_short_labelled_scripted_run(lang, label):
    config = ac.configure(lang=lang, tools=("search",), max_reflection_rounds=1)
    result = ac.run("How tall is Mount Everest?", config, ac.OfflineModel())
    assert label in result.final_answer and result.reason == "pass"
    assert all(e.model == "offline-scripted" for e in result.events if isinstance(e, ev.LlmCall))


def test_offline_model_streams_at_the_configured_speed():
    import time

    config, task = ac.for_scenario("dentist-booking")
    start = time.perf_counter()
    tokens = [e for e in ac.stream(task, config, ac.OfflineModel(tokens_per_second=400)) if isinstance(e, ev.Token)]
    elapsed = time.perf_counter() - start
    assert len(tokens) > 40 and elapsed >= len(tokens) / 400 * 0.9
