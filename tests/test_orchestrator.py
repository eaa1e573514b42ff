"""Orchestrator–workers with a scripted model: the split parsed at the border, workers that fail and are
re-dispatched with a sharper instruction, a malformed split and review the run survives, a worker at
its step cap, and a call bound that is a formula of the limits — never exceeded, and reached."""

from __future__ import annotations

import itertools
import json

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.patterns import registry
from agent_core.patterns.orchestrator.loop import call_bound
from agent_core.patterns.orchestrator.replies import Redo, parse_review, parse_split
from agent_core.testing import ScriptedModel, say, tool

TASK = "Chase waybill SF0000000 and look up the weather warnings for Beijing."
TOOLS = ("search", "query_logistics")


def configure(**options):
    return ac.configure(pattern="orchestrator", tools=TOOLS, **options)


def split(*instructions, tool_name=None):
    return json.dumps(
        {"subtasks": [{"id": i, "instruction": text, "tool": tool_name} for i, text in enumerate(instructions, 1)]}
    )


def review(decision, reason="", *subtasks):
    return json.dumps({"decision": decision, "reason": reason, "subtasks": list(subtasks)})


def of(result, cls):
    return [e for e in result.events if isinstance(e, cls)]


# --- the replies, parsed at the border ---------------------------------------------------------------


def test_a_split_is_read_in_every_shape_a_model_writes():
    tools = ("query_order", "weather")
    assert parse_split(split("Look up order 1", "Check the weather"), tools)[1].instruction == "Check the weather"
    bare = parse_split('Here you go: [{"task": "Look up order 1", "tool": "queryOrder"}, "Check the weather"]', tools)
    assert [(s.instruction, s.tool) for s in bare] == [("Look up order 1", "query_order"), ("Check the weather", None)]
    numbered = parse_split('{"subtasks": {"2": {"instruction": "second"}, "1": {"instruction": "first"}}}', tools)
    assert [s.instruction for s in numbered] == ["first", "second"]
    fenced = parse_split(
        '<think>hm</think>```json\n{"subtasks": [{"instruction": "one", "tool": "teleport"}]}\n```', tools
    )
    assert [(s.instruction, s.tool) for s in fenced] == [("one", None)]  # a tool nobody has is no hint
    for junk in ("I will just answer it myself.", '{"subtasks": []}', '{"subtasks": [{"tool": "weather"}]}', ""):
        assert parse_split(junk, tools) is None, junk


def test_a_review_is_a_decision_with_what_to_run_again():
    r = parse_review(
        review(
            "REDISPATCH",
            "the booking failed",
            {"id": 2, "instruction": "book Tue 14:00"},
            {"instruction": "also check the calendar"},
            3,
        )
    )
    assert (r.decision, r.reason, r.parsed) == ("REDISPATCH", "the booking failed", True)
    assert r.subtasks == (Redo(2, "book Tue 14:00"), Redo(None, "also check the calendar"), Redo(3))
    assert parse_review('{"verdict": "pass", "analysis": "all there"}').decision == "DONE"
    assert parse_review(review("DONE", "fine", {"id": 1})).subtasks == ()  # DONE re-dispatches nothing
    assert parse_review("**REDISPATCH**: subtask 2 failed") == parse_review("REDISPATCH — subtask 2 failed")
    assert parse_review("REDISPATCH: subtask 2 failed").reason == "subtask 2 failed"
    assert parse_review("Done.").decision == "DONE"
    for junk in ("Complete the booking first.", '{"decision": "maybe"}', "", "Looks fine to me"):
        assert parse_review(junk) is None, junk


def test_the_review_role_reads_a_persons_line_as_its_parser_would():
    role = registry.get("orchestrator").role("orchestrator_review")
    assert role.verdicts == ("DONE", "REDISPATCH")
    reply = role.verdict_reply("REDISPATCH: book the 14:00 slot")
    assert parse_review(reply) == parse_review(review("REDISPATCH", "book the 14:00 slot"))
    assert role.read(reply, ()) == ("REDISPATCH", None) and role.read("whatever", ())[1] is not None
    split_role = registry.get("orchestrator").role("orchestrator")
    assert not split_role.verdicts, "a paused split is answered with subtasks, never with a verdict"
    assert split_role.read(split("one"), ()) == ("1 subtask(s)", None) and split_role.read("no", ())[1]


