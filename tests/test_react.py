"""ReAct, told through the seeds' stories with a scripted model."""

import json

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.errors import EndpointConnectionError, TemplateError
from agent_core.mock_tools import registry
from agent_core.patterns.react.loop import ConversationMemory, call_bound, parse_text_step, stream
from agent_core.testing import ScriptedModel, UnexpectedCall, say, tool
from agent_core.tools import Tool, ToolRegistry

WEATHER_TASK = ac.SCENARIOS["weather-report"].task.en


def kinds(events, *, skip=("token", "llm_call")):
    return [e.kind for e in events if e.kind not in skip]


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def react(model, task="task", tools=None, **limits):
    config = ac.configure(pattern="react", **limits)
    return list(stream(task, config, ac.ModelRouter(model), tools if tools is not None else registry()))


def judge(passed, feedback=None):
    return say(json.dumps({"passed": passed, "feedback": feedback}), role="judge")


def test_seed01_weather_report_two_revisions_then_the_cap():
    """Seed 01: weather + search, REVISE, another search, a second REVISE, cap, answer returned."""
    model = ScriptedModel(
        [
            say(
                "I need the weather for both cities and the warnings.",
                tool("weather", city="Beijing"),
                tool("weather", city="Shanghai"),
                tool("search", query="Beijing warning"),
                role="actor",
            ),
            say("Report v1: sunny in Beijing, rain in Shanghai.", role="actor"),
            judge(False, "The warning information is missing; search the official alerts."),
            say(
                "Searching the official alerts.", tool("search", query="Beijing official weather alerts"), role="actor"
            ),
            say("Report v2: no warning details could be found.", role="actor"),
            judge(False, "Still no warning level or period."),
        ]
    )
    events = react(model, WEATHER_TASK, max_reflection_rounds=2)
    model.assert_consumed()
    assert kinds(events) == [
        "run_started",
        "thought",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "draft",
        "verdict",
        "thought",
        "tool_call",
        "tool_result",
        "draft",
        "verdict",
        "limit_reached",
        "final_answer",
        "run_finished",
    ]
    assert [(d.version, d.text[:9]) for d in of(events, ev.Draft)] == [(0, "Report v1"), (1, "Report v2")]
    assert [v.verdict for v in of(events, ev.VerdictEvent)] == ["REVISE", "REVISE"]
    assert of(events, ev.LimitReached)[0].limit == "max_reflection_rounds"
    assert of(events, ev.FinalAnswer)[0].text == "Report v2: no warning details could be found."
    assert of(events, ev.RunFinished)[0].reason == "cap"
    assert model.roles() == ["actor", "actor", "judge", "actor", "actor", "judge"]
    # the judge's feedback reached the actor before it searched again
    assert "The warning information is missing" in model.requests[3].messages[-1].content


def test_advisor_pass_ends_the_run_with_pass():
    model = ScriptedModel([say("The answer.", role="actor"), judge(True)])
    events = react(model, max_reflection_rounds=3)
    assert of(events, ev.VerdictEvent)[0].passed
    assert of(events, ev.RunFinished)[0].reason == "pass"


def test_advisor_off_means_no_judge_call():
    model = ScriptedModel([say("The answer.")])
    events = react(model, max_reflection_rounds=0)
    model.assert_consumed()
    assert not of(events, ev.VerdictEvent) and of(events, ev.RunFinished)[0].reason == "answer"


def test_unparsable_judge_is_reasked_once_then_falls_back_to_a_visible_pass():
    model = ScriptedModel(
        [
            say("The answer."),
            say("I think it's fine", role="judge"),
            say("<think>hmm</think> still not json", role="judge"),
        ]
    )
    events = react(model, max_reflection_rounds=1)
    model.assert_consumed()
    verdict = of(events, ev.VerdictEvent)[0]
    assert verdict.verdict == "PASS" and verdict.parsed is False


def test_judge_json_in_fences_with_prose_and_trailing_comma_is_parsed():
    model = ScriptedModel(
        [
            say("A"),
            say("Sure!\n```json\n{'passed': false, 'feedback': 'add sources',}\n```", role="judge"),
            say("B"),
            judge(True),
        ]
    )
    events = react(model, max_reflection_rounds=2, repair_reask=False)
    assert [v.verdict for v in of(events, ev.VerdictEvent)] == ["REVISE", "PASS"]
    assert of(events, ev.VerdictEvent)[0].feedback == "add sources"


def test_max_rounds_forces_one_final_answer_with_tools_disabled():
    counter = iter(range(1000))
    model = ScriptedModel.forever(
        lambda r: say(f"step {next(counter)} unique words {next(counter)}", tool("search", query=f"q{next(counter)}"))
    )
    events = react(model, max_rounds=4)
    assert model.calls == 5 == call_bound(ac.configure(max_rounds=4))
    assert model.requests[-1].tools == () and model.requests[0].tools
    assert of(events, ev.LimitReached)[0].limit == "max_rounds"
    assert of(events, ev.RunFinished)[0].reason == "cap"


