"""Plan-and-Execute with a step Reflector, told through seeds 03 and 05 with scripted models."""

import itertools
import json

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.mock_tools import registry
from agent_core.patterns.plan_execute.loop import PlanStep, call_bound, parse_plan, shape_plan, stream
from agent_core.testing import ScriptedModel, say, tool
from agent_core.tools import Tool, ToolRegistry

ORDER_TASK = ac.SCENARIOS["order-99999"].task.en
VACUUM_TASK = ac.SCENARIOS["vacuum-cats"].task.en


def kinds(events, *, skip=("token", "llm_call")):
    return [e.kind for e in events if e.kind not in skip]


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def plan(*steps, key="steps"):
    """A planner reply; a step is (description, tool) or (description, tool, critical)."""
    return say(
        json.dumps(
            {
                key: [
                    {"id": i, "description": s[0], "tool": s[1], "critical": s[2] if len(s) > 2 else False}
                    for i, s in enumerate(steps, 1)
                ]
            }
        ),
        role="planner",
    )


def verdict(kind, analysis="", suggestion=""):
    return say(json.dumps({"verdict": kind, "analysis": analysis, "suggestion": suggestion}), role="reflector")


def execute(text="", *calls):
    return say(text, *calls, role="executor")


def synthesize(text):
    return say(text, role="synthesizer")


def run(model, task="task", tools=None, **limits):
    config = ac.configure(pattern="plan-execute", **limits)
    router = model if isinstance(model, ac.ModelRouter) else ac.ModelRouter(model)
    return list(stream(task, config, router, tools if tools is not None else registry()))


def final(events):
    return of(events, ev.FinalAnswer)[0].text


def finished(events):
    return of(events, ev.RunFinished)[0]


# --- seed 03's documented run ---------------------------------------------------------------------


def test_seed03_order_99999_replan_then_retry_then_pass():
    """The "syncing" shell is REPLANned; the re-planned step 4 drifts off-topic, is RETRIED with the
    Reflector's suggestion, then PASSes: about nine calls, as the seed counts."""
    model = ScriptedModel(
        [
            plan(
                ("Query order 99999 for its status and sign-off information", "query_order"),
                ("Judge from the status whether it has been delivered", None),
                ("Combine the results and tell the user whether the order has arrived", None),
            ),
            execute("", tool("query_order", order_id="99999")),
            execute("Order 99999: status 'syncing', no sign-off information."),
            verdict(
                "REPLAN",
                "The data is still syncing; the status and sign-off information are missing.",
                "Tell the user the order could not be confirmed.",
            ),
            plan(
                ("Tell the user order 99999 could not be confirmed: data syncing; try later or contact support", None)
            ),
            synthesize("Hello! How can I help you today?"),
            verdict("RETRY", "A generic reply unrelated to the order.", "Say that order 99999 could not be confirmed."),
            synthesize("Sorry, order 99999 could not be confirmed: its data is syncing. Try later or contact support."),
            verdict("PASS", "The reply covers the failure and what to do."),
        ]
    )
    events = run(model, ORDER_TASK, reflector=True)
    model.assert_consumed()
    assert kinds(events) == [
        "run_started",
        "plan",
        "step_started",
        "tool_call",
        "tool_result",
        "verdict",
        "step_finished",
        "plan",
        "step_started",
        "verdict",
        "step_finished",
        "step_started",
        "verdict",
        "step_finished",
        "final_answer",
        "run_finished",
    ]
    assert model.roles() == [
        "planner",
        "executor",
        "executor",
        "reflector",
        "planner",
        "synthesizer",
        "reflector",
        "synthesizer",
        "reflector",
    ]
    assert [(v.step, v.verdict) for v in of(events, ev.VerdictEvent)] == [(1, "REPLAN"), (4, "RETRY"), (4, "PASS")]
    assert [(f.step_id, f.status) for f in of(events, ev.StepFinished)] == [(1, "failed"), (4, "retried"), (4, "done")]
    assert [s.attempt for s in of(events, ev.StepStarted)] == [1, 1, 2]
    first, second = of(events, ev.PlanEvent)
    assert (first.revision, second.revision) == (0, 1)
    assert [(s["id"], s["status"], s["synthesis"]) for s in second.steps] == [
        (1, "failed", False),
        (2, "replanned", False),
        (3, "replanned", True),
        (4, "pending", True),
    ]
    assert second.steps[0]["reason"].startswith("The data is still syncing")
    # the re-planner saw why step 1 failed; the retry saw the Reflector's suggestion
    assert "The data is still syncing" in model.requests[4].messages[0].content
    retry_prompt = model.requests[7].messages[0].content
    assert "Reflection on the previous attempt" in retry_prompt and "could not be confirmed" in retry_prompt
    assert "Reflection on the previous attempt" not in model.requests[5].messages[0].content
    assert final(events).startswith("Sorry, order 99999 could not be confirmed")
    assert finished(events).reason == "pass" and finished(events).llm_calls == 9


