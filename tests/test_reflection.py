"""Reflection, told through the seeds' stories with a scripted model."""

import json

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.errors import ConfigError
from agent_core.patterns.reflection.loop import call_bound, clean_draft, stream
from agent_core.patterns.reflection.prompts import DEFAULT_CRITERIA
from agent_core.testing import ScriptedModel, say

PRIMES_TASK = ac.SCENARIOS["primes"].task.en

TRIAL_DIVISION = '''def find_primes(n):
    """Primes from 1 to n by trial division."""
    return [k for k in range(2, n + 1) if all(k % d for d in range(2, int(k ** 0.5) + 1))]'''

SIEVE = '''def find_primes(n):
    """Primes from 1 to n with the Sieve of Eratosthenes."""
    if n < 2:
        return []
    is_prime = [True] * (n + 1)
    is_prime[0] = is_prime[1] = False
    for p in range(2, int(n ** 0.5) + 1):
        if is_prime[p]:
            is_prime[p * p::p] = [False] * len(is_prime[p * p::p])
    return [k for k in range(n + 1) if is_prime[k]]'''

WRONG = '''def find_primes(n):
    """Odd numbers are not all prime."""
    return [2] + list(range(3, n + 1, 2)) if n >= 2 else []'''

TESTS = "assert find_primes(1) == []\nassert find_primes(10) == [2, 3, 5, 7]\nassert find_primes(30)[-1] == 29\n"


def kinds(events, *, skip=("token", "llm_call")):
    return [e.kind for e in events if e.kind not in skip]


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def reflect(models, task="task", **options):
    config = ac.configure(pattern="reflection", **options)
    router = models if isinstance(models, ac.ModelRouter) else ac.ModelRouter(models)
    return list(stream(task, config, router))


def fenced(code):
    return f"Here is the code:\n```python\n{code}\n```\nIt follows PEP 8."


def critic(verdict, feedback, analysis=""):
    return say(
        json.dumps({"verdict": verdict, "analysis": analysis, "feedback": feedback}, ensure_ascii=False), role="critic"
    )


def test_seed04_primes_trial_division_then_sieve_then_no_improvement_needed():
    """Seed 04: O(n·√n) draft, REVISE towards the sieve, sieve draft, PASS — two drafts, four calls."""
    model = ScriptedModel(
        [
            say(fenced(TRIAL_DIVISION), role="actor"),
            critic("REVISE", "Use the Sieve of Eratosthenes: O(n log log n).", "Trial division is O(n·√n)."),
            say(fenced(SIEVE), role="refiner"),
            critic("PASS", "Segmented or odd-only sieves exist, but no improvement needed.", "O(n log log n)."),
        ]
    )
    events = reflect(model, PRIMES_TASK, max_iterations=2, code_task=True)
    model.assert_consumed()
    assert kinds(events) == ["run_started", "draft", "verdict", "draft", "verdict", "final_answer", "run_finished"]
    assert model.roles() == ["actor", "critic", "refiner", "critic"]
    drafts = of(events, ev.Draft)
    assert [(d.version, d.step) for d in drafts] == [(0, 0), (1, 1)]
    assert [d.text for d in drafts] == [TRIAL_DIVISION, SIEVE]  # fences and prose are gone
    assert [(v.verdict, v.role, v.step) for v in of(events, ev.VerdictEvent)] == [
        ("REVISE", "critic", 1),
        ("PASS", "critic", 2),
    ]
    assert of(events, ev.VerdictEvent)[0].analysis == "Trial division is O(n·√n)."
    assert of(events, ev.FinalAnswer)[0].text == SIEVE
    assert of(events, ev.RunFinished)[0].reason == "pass"
    # the initial prompt is seed 04's code prompt; the critic reviews the clean draft
    assert "senior Python programmer" in model.requests[0].messages[0].content
    assert TRIAL_DIVISION in model.requests[1].messages[0].content and "```" not in TRIAL_DIVISION
    # the refiner gets the task, the last draft and the feedback
    refine = model.requests[2].messages[0].content
    assert all(part in refine for part in (PRIMES_TASK, TRIAL_DIVISION, "Use the Sieve of Eratosthenes"))