def test_repeated_identical_call_gets_a_reminder_then_ends_the_loop():
    model = ScriptedModel(
        [
            say("first look", tool("search", query="same")),
            say("again please", tool("search", query="same")),
            say("one more try", tool("search", query="same")),
            say("Final: nothing found."),
        ]
    )
    events = react(model, max_rounds=8)
    model.assert_consumed()
    results = of(events, ev.ToolResult)
    assert len(results) == 2 and results[1].is_error and "repeated" in results[1].output
    assert of(events, ev.LimitReached)[0].limit == "repeated_tool_call"
    assert of(events, ev.FinalAnswer)[0].text == "Final: nothing found."


def test_near_identical_thoughts_end_the_loop():
    model = ScriptedModel(
        [
            say("I will search for the weather in Beijing today", tool("search", query="a")),
            say("I will search for the weather in Beijing today again", tool("search", query="b")),
            say("Here is what I have."),
        ]
    )
    events = react(model, max_rounds=8)
    model.assert_consumed()
    assert of(events, ev.LimitReached)[0].limit == "no_progress"


@pytest.mark.parametrize(
    "call, needle",
    [
        (tool("no_such_tool", x=1), "unknown tool 'no_such_tool'"),
        (("search", "{not json"), "not valid JSON"),
        (("search", json.dumps({"query": "x" * 2100})), "over the 2000-character limit"),
        (("search", json.dumps({"wrong": 1})), "bad arguments for search"),
        (("boom", "{}"), "tool boom failed: RuntimeError: kaput"),
    ],
)
def test_tool_failures_are_observations_the_model_reads(call, needle):
    def boom():
        raise RuntimeError("kaput")

    tools = ToolRegistry({**registry().tools, "boom": Tool("boom", "fails", {"type": "object"}, boom)})
    model = ScriptedModel([say("try", call), say("Sorry, the tool failed.")])
    events = react(model, tools=tools)
    model.assert_consumed()
    result = of(events, ev.ToolResult)[0]
    assert result.is_error and needle in result.output
    assert needle in model.requests[1].messages[-1].content


def test_text_protocol_dentist_booking():
    model = ScriptedModel(
        [
            'Thought: find a dentist\nAction: find_dentist\nAction Input: {"day": "Tue", "time": "14:00"}',
            'Thought: book D-17\nAction: book_appointment\nAction Input: {"dentist_id": "D-17", "slot": "Tue 14:00"}',
            'Thought: add it\nAction: add_calendar_event\nAction Input: {"title": "Dentist", "start": "Tue 14:00"}\n'
            "Observation: (invented by the model, ignored)",
            "Thought: done\nFinal Answer: Booked for Tuesday 14:00 (BK-4821) and added to your calendar.",
        ]
    )
    events = react(model, "Book a dentist", text_protocol=True)
    model.assert_consumed()
    assert [e.name for e in of(events, ev.ToolCallEvent)] == ["find_dentist", "book_appointment", "add_calendar_event"]
    assert not any(r.is_error for r in of(events, ev.ToolResult))
    assert of(events, ev.FinalAnswer)[0].text.startswith("Booked for Tuesday")
    assert all(r.tools == () for r in model.requests)  # no native tools in text mode
    assert model.requests[1].messages[-1].content.startswith("Observation: ")


def test_text_protocol_reply_without_action_or_answer_gets_a_format_reminder():
    model = ScriptedModel(["I am not sure what to do.", "Final Answer: 42"])
    events = react(model, text_protocol=True)
    assert "follow the format" in model.requests[1].messages[-1].content
    assert of(events, ev.FinalAnswer)[0].text == "42"


def test_parse_text_step_takes_json_from_messy_action_input():
    step = parse_text_step("Thought: go\nAction: `search`\nAction Input: ```json\n{'query': 'x',}\n```")
    assert step.action == "search" and json.loads(step.action_input) == {"query": "x"}
    assert parse_text_step("Final Answer: 多行\n答案").final_answer == "多行\n答案"