# --- the loop --------------------------------------------------------------------------------------


def test_a_failed_worker_is_re_dispatched_with_a_sharper_instruction_and_its_previous_result():
    model = ScriptedModel(
        [
            say(split("Track waybill SF0000000", "Find Beijing's weather warnings"), role="orchestrator"),
            say("", tool("query_logistics", tracking_no="SF0000000"), role="worker"),
            say("The courier's system says the waybill does not exist.", role="worker"),
            say("", tool("search", query="Beijing weather warning"), role="worker"),
            say("No warning details in the index.", role="worker"),
            say(
                review(
                    "REDISPATCH",
                    "the waybill number may be mistyped",
                    {"id": 1, "instruction": "Track waybill SF1234567 (the number on the receipt)"},
                ),
                role="orchestrator_review",
            ),
            say("", tool("query_logistics", tracking_no="SF1234567"), role="worker"),
            say("In transit at the Hangzhou hub.", role="worker"),
            say(review("DONE", "both parts answered"), role="orchestrator_review"),
            say("Your parcel is in transit; no warnings were found.", role="synthesizer"),
        ]
    )
    result = ac.run(TASK, configure(max_dispatches=3), model)
    model.assert_consumed()
    assert [(f.step_id, f.status) for f in of(result, ev.StepFinished)] == [(1, "failed"), (2, "done"), (1, "done")]
    assert [v.verdict for v in of(result, ev.VerdictEvent)] == ["REDISPATCH", "DONE"]
    again = of(result, ev.StepStarted)[-1]
    assert (again.step_id, again.attempt) == (1, 2) and "SF1234567" in again.description
    first, revised = of(result, ev.PlanEvent)
    assert [s["status"] for s in revised.steps] == ["pending", "done"] and revised.revision == 1
    assert revised.steps[0]["description"] == "Track waybill SF1234567 (the number on the receipt)"
    # the worker sees its new instruction, the orchestrator's note and what went wrong the first time
    prompt = model.requests[6].messages[0].content
    assert "SF1234567" in prompt and "mistyped" in prompt and "does not exist" in prompt
    assert "Chase waybill" not in prompt, "a worker never sees the user's request"
    assert model.requests[6].context.has_hint and model.requests[6].context.revision == 2
    # the review read every subtask's state; the synthesis the results
    assert (
        "FAILED" in model.requests[5].messages[0].content and "does not exist" in model.requests[5].messages[0].content
    )
    assert result.reason == "pass" and result.final_answer.startswith("Your parcel")
    assert result.llm_calls == 10 <= call_bound(configure(max_dispatches=3))


def test_a_split_that_cannot_be_read_is_asked_again_then_the_whole_task_goes_to_one_worker():
    model = ScriptedModel(
        [
            say("Sure! I'll handle it.", role="orchestrator"),
            say("Still no JSON.", role="orchestrator"),
            say("Done as one job.", role="worker"),
            say(review("DONE"), role="orchestrator_review"),
            say("Here is everything.", role="synthesizer"),
        ]
    )
    result = ac.run(TASK, configure(), model)
    model.assert_consumed()
    (plan,) = of(result, ev.PlanEvent)
    assert [s["description"] for s in plan.steps] == [TASK] and plan.steps[0]["fallback"]
    assert "could not be parsed" in plan.steps[0]["reason"]
    assert model.requests[1].context.repair and result.reason == "pass"
    assert model.requests[2].messages[0].content.count(TASK) == 1  # the worker got the whole request
    # without the repair re-ask the fallback comes at once
    quick = ScriptedModel(["no", "Done.", review("DONE"), "Answer."])
    assert ac.run(TASK, configure().replace(repair_reask=False), quick).llm_calls == 4
    quick.assert_consumed()


def test_a_review_that_cannot_be_read_is_a_visible_done():
    model = ScriptedModel([split("one"), "Result one.", "I am not sure.", "Still unsure.", "The answer."])
    result = ac.run(TASK, configure(), model)
    model.assert_consumed()
    (verdict,) = of(result, ev.VerdictEvent)
    assert (verdict.verdict, verdict.parsed) == ("DONE", False) and "could not be parsed" in verdict.analysis
    assert result.reason == "answer", "a fallback DONE is no pass"