def test_stop_phrase_in_free_text_stops_the_loop():
    model = ScriptedModel([say("初稿", role="actor"), say("结构清楚，论证充分，无需改进。", role="critic")])
    events = reflect(model, "写一段话", lang="zh", max_iterations=3)
    model.assert_consumed()
    verdict = of(events, ev.VerdictEvent)[0]
    assert verdict.passed and verdict.parsed and "无需改进" in verdict.feedback
    assert of(events, ev.RunFinished)[0].reason == "pass" and of(events, ev.FinalAnswer)[0].text == "初稿"


def test_free_text_critique_without_a_stop_phrase_is_revise():
    model = ScriptedModel(
        [
            say("v0", role="actor"),
            say("Too vague: add numbers.", role="critic"),
            say("v1", role="refiner"),
            say("No improvement needed.", role="critic"),
        ]
    )
    events = reflect(model, max_iterations=3)
    model.assert_consumed()
    assert [v.verdict for v in of(events, ev.VerdictEvent)] == ["REVISE", "PASS"]
    assert "Too vague: add numbers." in model.requests[2].messages[0].content


def test_a_critic_that_never_passes_hits_max_iterations_and_the_last_draft_wins():
    counter = iter(range(100))
    model = ScriptedModel.forever(
        lambda r: critic("REVISE", "still not good") if r.role == "critic" else say(f"draft {next(counter)}")
    )
    events = reflect(model, max_iterations=3)
    assert model.roles() == ["actor"] + ["critic", "refiner"] * 3
    assert [d.version for d in of(events, ev.Draft)] == [0, 1, 2, 3]
    limit = of(events, ev.LimitReached)[0]
    assert (limit.limit, limit.value) == ("max_iterations", 3) and "not critiqued" in limit.message
    assert kinds(events)[-4:] == ["draft", "limit_reached", "final_answer", "run_finished"]
    assert of(events, ev.FinalAnswer)[0].text == "draft 3"
    assert of(events, ev.RunFinished)[0].reason == "cap"


@pytest.mark.parametrize("graph_style", [False, True])
@pytest.mark.parametrize("iterations, reask", [(1, True), (2, False), (3, True), (8, True)])
def test_call_bound_is_never_exceeded_and_is_reached(iterations, reask, graph_style):
    """The worst critic: an empty reply (re-asked when the repair is on), then REVISE."""

    def reply(request):
        if request.role != "critic":
            return "a draft"
        return "too slow" if request.context.repair or not reask else ""

    model = ScriptedModel.forever(reply)
    config = ac.configure(pattern="reflection", max_iterations=iterations, repair_reask=reask, graph_style=graph_style)
    events = list(stream("t", config, ac.ModelRouter(model)))
    assert model.calls == call_bound(config) == 1 + iterations * (3 if reask else 2)
    assert of(events, ev.RunStarted)[0].max_llm_calls == call_bound(config)
    assert of(events, ev.RunFinished)[0].reason == "cap"


def test_an_empty_critique_is_reasked_once_then_keeps_the_draft_visibly():
    model = ScriptedModel([say("v0", role="actor"), say("", role="critic"), say("<think>hmm</think>", role="critic")])
    events = reflect(model, max_iterations=2)
    model.assert_consumed()
    verdict = of(events, ev.VerdictEvent)[0]
    assert verdict.passed and verdict.parsed is False
    assert of(events, ev.FinalAnswer)[0].text == "v0"


def test_trajectory_reaches_the_refiner_when_use_trajectory_is_on():
    def run(use_trajectory):
        model = ScriptedModel(
            [
                say("draft zero", role="actor"),
                critic("REVISE", "feedback one"),
                say("draft one", role="refiner"),
                critic("REVISE", "feedback two"),
                say("draft two", role="refiner"),
            ]
        )
        reflect(model, max_iterations=2, use_trajectory=use_trajectory)
        model.assert_consumed()
        return model.requests[4].messages[0].content  # the second refinement

    refine = run(True)
    order = [
        refine.index(s)
        for s in (
            "Trajectory so far",
            "Attempt (version 0)",
            "draft zero",
            "feedback on version 0",
            "feedback one",
            "Attempt (version 1)",
            "feedback on version 1",
        )
    ]
    assert order == sorted(order)
    without = run(False)
    assert "draft zero" not in without and "Trajectory" not in without
    assert "draft one" in without and "feedback two" in without