@pytest.mark.parametrize("rounds, reflections, reask", [(1, 0, True), (3, 1, True), (4, 3, False), (6, 5, True)])
def test_call_bound_holds_for_an_actor_that_never_stops_and_a_judge_that_never_passes(rounds, reflections, reask):
    counter = iter(range(10_000))

    def reply(request):
        if request.role == "judge":
            return "not json at all" if reask else json.dumps({"passed": False, "feedback": "more"})
        n = next(counter)
        if request.tools and n % 3:
            return say(f"thought {n} {n * 7} {n * 13}", tool("search", query=f"q{n}"))
        return say(f"answer {n}")

    model = ScriptedModel.forever(reply)
    config = ac.configure(max_rounds=rounds, max_reflection_rounds=reflections, repair_reask=reask)
    events = list(stream("t", config, ac.ModelRouter(model), registry()))
    assert model.calls <= call_bound(config)
    assert of(events, ev.RunStarted)[0].max_llm_calls == call_bound(config)
    assert events[-1].kind == "run_finished" and of(events, ev.FinalAnswer)


def test_the_bound_is_tight_when_the_judge_never_passes():
    model = ScriptedModel.forever(
        lambda r: json.dumps({"passed": False, "feedback": "x"}) if r.role == "judge" else say("answer")
    )
    config = ac.configure(max_rounds=5, max_reflection_rounds=3, repair_reask=False)
    list(stream("t", config, ac.ModelRouter(model), registry()))
    assert model.roles() == ["actor", "judge"] * 3


def test_memory_window_carries_earlier_turns():
    memory = ConversationMemory(window=2)
    first = ScriptedModel([say("Paris.")])
    list(stream("Capital of France?", ac.configure(), ac.ModelRouter(first), registry(), memory=memory))
    second = ScriptedModel([say("About 2 million.")])
    list(stream("And its population?", ac.configure(), ac.ModelRouter(second), registry(), memory=memory))
    contents = [m.content for m in second.requests[0].messages]
    assert contents[1:] == ["Capital of France?", "Paris.", "And its population?"]


def test_run_wide_budget_ends_the_run_cleanly():
    model = ScriptedModel.forever(
        lambda r: say(f"t{len(r.messages)} {len(r.messages) * 3}", tool("search", query=str(len(r.messages))))
    )
    events = react(model, max_rounds=10, max_llm_calls=3)
    assert model.calls == 3
    assert of(events, ev.LimitReached)[0].limit == "max_llm_calls"
    assert kinds(events)[-2:] == ["final_answer", "run_finished"] and events[-1].reason == "budget"


def test_an_endpoint_failure_mid_run_keeps_the_events_so_far():
    def reply(request):
        if len(request.messages) > 2:
            raise EndpointConnectionError("cannot reach http://127.0.0.1:9/v1; is the server running?")
        return say("look", tool("weather", city="Beijing"))

    events = react(ScriptedModel.forever(reply))
    assert kinds(events) == ["run_started", "thought", "tool_call", "tool_result", "run_failed", "run_finished"]
    failed = of(events, ev.RunFailed)[0]
    assert failed.error_type == "connection_error" and "is the server running" in failed.message
    assert events[-1].reason == "error"


def test_a_broken_prompt_is_refused_before_any_model_call():
    model = ScriptedModel([])
    config = ac.configure(prompts={"judge": "Question: {question}\nAnswer: {answr}"})
    with pytest.raises(TemplateError, match=r"unknown placeholder \{answr\}"):
        ac.stream("t", config, model)
    assert model.calls == 0


def test_scripted_model_fails_on_an_unexpected_call():
    model = ScriptedModel([say("only one")])
    events = react(model, max_reflection_rounds=1)
    failed = of(events, ev.RunFailed)[0]
    assert failed.error_type == "UnexpectedCall" and "unexpected call #2" in failed.message
    assert UnexpectedCall.__name__ == failed.error_type


def test_observation_check_appends_a_hint_to_an_error_observation():
    """Seed 03's ReAct + Reflection: a reflector reads the round's results before the actor does."""
    model = ScriptedModel(
        [
            say("track it", tool("query_logistics", tracking_no="SF0000000"), role="actor"),
            say(
                '{"verdict": "REPLAN", "analysis": "The waybill does not exist.", "suggestion": "Ask the user to check it."}',
                role="reflector",
            ),
            say("That waybill does not exist; please check the number.", role="actor"),
        ]
    )
    events = react(model, observation_check=True)
    model.assert_consumed()
    assert [v.verdict for v in of(events, ev.VerdictEvent)] == ["REPLAN"]
    seen = model.requests[2].messages[-1].content
    assert seen.startswith('{"error"') and "[Reflection hint] The waybill does not exist. Ask the user" in seen
    assert model.calls <= call_bound(ac.configure(observation_check=True))


def test_observation_check_runs_offline_on_a_free_task():
    config = ac.configure(tools=("query_logistics",), observation_check=True)
    result = ac.run("Where is parcel SF0000000?", config, ac.OfflineModel())
    assert [e.verdict for e in result.events if isinstance(e, ev.VerdictEvent)] == ["REPLAN"]
    assert result.reason == "answer"
