"""The Plan-and-Execute scenarios play seed 03's documented runs on the offline model, in both languages."""

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import trace

LANGS = ["en", "zh"]


def play(scenario, lang="en", **overrides):
    config, task = ac.for_scenario(scenario, lang, **overrides)
    return ac.run(task, config, ac.OfflineModel())


def of(result, cls):
    return [e for e in result.events if isinstance(e, cls)]


def verdicts(result):
    return [(v.step, v.verdict) for v in of(result, ev.VerdictEvent)]


def statuses(result):
    return [(f.step_id, f.status) for f in of(result, ev.StepFinished)]


@pytest.mark.parametrize("lang", LANGS)
def test_order_99999_replan_retry_pass(lang):
    result = play("order-99999", lang)
    assert verdicts(result) == [(1, "REPLAN"), (4, "RETRY"), (4, "PASS")]
    assert statuses(result) == [(1, "failed"), (4, "retried"), (4, "done")]
    first, revised = of(result, ev.PlanEvent)
    assert len(first.steps) == 3 and first.steps[0]["tool"] == "query_order"
    assert [(s["id"], s["status"]) for s in revised.steps] == [
        (1, "failed"),
        (2, "replanned"),
        (3, "replanned"),
        (4, "pending"),
    ]
    assert revised.steps[3]["synthesis"]
    # the shell is not an error: only the Reflector catches it
    assert not of(result, ev.ToolResult)[0].is_error
    assert result.llm_calls == 9 and result.reason == "pass"
    retried = of(result, ev.StepFinished)[1].result
    assert "99999" not in retried  # the off-topic first attempt
    answer = result.final_answer
    assert "99999" in answer
    assert (
        ("try again later" in answer and "customer service" in answer)
        if lang == "en"
        else ("稍后重试" in answer and "客服" in answer and "同步" in answer)
    )


def test_order_99999_without_the_reflector_marks_the_shell_done():
    result = play("order-99999", reflector=False)
    assert not of(result, ev.VerdictEvent) and [s for _, s in statuses(result)] == ["done"] * 3
    assert "99999" in result.final_answer and result.llm_calls == 5


def test_order_99999_without_retries_accepts_the_off_topic_reply_at_the_cap():
    result = play("order-99999", max_step_retries=0)
    assert [v for _, v in verdicts(result)] == ["REPLAN", "RETRY"]
    assert [e.limit for e in of(result, ev.LimitReached)] == ["max_step_retries"]
    assert result.reason == "cap" and result.final_answer


def test_order_99999_without_replans_skips_to_synthesis():
    result = play("order-99999", max_replans=0)
    assert statuses(result) == [(1, "failed"), (2, "skipped"), (3, "done")]
    assert "99999" in result.final_answer and result.reason == "cap"


@pytest.mark.parametrize("lang", LANGS)
def test_logistics_tool_error_replans_and_the_answer_says_the_waybill_does_not_exist(lang):
    result = play("logistics-sf0000000", lang)
    assert of(result, ev.ToolResult)[0].is_error
    assert verdicts(result) == [(1, "REPLAN"), (3, "PASS")]
    assert of(result, ev.PlanEvent)[1].steps[-1]["id"] == 3
    assert ("waybill does not exist" in result.final_answer) if lang == "en" else ("运单不存在" in result.final_answer)
    assert "SF0000000" in result.final_answer and result.llm_calls == 7


def test_logistics_with_the_rule_precheck_saves_the_reflector_call():
    result = play("logistics-sf0000000", rule_precheck=True)
    precheck = of(result, ev.VerdictEvent)[0]
    assert precheck.verdict == "REPLAN" and precheck.analysis.startswith("Rule pre-check")
    assert result.llm_calls == 6
    assert [c.role for c in of(result, ev.LlmCall)].count("reflector") == 1