def test_actor_and_critic_can_be_different_models():
    """Seed 05: an actor model writes and refines, a separate critic model judges."""
    actor = ScriptedModel([say("v0", role="actor"), say("v1", role="refiner")], name="writer")
    judge = ScriptedModel([critic("REVISE", "add a summary"), critic("PASS", "no improvement needed")], name="reviewer")
    events = reflect(ac.ModelRouter(actor, {"critic": judge}), max_iterations=3)
    actor.assert_consumed()
    judge.assert_consumed()
    assert actor.roles() == ["actor", "refiner"] and judge.roles() == ["critic", "critic"]
    assert [(c.role, c.model) for c in of(events, ev.LlmCall)] == [
        ("actor", "writer"),
        ("critic", "reviewer"),
        ("refiner", "writer"),
        ("critic", "reviewer"),
    ]


def test_criteria_default_is_rendered_into_critic_and_refiner_prompts():
    model = ScriptedModel(
        [say("v0", role="actor"), critic("REVISE", "unmet: 3"), say("v1", role="refiner"), critic("PASS", "all met")]
    )
    reflect(model, max_iterations=2, criteria="default")
    critique, refine = model.requests[1].messages[0].content, model.requests[2].messages[0].content
    assert "## Quality criteria" in critique and DEFAULT_CRITERIA["en"] in critique
    assert DEFAULT_CRITERIA["en"] in refine
    assert DEFAULT_CRITERIA["en"] not in model.requests[0].messages[0].content  # seed 05: the actor sees the task


def test_custom_criteria_replace_the_default_and_none_leave_no_heading():
    model = ScriptedModel([say("草稿", role="actor"), critic("PASS", "无需改进")])
    reflect(model, lang="zh", criteria="1. 不超过 50 字")
    assert "## 质量标准\n1. 不超过 50 字" in model.requests[1].messages[0].content
    plain = ScriptedModel([say("v0", role="actor"), critic("PASS", "fine")])
    reflect(plain)
    assert "Quality criteria" not in plain.requests[1].messages[0].content


def test_graph_style_generator_and_reviewer_share_one_history():
    """Seed 02: each review becomes a user message for the generator; the last generator output wins."""
    model = ScriptedModel(
        [
            say(fenced("def f(): return 1"), role="actor"),
            say("1. Name the function.\n2. Add a docstring.", role="critic"),
            say(fenced("def one():\n    return 1"), role="actor"),
            say("1. Add a docstring.", role="critic"),
            say(fenced('def one():\n    """One."""\n    return 1'), role="actor"),
        ]
    )
    events = reflect(model, "write f", max_iterations=2, graph_style=True, code_task=True)
    model.assert_consumed()
    assert model.roles() == ["actor", "critic", "actor", "critic", "actor"]
    assert [r.context.node for r in model.requests] == ["generator", "reviewer"] * 2 + ["generator"]
    second_gen, second_review = model.requests[2].messages, model.requests[3].messages
    assert [m.role for m in second_gen] == ["system", "user", "assistant", "user"]
    assert second_gen[-1].content == "1. Name the function.\n2. Add a docstring."
    assert "senior software engineer" in second_gen[0].content
    # the reviewer sees the same history with the speakers swapped: the latest draft is the user's turn
    assert [m.role for m in second_review] == ["system", "user", "user", "assistant", "user"]
    assert "code reviewer" in second_review[0].content and "def one()" in second_review[-1].content
    assert [v.verdict for v in of(events, ev.VerdictEvent)] == ["REVISE", "REVISE"]
    assert of(events, ev.LimitReached)[0].limit == "max_iterations"
    assert of(events, ev.FinalAnswer)[0].text == 'def one():\n    """One."""\n    return 1'


def test_graph_style_reviewer_may_stop_with_the_stop_phrase():
    model = ScriptedModel(
        [
            say("v0", role="actor"),
            say("1. Fix the name.", role="critic"),
            say("v1", role="actor"),
            say("无需改进：命名和结构都清楚。", role="critic"),
        ]
    )
    events = reflect(model, max_iterations=3, graph_style=True)
    model.assert_consumed()
    assert [v.verdict for v in of(events, ev.VerdictEvent)] == ["REVISE", "PASS"]
    assert of(events, ev.FinalAnswer)[0].text == "v1" and of(events, ev.RunFinished)[0].reason == "pass"