def test_a_worker_at_its_step_cap_answers_with_tools_off_and_its_result_stands():
    calls_forever = ScriptedModel.forever(
        lambda r: (
            split("Search for the warnings")
            if r.role == "orchestrator"
            else review("DONE")
            if r.role == "orchestrator_review"
            else say("Searching more.", tool("search", query=f"q{len(r.messages)}"))
            if r.tools
            else "The index has one thin result."
            if r.role == "worker"
            else "Answer."
        )
    )
    result = ac.run(TASK, configure(worker_steps=3), calls_forever)
    workers = [r for r in calls_forever.requests if r.role == "worker"]
    assert len(workers) == 3 and [bool(r.tools) for r in workers] == [True, True, False]
    assert (
        workers[-1].context.forced and workers[-1].context.last_round and workers[-1].context.prompt == "worker_final"
    )
    assert len(of(result, ev.ToolCallEvent)) == 2 and len(of(result, ev.Thought)) == 2
    (finished,) = of(result, ev.StepFinished)
    assert (finished.status, finished.result) == ("done", "The index has one thin result.")
    assert not of(result, ev.LimitReached), "a worker's cap is its own; the run goes on"


def test_a_subtask_still_failed_after_the_last_round_is_said_and_reported_by_the_synthesis():
    error = say("", tool("query_logistics", tracking_no="SF0000000"))
    model = ScriptedModel(
        [
            split("Track SF0000000"),
            error,
            "It does not exist.",
            "REDISPATCH: try once more",
            error,
            "Still: it does not exist.",
            "Answer: the waybill does not exist.",
        ]
    )
    config = configure(max_dispatches=2)
    result = ac.run(TASK, config, model)
    model.assert_consumed()
    statuses = [f.status for f in of(result, ev.StepFinished)]
    assert statuses == ["failed", "failed"], "no REDISPATCH named it, so the failed one runs again"
    assert [v.verdict for v in of(result, ev.VerdictEvent)] == ["REDISPATCH"]
    (limit,) = of(result, ev.LimitReached)
    assert limit.limit == "max_dispatches" and result.reason == "cap"
    synthesis = model.requests[-1].messages[0].content
    assert "failed" in synthesis.lower() and "does not exist" in synthesis


def test_without_the_review_there_is_one_round_and_a_failure_stays_failed():
    model = ScriptedModel(
        [
            split("a", "b"),
            say("", tool("query_logistics", tracking_no="SF0000000")),
            "No such waybill.",
            "B.",
            "Both, one failed.",
        ]
    )
    config = configure(review=False, max_dispatches=5)
    result = ac.run(TASK, config, model)
    model.assert_consumed()
    assert not of(result, ev.VerdictEvent) and model.roles()[-1] == "synthesizer"
    assert [f.status for f in of(result, ev.StepFinished)] == ["failed", "done"]
    assert not of(result, ev.LimitReached) and result.reason == "answer", "one round is the variant, not a cap"
    assert call_bound(config) == 1 * (2 + 3 * 3) + 1


def test_a_split_past_max_subtasks_is_cut_and_a_review_adds_only_what_fits():
    model = ScriptedModel(
        [
            split("a", "b", "c"),
            "A.",
            "B.",
            review("REDISPATCH", "more", {"instruction": "d"}, {"instruction": "e"}, {"id": 2}),
            "B again.",
            "Answer.",
        ]
    )
    result = ac.run(TASK, configure(max_subtasks=2, max_dispatches=2), model)
    model.assert_consumed()
    limits = [(e.limit, e.value) for e in of(result, ev.LimitReached)]
    assert limits == [("max_subtasks", 2), ("max_subtasks", 2)]
    assert [len(p.steps) for p in of(result, ev.PlanEvent)] == [2, 2]
    assert [s.step_id for s in of(result, ev.StepStarted)] == [1, 2, 2]


def test_a_review_adds_a_subtask_when_there_is_room():
    model = ScriptedModel(
        [
            split("a"),
            "A.",
            review("REDISPATCH", "one part is missing", {"instruction": "b"}),
            "B.",
            review("DONE"),
            "Answer.",
        ]
    )
    result = ac.run(TASK, configure(max_subtasks=3), model)
    model.assert_consumed()
    revised = of(result, ev.PlanEvent)[-1]
    assert [(s["id"], s["description"], s["status"]) for s in revised.steps] == [(1, "a", "done"), (2, "b", "pending")]
    assert [(s.step_id, s.attempt) for s in of(result, ev.StepStarted)] == [(1, 1), (2, 1)]


