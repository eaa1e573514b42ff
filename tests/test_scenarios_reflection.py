"""The Reflection scenarios play their seeds' documented runs on the offline model, in both languages."""

import re

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.patterns.reflection.offline import PARSE_KV_DRAFTS, PRIMES_DRAFTS
from agent_core.patterns.reflection.prompts import DEFAULT_CRITERIA
from agent_core.patterns.reflection.scenarios import PARSE_KV_TESTS, PRIMES_TESTS
from agent_core.sandbox import run_python_tests


def play(scenario, lang="en", **overrides):
    config, task = ac.for_scenario(scenario, lang, **overrides)
    return ac.run(task, config, ac.OfflineModel())


def of(result, cls):
    return [e for e in result.events if isinstance(e, cls)]


def roles(result):
    return [e.role for e in of(result, ev.LlmCall)]


@pytest.mark.parametrize(
    "lang, sieve, stop",
    [("en", "Sieve of Eratosthenes", "no improvement needed"), ("zh", "埃拉托斯特尼筛法", "无需改进")],
)
def test_primes_trial_division_then_sieve_then_stop(lang, sieve, stop):
    result = play("primes", lang)
    drafts = of(result, ev.Draft)
    assert [d.version for d in drafts] == [0, 1]
    assert "num % divisor" in drafts[0].text and "is_prime = [True] * (n + 1)" in drafts[1].text
    assert not any("```" in d.text for d in drafts)
    revise, passed = of(result, ev.VerdictEvent)
    assert revise.verdict == "REVISE" and "O(n·√n)" in revise.analysis and sieve in revise.feedback
    assert passed.verdict == "PASS" and "O(n log log n)" in passed.analysis and stop in passed.feedback.lower()
    assert roles(result) == ["actor", "critic", "refiner", "critic"]
    assert result.final_answer == drafts[1].text and result.reason == "pass"