def test_without_the_reflector_the_shell_passes_silently():
    """Seed 03: with the Reflector off, "syncing" is marked done and no trace of the failure is left."""
    model = ScriptedModel(
        [
            plan(("Query order 99999", "query_order"), ("Reply to the user", None)),
            execute("", tool("query_order", order_id="99999")),
            execute("Order 99999 is syncing."),
            synthesize("Your order is syncing; try later."),
        ]
    )
    events = run(model, ORDER_TASK)
    model.assert_consumed()
    assert not of(events, ev.VerdictEvent)
    assert [f.status for f in of(events, ev.StepFinished)] == ["done", "done"]
    assert finished(events).reason == "answer" and finished(events).llm_calls == 4


# --- verdict handling -----------------------------------------------------------------------------


def test_an_unparsable_verdict_is_reasked_once_then_a_visible_pass():
    model = ScriptedModel(
        [
            plan(("Look it up", "query_order"), ("Reply", None)),
            execute("Found it."),
            say("looks fine to me", role="reflector"),
            say("<think>hmm</think> still no json", role="reflector"),
            synthesize("The answer."),
            verdict("PASS"),
        ]
    )
    events = run(model, reflector=True)
    model.assert_consumed()
    first = of(events, ev.VerdictEvent)[0]
    assert (first.verdict, first.parsed) == ("PASS", False) and "could not be parsed" in first.analysis
    assert model.requests[3].context.repair is True
    assert [f.status for f in of(events, ev.StepFinished)] == ["done", "done"]


def test_rule_precheck_replans_a_tool_error_without_asking_the_reflector():
    """Seed 03's cheap rule check: `{"error": ...}` from query_logistics means REPLAN, no LLM call."""
    model = ScriptedModel(
        [
            plan(("Track waybill SF0000000", "query_logistics"), ("Reply", None)),
            execute("", tool("query_logistics", tracking_no="SF0000000")),
            execute("The waybill does not exist."),
            plan(("Tell the user the waybill does not exist; ask them to check the number", None)),
            synthesize("Waybill SF0000000 does not exist; please check the number."),
            verdict("PASS"),
        ]
    )
    events = run(model, "Chase waybill SF0000000", reflector=True, rule_precheck=True)
    model.assert_consumed()
    assert model.roles().count("reflector") == 1  # only the synthesis step was reviewed by a model
    precheck = of(events, ev.VerdictEvent)[0]
    assert precheck.verdict == "REPLAN" and precheck.analysis.startswith("Rule pre-check: the tool query_logistics")
    assert "waybill does not exist" in precheck.analysis
    assert of(events, ev.ToolResult)[0].is_error