# --- the bound ---------------------------------------------------------------------------------------


def test_the_bound_is_the_formula_of_the_limits():
    cfg = configure(max_subtasks=3, worker_steps=3, max_dispatches=3)
    assert call_bound(cfg) == 3 * (2 + 3 * 3) + 1 == 34
    assert call_bound(cfg.replace(repair_reask=False)) == 3 * (1 + 9) + 1
    assert call_bound(configure(max_subtasks=1, worker_steps=1, review=False)) == 1 * (2 + 1) + 1
    assert ac.call_bound(cfg.replace(max_llm_calls=10)) == 10
    assert registry.get("orchestrator").bound_formula.startswith("R · (q + max_subtasks · worker_steps) + 1")


def _script(mode: str, n: int, repair: bool):
    """A model for the bound: `worst` takes every path that costs a call — a split read only on its
    repair re-ask, workers that call a tool on every call they may, reviews read only on their re-ask
    that re-dispatch every subtask; `junk` answers nothing usable; `errors` fails every tool."""
    ids = list(range(1, n + 1))

    def reply(request):
        ctx = request.context
        if request.role == "orchestrator":
            if mode == "junk" or (mode == "worst" and repair and not ctx.repair):
                return "no plan here"
            return split(*(f"part {i}" for i in ids))
        if request.role == "orchestrator_review":
            if mode == "junk" or (mode == "worst" and repair and not ctx.repair):
                return "hmm"
            return review("REDISPATCH", "again", *({"id": i, "instruction": f"part {i}, sharper"} for i in ids))
        if request.role == "worker":
            if request.tools and mode == "errors":
                return say("", tool("query_logistics", tracking_no="SF0000000"))
            if request.tools and mode == "worst":
                return say("", tool("search", query=f"{ctx.step_id}-{ctx.round}-{ctx.attempt}"))
            return "" if mode == "junk" else f"result of {ctx.step_id}"
        return "the answer"

    return ScriptedModel.forever(reply)


@pytest.mark.parametrize(
    ("n", "w", "d", "repair"), list(itertools.product((1, 2, 4), (1, 2, 3), (1, 2, 3), (True, False)))
)
def test_the_bound_is_never_exceeded_and_the_costliest_run_reaches_it(n, w, d, repair):
    rounds = {"review": False} if d == 1 else {"max_dispatches": d}
    config = configure(max_subtasks=n, worker_steps=w, **rounds).replace(repair_reask=repair)
    bound = call_bound(config)
    for mode in ("worst", "junk", "errors"):
        model = _script(mode, n, repair)
        result = ac.run(TASK, config, model)
        assert not result.failed, result.failed
        assert model.calls == result.llm_calls <= bound, (mode, model.calls, bound)
        if mode == "worst":
            assert model.calls == bound, "the formula is tight: the costliest path reaches it"
            assert len(of(result, ev.StepStarted)) == n * d


def test_a_hand_answered_review_never_exceeds_the_bound():
    from agent_core.stepping import Breakpoints, RunHandle

    config = configure(max_subtasks=2, worker_steps=2, max_dispatches=3)
    handle = RunHandle.for_run(
        TASK, config, _script("worst", 2, True), breakpoints=Breakpoints(people=frozenset({"orchestrator_review"}))
    ).start()
    role = registry.get("orchestrator").role("orchestrator_review")
    answered = 0
    while True:
        handle_paused = _wait(handle)
        if handle_paused is None:
            break
        handle.answer(role.verdict_reply("REDISPATCH: not good enough"))
        answered += 1
    assert handle.join(10)
    events = list(handle.drain())
    assert answered == 2 and events[-1].llm_calls <= call_bound(config)
    assert [e.verdict for e in events if isinstance(e, ev.VerdictEvent)] == ["REDISPATCH", "REDISPATCH"]


def _wait(handle, timeout=10.0):
    import time

    deadline = time.monotonic() + timeout
    while not (handle.paused or not handle.alive):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)
    return handle.pending