def test_primes_with_one_iteration_returns_the_uncritiqued_sieve_at_the_cap():
    result = play("primes", max_iterations=1)
    assert roles(result) == ["actor", "critic", "refiner"]
    assert of(result, ev.LimitReached)[0].limit == "max_iterations" and result.reason == "cap"
    assert "is_prime" in result.final_answer


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_primes_drafts_pass_their_unit_tests_in_the_sandbox(lang):
    result = play("primes", lang, test_evaluator=True)
    calls, results = of(result, ev.ToolCallEvent), of(result, ev.ToolResult)
    assert [c.arguments for c in calls] == [{"draft": 0}, {"draft": 1}] and {c.name for c in calls} == {"unit_tests"}
    assert [r.is_error for r in results] == [False, False]
    assert all(r.output == "all 4 tests passed" for r in results)
    # passing tests do not make the critic pass a slow draft: efficiency is still the critic's call
    assert [v.verdict for v in of(result, ev.VerdictEvent)] == ["REVISE", "PASS"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_code_review_three_rounds_of_concrete_points_and_the_last_draft_wins(lang):
    result = play("code-review", lang)
    drafts, verdicts = of(result, ev.Draft), of(result, ev.VerdictEvent)
    assert [d.version for d in drafts] == [0, 1, 2, 3]
    assert roles(result) == ["actor", "critic"] * 3 + ["actor"]
    assert [v.verdict for v in verdicts] == ["REVISE"] * 3
    for verdict in verdicts:  # at least three numbered points, with an example input that breaks the draft
        assert len(re.findall(r"^\d\. ", verdict.feedback, re.MULTILINE)) >= 3
        assert re.search(r'"\w+ ?=|parse_kv\(None\)', verdict.feedback)
    assert "partition" in verdicts[0].feedback and "ValueError" in verdicts[1].feedback
    assert "TypeError" in verdicts[2].feedback
    assert "partition" in drafts[1].text and "duplicate key" in drafts[2].text and "_split_pair" in drafts[3].text
    assert of(result, ev.LimitReached)[0].limit == "max_iterations"
    assert result.final_answer == drafts[-1].text and result.reason == "cap"


def test_code_review_with_a_fourth_round_ends_on_no_improvement_needed():
    result = play("code-review", max_iterations=4)
    assert [v.verdict for v in of(result, ev.VerdictEvent)] == ["REVISE"] * 3 + ["PASS"]
    assert result.reason == "pass" and result.llm_calls == 8


def test_code_review_in_the_classic_loop_plays_the_same_drafts():
    result = play("code-review", graph_style=False)
    assert roles(result) == ["actor", "critic", "refiner", "critic", "refiner", "critic", "refiner"]
    assert "_split_pair" in result.final_answer


@pytest.mark.parametrize(
    "code, tests",
    [
        *(pytest.param(d, PRIMES_TESTS, id=f"primes-v{v}") for v, d in enumerate(PRIMES_DRAFTS)),
        *(pytest.param(d, PARSE_KV_TESTS, id=f"parse_kv-v{v}") for v, d in enumerate(PARSE_KV_DRAFTS)),
    ],
)
def test_every_scripted_code_draft_passes_its_scenario_tests(code, tests):
    assert run_python_tests(code, tests).passed


@pytest.mark.parametrize(
    "lang, unmet, owner",
    [("en", "Unmet criteria: 1, 2 and 3", "(owner:"), ("zh", "未满足的标准：1、2、3", "（负责人：")],
)
def test_report_is_revised_until_every_criterion_is_met(lang, unmet, owner):
    result = play("report-criteria", lang)
    first, second, last = of(result, ev.VerdictEvent)
    assert (first.verdict, second.verdict, last.verdict) == ("REVISE", "REVISE", "PASS")
    assert first.feedback.startswith(unmet)
    assert re.search(r"(criterion|标准)[:：]? ?3", second.feedback, re.IGNORECASE)
    assert roles(result) == ["actor", "critic", "refiner", "critic", "refiner", "critic"]
    drafts = [d.text for d in of(result, ev.Draft)]
    assert owner not in drafts[1] and drafts[2].count(owner) == 3
    final = result.final_answer
    assert final == drafts[2] and result.reason == "pass"
    # the final report really meets criteria 1, 2 and 4
    assert "3.8%" in final and "3.1%" in final
    assert len(re.findall(r"^[123]\. ", final, re.MULTILINE)) == 3
    assert len(final.split()) < 250 if lang == "en" else len(re.sub(r"\s", "", final)) <= 400


def test_report_criteria_reach_the_critic_in_the_runs_language():
    offline, critic_requests = ac.OfflineModel(), []

    class Spy:
        name = "spy"

        def stream(self, request):
            critic_requests.append(request)
            yield from offline.stream(request)

    config, task = ac.for_scenario("report-criteria", "zh")
    assert config.options.criteria == "default"
    ac.run(task, config, ac.ModelRouter(offline, {"critic": Spy()}))
    assert len(critic_requests) == 3
    assert all(f"## 质量标准\n{DEFAULT_CRITERIA['zh']}" in r.messages[0].content for r in critic_requests)


@pytest.mark.parametrize("lang, label", [("en", "Scripted offline demo"), ("zh", "离线脚本演示")])
@pytest.mark.parametrize("graph_style", [False, True])
def test_free_text_task_is_a_short_labelled_revise_then_pass(lang, label, graph_style):
    config = ac.configure(pattern="reflection", lang=lang, graph_style=graph_style)
    result = ac.run("Explain what a hash map is.", config, ac.OfflineModel())
    assert [v.verdict for v in of(result, ev.VerdictEvent)] == ["REVISE", "PASS"]
    drafts = of(result, ev.Draft)
    assert len(drafts) == 2 and all(label in d.text for d in drafts) and drafts[0].text != drafts[1].text
    assert result.final_answer == drafts[1].text and result.reason == "pass"