def test_rule_precheck_works_without_the_reflector_and_forgives_a_recovered_error():
    model = ScriptedModel(
        [
            plan(("Look up order 10001", "query_order"), ("Reply", None)),
            execute("", tool("query_order", order_id="1OOO1")),
            execute("Typo; trying again.", tool("query_order", order_id="10001")),
            execute("Order 10001 was delivered."),
            synthesize("Delivered."),
        ]
    )
    events = run(model, rule_precheck=True, max_step_rounds=3)
    model.assert_consumed()
    assert [r.is_error for r in of(events, ev.ToolResult)] == [True, False]
    assert not of(events, ev.VerdictEvent) and finished(events).reason == "answer"


def test_selective_reflection_reviews_only_attempts_that_used_tools():
    model = ScriptedModel(
        [
            plan(("Look up order 10001", "query_order"), ("Think about what it means", None), ("Reply", None)),
            execute("", tool("query_order", order_id="10001")),
            execute("Delivered on 27 Nov."),
            verdict("PASS"),
            execute("It arrived three days ago."),
            synthesize("Your order arrived on 27 Nov."),
        ]
    )
    events = run(model, reflector=True, selective_reflection=True)
    model.assert_consumed()
    assert [v.step for v in of(events, ev.VerdictEvent)] == [1]
    assert finished(events).reason == "answer"  # the synthesis step was not reviewed, so no "pass"


# --- limits -----------------------------------------------------------------------------------------


def test_retries_run_out_and_the_last_result_is_accepted():
    """Seed 03: MAX_STEP_RETRY = 1; a second RETRY is accepted as it stands."""
    model = ScriptedModel(
        [
            plan(("Compare R1 and R7 Pro", "compare_products"), ("Recommend", None)),
            execute("R1: 4000 Pa. R7 Pro: 6000 Pa. Each has its strengths."),
            verdict("RETRY", "Flat listing.", "The user has two long-haired cats: focus on hair tangling."),
            execute("Still a flat listing."),
            verdict("RETRY", "Still flat.", "Focus on tangling."),
            synthesize("Pick either."),
            verdict("PASS"),
        ]
    )
    events = run(model, VACUUM_TASK, reflector=True, max_step_retries=1)
    model.assert_consumed()
    assert [(f.step_id, f.status) for f in of(events, ev.StepFinished)] == [(1, "retried"), (1, "done"), (2, "done")]
    assert of(events, ev.StepFinished)[1].result == "Still a flat listing."
    limit = of(events, ev.LimitReached)[0]
    assert limit.limit == "max_step_retries" and limit.step == 1
    assert finished(events).reason == "cap"


def test_no_retries_allowed_accepts_the_first_result():
    model = ScriptedModel(
        [
            plan(("Compare", "compare_products"), ("Recommend", None)),
            execute("Flat listing."),
            verdict("RETRY", "Flat.", "Focus on the cats."),
            synthesize("Pick either."),
            verdict("PASS"),
        ]
    )
    events = run(model, VACUUM_TASK, reflector=True, max_step_retries=0)
    model.assert_consumed()
    assert [f.status for f in of(events, ev.StepFinished)] == ["done", "done"]
    assert [e.limit for e in of(events, ev.LimitReached)] == ["max_step_retries"]


def test_replans_run_out_so_the_remaining_steps_are_skipped_and_synthesis_reports_every_failure():
    model = ScriptedModel(
        [
            plan(("Query order 99999", "query_order"), ("Track its parcel", "query_logistics"), ("Reply", None)),
            execute("Syncing."),
            verdict("REPLAN", "Order data is syncing."),
            plan(
                ("Query order 99999 again by another route", "query_order"),
                ("Track waybill SF0000000", "query_logistics"),
                ("Reply", None),
            ),
            execute("Still syncing."),
            verdict("REPLAN", "Still no order data."),
            synthesize("Sorry: the order could not be confirmed."),
            verdict("PASS"),
        ]
    )
    events = run(model, ORDER_TASK, reflector=True, max_replans=1)
    model.assert_consumed()
    assert [(f.step_id, f.status) for f in of(events, ev.StepFinished)] == [
        (1, "failed"),
        (4, "failed"),
        (5, "skipped"),
        (6, "done"),
    ]
    assert [(e.limit, e.value) for e in of(events, ev.LimitReached)] == [("max_replans", 1)]
    assert [p.revision for p in of(events, ev.PlanEvent)] == [0, 1]
    prompt = model.requests[6].messages[0].content
    assert model.requests[6].role == "synthesizer"
    assert "None of the plan's earlier steps produced a usable result" in prompt  # nothing succeeded
    assert "Order data is syncing." in prompt and "Still no order data." in prompt
    assert "Step 5 (Track waybill SF0000000): not run" in prompt
    assert finished(events).reason == "cap"