@pytest.mark.parametrize("lang", LANGS)
def test_vacuum_cats_goal_blind_listing_is_retried_around_hair_tangling(lang):
    result = play("vacuum-cats", lang)
    assert verdicts(result) == [(1, "RETRY"), (1, "PASS"), (2, "PASS")]
    retried, accepted = of(result, ev.StepFinished)[:2]
    assert retried.status == "retried" and accepted.status == "done"
    cat = "cats" if lang == "en" else "猫"
    assert cat not in retried.result and ("Pa" in retried.result)  # every spec, and no word of the cats
    suggestion = of(result, ev.VerdictEvent)[0].suggestion
    assert cat in suggestion
    assert ("anti-tangle" in accepted.result) if lang == "en" else ("缠" in accepted.result)
    assert "R7 Pro" in accepted.result and "R7 Pro" in result.final_answer
    assert [t.name for t in of(result, ev.ToolCallEvent)] == ["compare_products", "compare_products"]


@pytest.mark.parametrize("lang", LANGS)
def test_vacuum_cats_with_a_goal_aware_executor_passes_first_time(lang):
    result = play("vacuum-cats", lang, goal_aware_executor=True)
    assert verdicts(result) == [(1, "PASS"), (2, "PASS")]
    assert "retried" not in [s for _, s in statuses(result)]
    first = of(result, ev.StepFinished)[0].result
    assert ("anti-tangle" in first) if lang == "en" else ("缠" in first)
    assert result.llm_calls == 6


def test_vacuum_cats_without_the_reflector_sits_on_the_fence():
    result = play("vacuum-cats", reflector=False)
    assert "preference" in result.final_answer and "cats" not in result.final_answer


@pytest.mark.parametrize("lang", LANGS)
def test_airx_watchfit_order_step_fails_and_synthesis_still_answers_the_comparison(lang):
    result = play("airx-watchfit-order", lang)
    first, revised = of(result, ev.PlanEvent)
    assert [s["tool"] for s in first.steps] == ["compare_products", "query_order", None]
    assert verdicts(result) == [(1, "PASS"), (2, "REPLAN"), (4, "PASS")]
    assert statuses(result) == [(1, "done"), (2, "failed"), (4, "done")]
    answer = result.final_answer
    assert "AirX" in answer and "WatchFit" in answer and "99999" in answer
    assert ("couldn't confirm" in answer) if lang == "en" else ("无法确认" in answer)


@pytest.mark.parametrize("scenario", ["order-99999", "logistics-sf0000000", "vacuum-cats", "airx-watchfit-order"])
@pytest.mark.parametrize(
    "overrides",
    [
        {"reflector": False},
        {"max_step_retries": 0},
        {"max_replans": 0},
        {"max_step_rounds": 1},
        {"rule_precheck": True, "selective_reflection": True},
        {"max_plan_steps": 1},
        {"goal_aware_executor": True},
    ],
)
def test_every_scenario_still_ends_well_when_the_limits_change(scenario, overrides):
    for lang in LANGS:
        config, task = ac.for_scenario(scenario, lang, **overrides)
        result = ac.run(task, config, ac.OfflineModel())
        assert result.failed is None and result.final_answer.strip()
        assert result.reason in ("answer", "pass", "cap")
        assert result.llm_calls <= ac.call_bound(config)


@pytest.mark.parametrize("lang, label", [("en", "Scripted offline demo"), ("zh", "离线脚本演示")])
@pytest.mark.parametrize("tools", [("search",), ()])
def test_free_text_task_is_a_short_labelled_scripted_run(lang, label, tools):
    config = ac.configure(pattern="plan-execute", lang=lang, tools=tools, reflector=True)
    result = ac.run("Plan a weekend in Kyoto", config, ac.OfflineModel())
    assert label in result.final_answer and result.reason == "pass"
    steps = of(result, ev.PlanEvent)[0].steps
    assert len(steps) == 2 and steps[0]["tool"] == (tools[0] if tools else None) and steps[1]["synthesis"]
    assert len(of(result, ev.ToolCallEvent)) == len(tools)
    assert all(e.model == "offline-scripted" for e in of(result, ev.LlmCall))


def test_the_order_run_survives_a_trace_round_trip():
    config, task = ac.for_scenario("order-99999", "zh")
    result = ac.run(task, config, ac.OfflineModel())
    back = trace.loads(trace.Trace.of(config.to_dict(), result.events).dumps())
    plans = [e for e in back.events if isinstance(e, ev.PlanEvent)]
    assert [p.revision for p in plans] == [0, 1] and plans[1].steps[0]["reason"].startswith("执行结果未能获取")
    assert [e for e in back.events if e.kind != "token"] == [e for e in result.events if e.kind != "token"]