def test_failing_unit_tests_force_revise_and_reach_the_refiner():
    """Reflexion: the critic would pass a wrong draft, the tests say otherwise, the fix passes both."""
    model = ScriptedModel(
        [
            say(fenced(WRONG), role="actor"),
            critic("PASS", "Looks efficient; no improvement needed."),
            say(fenced(SIEVE), role="refiner"),
            critic("PASS", "no improvement needed"),
        ]
    )
    events = reflect(model, PRIMES_TASK, max_iterations=3, code_task=True, test_evaluator=True, tests=TESTS)
    model.assert_consumed()
    assert kinds(events) == [
        "run_started",
        "draft",
        "tool_call",
        "tool_result",
        "verdict",
        "draft",
        "tool_call",
        "tool_result",
        "verdict",
        "final_answer",
        "run_finished",
    ]
    calls, results = of(events, ev.ToolCallEvent), of(events, ev.ToolResult)
    assert [(c.name, c.arguments, c.call_id, c.step) for c in calls] == [
        ("unit_tests", {"draft": 0}, "unit_tests-0", 0),
        ("unit_tests", {"draft": 1}, "unit_tests-1", 1),
    ]
    assert [r.is_error for r in results] == [True, False]
    assert "1 of 3 tests failed" in results[0].output and "got [2, 3, 5, 7, 9]" in results[0].output
    revise, passed = of(events, ev.VerdictEvent)
    assert revise.verdict == "REVISE" and revise.feedback.startswith("The unit tests failed: 1 of 3 tests failed")
    assert "overrides the critic's PASS" in revise.analysis and passed.passed
    assert "## Unit test results\n1 of 3 tests failed" in model.requests[1].messages[0].content
    assert "The unit tests failed: 1 of 3 tests failed" in model.requests[2].messages[0].content
    assert of(events, ev.FinalAnswer)[0].text == SIEVE


def test_failing_tests_lead_the_critics_own_feedback_in_graph_style():
    model = ScriptedModel(
        [
            say(WRONG, role="actor"),
            say("1. Use a sieve.", role="critic"),
            say(SIEVE, role="actor"),
            say("No improvement needed.", role="critic"),
        ]
    )
    events = reflect(model, max_iterations=2, graph_style=True, test_evaluator=True, tests=TESTS)
    model.assert_consumed()
    revise = of(events, ev.VerdictEvent)[0]
    assert revise.feedback.startswith("The unit tests failed") and revise.feedback.endswith("1. Use a sieve.")
    assert "## Unit test results" in model.requests[1].messages[-1].content
    assert model.requests[2].messages[-1].content == revise.feedback
    assert [r.is_error for r in of(events, ev.ToolResult)] == [True, False]


@pytest.mark.parametrize("tests, message", [("  ", "no tests are given"), ("assert (", "do not parse")])
def test_the_evaluator_refuses_missing_or_broken_tests_before_any_call(tests, message):
    model = ScriptedModel([])
    config = ac.configure(pattern="reflection", test_evaluator=True, tests=tests)
    with pytest.raises(ConfigError, match=message):
        stream("t", config, ac.ModelRouter(model))
    assert model.calls == 0


def test_the_run_wide_budget_stops_cleanly_with_the_latest_draft():
    model = ScriptedModel.forever(lambda r: critic("REVISE", "more") if r.role == "critic" else say(f"{r.role} draft"))
    events = reflect(model, max_iterations=5, max_llm_calls=4)
    assert model.calls == 4
    assert of(events, ev.LimitReached)[0].limit == "max_llm_calls"
    assert of(events, ev.FinalAnswer)[0].text == "refiner draft"
    assert of(events, ev.RunFinished)[0].reason == "budget"


@pytest.mark.parametrize(
    "text, code, expected",
    [
        ("```python\nx = 1\n```", True, "x = 1"),
        ("Sure! Here it is:\n```py\ndef f():\n    return 2\n```\nUsage: `f()`", True, "def f():\n    return 2"),
        ("<think>plan</think>\n```\n    indented = True\n", True, "    indented = True"),  # unclosed fence
        ("```text\nnotes\n```\n```python\ncode()\n```", True, "code()"),
        ("no fences here", True, "no fences here"),
        ("Prose with ```python\nkept()\n``` inside", False, "Prose with ```python\nkept()\n``` inside"),
    ],
)
def test_clean_draft_keeps_only_the_code_of_code_drafts(text, code, expected):
    assert clean_draft(text, code) == expected