def test_with_nothing_failed_the_synthesizer_prompt_has_no_failure_section():
    model = ScriptedModel(
        [
            plan(
                ("Compare AirX and WatchFit", "compare_products"),
                ("Query order 10001", "query_order"),
                ("Combine the results", None),
            ),
            execute("AirX: ANC earbuds. WatchFit: fitness watch."),
            execute("Order 10001 was delivered."),
            synthesize("AirX is for music, WatchFit for fitness; order 10001 arrived."),
        ]
    )
    events = run(model)
    model.assert_consumed()
    prompt = model.requests[3].messages[0].content
    assert "Results of the completed steps" in prompt and "AirX: ANC earbuds" in prompt
    assert "Steps that failed" not in prompt  # the optional section is left out, heading and all
    assert final(events).endswith("order 10001 arrived.")


def test_the_synthesizer_gets_completed_results_and_failure_reasons():
    model = ScriptedModel(
        [
            plan(
                ("Compare AirX and WatchFit", "compare_products"), ("Query order 99999", "query_order"), ("Reply", None)
            ),
            execute("AirX: ANC earbuds. WatchFit: fitness watch."),
            verdict("PASS"),
            execute("Order 99999 is syncing."),
            verdict("REPLAN", "The order data is syncing."),
            plan(("Give the comparison and say order 99999 could not be confirmed", None)),
            synthesize("AirX vs WatchFit ...; order 99999 could not be confirmed."),
            verdict("PASS"),
        ]
    )
    events = run(model, reflector=True)
    model.assert_consumed()
    prompt = model.requests[6].messages[0].content
    assert "AirX: ANC earbuds" in prompt
    assert "Steps that failed (tell the user honestly)" in prompt
    assert "Step 2 (Query order 99999): FAILED. Reason: The order data is syncing." in prompt
    assert model.requests[6].context.all_failed is False
    assert [s["id"] for s in of(events, ev.PlanEvent)[1].steps] == [1, 2, 3, 4]


def test_a_failed_critical_step_ends_the_run():
    """Seed 05: a step the planner marked critical aborts the run when it fails, before any re-plan."""
    model = ScriptedModel(
        [
            plan(("Charge the card", "query_order", True), ("Ship", None)),
            execute("Payment gateway error."),
            verdict("REPLAN", "The payment failed."),
        ]
    )
    events = run(model, reflector=True)
    model.assert_consumed()
    failed = of(events, ev.RunFailed)[0]
    assert failed.error_type == "critical_step_failed"
    assert "step 1 (Charge the card) is marked critical" in failed.message and "The payment failed." in failed.message
    assert not of(events, ev.FinalAnswer) and finished(events).reason == "error"


def test_a_synthesis_replan_with_no_replans_left_is_accepted():
    model = ScriptedModel(
        [
            plan(("Reply", None)),
            synthesize("A reply."),
            verdict("REPLAN", "Missing data."),
        ]
    )
    events = run(model, reflector=True, max_replans=0)
    model.assert_consumed()
    assert final(events) == "A reply." and [e.limit for e in of(events, ev.LimitReached)] == ["max_replans"]


def test_an_unusable_replan_keeps_the_remaining_steps():
    model = ScriptedModel(
        [
            plan(("Query order 99999", "query_order"), ("Reply", None)),
            execute("Syncing."),
            verdict("REPLAN", "Syncing."),
            say("I would rather not plan.", role="planner"),
            say("Still no plan.", role="planner"),
            synthesize("Sorry, no data."),
            verdict("PASS"),
        ]
    )
    events = run(model, reflector=True)
    model.assert_consumed()
    revised = of(events, ev.PlanEvent)[1]
    assert [(s["id"], s["status"]) for s in revised.steps] == [(1, "failed"), (2, "pending")]
    assert final(events) == "Sorry, no data."


def test_the_last_round_of_a_step_has_tools_disabled():
    model = ScriptedModel(
        [
            plan(("Query order 10001", "query_order"), ("Reply", None)),
            execute("", tool("query_order", order_id="10001")),
            execute("One more look.", tool("query_order", order_id="10001")),  # tools are off now: ignored
            synthesize("Delivered."),
        ]
    )
    events = run(model, max_step_rounds=2)
    model.assert_consumed()
    first, last = model.requests[1], model.requests[2]
    assert first.tools and not last.tools and last.context.last_round is True
    assert "You have used this step's tool rounds" in last.messages[-1].content
    assert len(of(events, ev.ToolCallEvent)) == 1
    assert of(events, ev.StepFinished)[0].result == "One more look."


# --- goal-blind executor (seed 03) ------------------------------------------------------------------


def _vacuum_model():
    return ScriptedModel(
        [
            plan(("Compare the R1 and R7 Pro specifications", "compare_products"), ("Recommend one", None)),
            execute("", tool("compare_products", products="R1, R7 Pro")),
            execute("R1: bristle brush. R7 Pro: anti-tangle brush."),
            synthesize("R7 Pro."),
        ]
    )


def test_the_executor_is_goal_blind_by_default():
    model = _vacuum_model()
    run(model, VACUUM_TASK)
    model.assert_consumed()
    blind = [r for r in model.requests if r.role in ("executor", "synthesizer")]
    assert blind and not any("long-haired cats" in m.content for r in blind for m in r.messages)
    assert "long-haired cats" in model.requests[0].messages[0].content  # the planner holds the goal


def test_the_goal_aware_toggle_shows_the_executor_the_goal():
    model = _vacuum_model()
    run(model, VACUUM_TASK, goal_aware_executor=True)
    model.assert_consumed()
    for request in model.requests[1:]:
        assert "## The user's original request\nI have two long-haired cats." in request.messages[0].content


# --- the planner at the border ----------------------------------------------------------------------


def test_planner_garbage_ends_the_run_after_one_repair_reask():
    model = ScriptedModel(
        [
            say("Sure! First I'll look, then I'll answer.", role="planner"),
            say('{"plan": "look, then answer"}', role="planner"),
        ]
    )
    events = run(model)
    model.assert_consumed()
    assert [r.context.repair for r in model.requests] == [False, True]
    failed = of(events, ev.RunFailed)[0]
    assert failed.error_type == "plan_error" and "even after a repair re-ask" in failed.message
    assert kinds(events) == ["run_started", "run_failed", "run_finished"]


def test_planner_garbage_without_the_repair_reask_fails_at_once():
    model = ScriptedModel([say("no plan here", role="planner")])
    events = run(model, repair_reask=False)
    model.assert_consumed()
    assert of(events, ev.RunFailed)[0].error_type == "plan_error"


def test_a_repaired_plan_runs():
    model = ScriptedModel([say("Let me think about it.", role="planner"), plan(("Reply", None)), synthesize("Done.")])
    events = run(model)
    model.assert_consumed()
    assert final(events) == "Done." and finished(events).llm_calls == 3


def test_a_500_step_plan_is_cut_to_max_plan_steps():
    model = ScriptedModel(
        [
            plan(*[(f"Look up item {i}", "query_order") for i in range(500)]),
            *[execute(f"Item {i} found.") for i in range(3)],
            synthesize("All found."),
        ]
    )
    events = run(model, max_plan_steps=4)
    model.assert_consumed()
    steps = of(events, ev.PlanEvent)[0].steps
    assert [s["id"] for s in steps] == [1, 2, 3, 4] and steps[-1]["synthesis"] and steps[-1]["tool"] is None
    limit = of(events, ev.LimitReached)[0]
    assert limit.limit == "max_plan_steps" and "500 steps" in limit.message


@pytest.mark.parametrize(
    "reply",
    [
        '{"steps": [{"id": 1, "description": "Query order 99999", "tool": "query_order", "critical": false},'
        ' {"id": 2, "description": "Reply", "tool": null}]}',
        # seed 05's shape: steps keyed by number, out of order on purpose
        '{"steps": {"2": {"description": "Reply", "tool": "null"}, "1": {"description": "Query order 99999",'
        ' "tool": "queryOrder", "critical": "false"}}}',
        '```json\n[{"description": "Query order 99999", "tool": "query_order"}, {"description": "Reply"}]\n```',
        "<think>plan first</think>Here you go: {'steps': [{'description': 'Query order 99999', 'tool': 'query_order',},"
        " 42, {'tool': 'query_order'}, {'description': 'Reply', 'tool': 'none'}]}",
    ],
)
def test_plans_in_many_shapes_parse_into_the_same_steps(reply):
    steps = parse_plan(reply, ["query_order"])
    shaped, cut = shape_plan(steps, first_id=1, max_steps=6, synthesis="Combine")
    assert [(s.id, s.description, s.tool, s.critical, s.synthesis) for s in shaped] == [
        (1, "Query order 99999", "query_order", False, False),
        (2, "Reply", None, False, True),
    ]
    assert cut == 0


def test_a_plan_without_synthesis_gets_one_and_unknown_tools_are_dropped():
    steps = parse_plan(
        '{"steps": [{"description": "Search", "tool": "google"}, {"description": "Look up", "tool": "query_order"}]}',
        ["query_order"],
    )
    assert [s.tool for s in steps] == [None, "query_order"]
    shaped, _ = shape_plan(steps, first_id=4, max_steps=6, synthesis="Combine the results")
    assert [(s.id, s.description, s.synthesis) for s in shaped] == [
        (4, "Search", False),
        (5, "Look up", False),
        (6, "Combine the results", True),
    ]


@pytest.mark.parametrize("reply", ["", "no json at all", "[1, 2, 3]", '{"steps": "first look, then answer"}'])
def test_replies_without_a_plan_parse_to_nothing(reply):
    assert not parse_plan(reply, ["query_order"])


def test_plan_steps_round_trip_through_trace_events():
    step = PlanStep(3, "Reply", None, synthesis=True)
    event = ev.PlanEvent(steps=(step.to_dict(),), revision=2)
    assert ev.event_from_dict(json.loads(json.dumps(event.to_dict()))) == event


# --- models and budget ------------------------------------------------------------------------------


def test_planner_and_executor_can_be_different_models():
    """Seed 05: a strong planner, a fast executor."""
    planner = ScriptedModel([plan(("Query order 10001", "query_order"), ("Reply", None))], name="strong")
    executor = ScriptedModel([execute("", tool("query_order", order_id="10001")), execute("Delivered.")], name="fast")
    default = ScriptedModel([synthesize("Your order was delivered.")], name="default")
    events = run(ac.ModelRouter(default, {"planner": planner, "executor": executor}))
    for model in (planner, executor, default):
        model.assert_consumed()
    assert [(c.role, c.model) for c in of(events, ev.LlmCall)] == [
        ("planner", "strong"),
        ("executor", "fast"),
        ("executor", "fast"),
        ("synthesizer", "default"),
    ]


def test_a_budget_stop_returns_the_results_gathered_so_far():
    model = ScriptedModel(
        [
            plan(("Query order 10001", "query_order"), ("Query waybill SF1", "query_logistics"), ("Reply", None)),
            execute("Order 10001 was delivered."),
        ]
    )
    events = run(model, max_llm_calls=2)
    model.assert_consumed()
    assert of(events, ev.LimitReached)[0].limit == "max_llm_calls"
    assert final(events) == "Order 10001 was delivered." and finished(events).reason == "budget"


# --- the call bound ---------------------------------------------------------------------------------


def test_call_bound_formula():
    cfg = ac.configure(pattern="plan-execute")
    assert call_bound(cfg) == 1 * (2 + 5 * 1 * 3 + 1)  # no Reflector, no rule pre-check: nothing can fail
    cfg = cfg.replace(reflector=True)
    assert call_bound(cfg) == 3 * (2 + 5 * 2 * (3 + 2) + 2 * (1 + 2))
    assert call_bound(cfg.replace(selective_reflection=True)) == 3 * (2 + 5 * 2 * (3 + 2) + 1)
    assert call_bound(cfg.replace(repair_reask=False)) == 3 * (1 + 5 * 2 * (3 + 1) + 2 * (1 + 1))
    assert call_bound(ac.configure(pattern="plan-execute", rule_precheck=True)) == 3 * (2 + 5 * 3 + 1)
    assert ac.call_bound(cfg.replace(max_llm_calls=20)) == 20


def _probe_tools(error):
    return ToolRegistry.of(
        [
            Tool(
                "probe",
                "Probe.",
                {"type": "object", "properties": {"x": {"type": "string"}}},
                lambda x="": {"error": "broken"} if error else {"ok": x},
            )
        ]
    )


def _adversary(config, mode):
    """A model that never lets a run finish early: the planner asks for far too many steps (after a
    garbage first reply when a repair re-ask is allowed), the executor always calls a tool, and the
    Reflector never passes: always RETRY, always REPLAN, or (tight) RETRY until the last attempt, then
    REPLAN on synthesis steps, which is the costliest path through the limits."""
    repair = config.repair_reask
    last_attempt = config.options.max_step_retries + 1

    def reply(request):
        context = request.context
        if request.role in ("planner", "reflector") and repair and not context.repair:
            return "garbage"
        if request.role == "planner":
            return json.dumps({"steps": [{"description": f"Probe {i}", "tool": "probe"} for i in range(20)]})
        if request.role == "executor":
            return say("probing", tool("probe", x="1"))
        if request.role == "synthesizer":
            return "summary"
        if mode == "tight":
            kind = "REPLAN" if context.synthesis and context.attempt == last_attempt else "RETRY"
        else:
            kind = mode
        return json.dumps({"verdict": kind, "analysis": "never good enough", "suggestion": "again"})

    return ScriptedModel.forever(reply)


LIMIT_GRID = [
    dict(zip(("max_plan_steps", "max_step_rounds", "max_step_retries", "max_replans"), values, strict=True))
    for values in itertools.product((1, 3), (1, 3), (0, 2), (0, 2))
]


@pytest.mark.parametrize("limits", LIMIT_GRID, ids=lambda d: "-".join(map(str, d.values())))
@pytest.mark.parametrize(
    "toggles",
    [
        {"reflector": True},
        {"reflector": True, "repair_reask": False},
        {"reflector": True, "selective_reflection": True},
        {"reflector": True, "rule_precheck": True},
        {"rule_precheck": True},
        {},
    ],
)
def test_the_bound_is_never_exceeded(limits, toggles):
    config = ac.configure(pattern="plan-execute", **limits, **toggles)
    bound = call_bound(config)
    modes = ("tight", "RETRY", "REPLAN") if config.options.reflector else ("none",)
    for mode in modes:
        for error in (False, True):
            model = _adversary(config, mode)
            events = list(stream("task", config, ac.ModelRouter(model), _probe_tools(error)))
            assert model.calls <= bound, (mode, error, model.calls, bound)
            assert finished(events).llm_calls == model.calls
            assert of(events, ev.FinalAnswer) or of(events, ev.RunFailed)
            # the costliest path reaches the bound exactly: the formula is tight, not just safe
            if mode == "tight" and not error and not config.options.selective_reflection:
                assert model.calls == bound
