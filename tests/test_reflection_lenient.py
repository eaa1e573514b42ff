"""The lenient critic (`lenient_critic`): one sentence at the end of the critic's prompt for a real model,
and the input "stance" on the critic's call for the offline one, which passes what the exacting
critic sends back for polish or detail and still sends back a draft that does not do the task."""

from __future__ import annotations

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.calls import MessageTable
from agent_core.patterns.reflection.prompts import LENIENT
from agent_core.testing import ScriptedModel


def verdicts(result: ac.RunResult) -> list[str]:
    return [e.verdict for e in result.events if isinstance(e, ev.VerdictEvent)]


def run(scenario: str, lang: str = "en", **options: object) -> ac.RunResult:
    config, task = ac.for_scenario(scenario, lang)
    return ac.run(task, config.replace(**options), ac.OfflineModel())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lenient_critic_passes_the_report_the_exacting_one_sends_back_for_its_owners(lang):
    exacting, lenient = run("report-criteria", lang), run("report-criteria", lang, lenient_critic=True)
    assert verdicts(exacting) == ["REVISE", "REVISE", "PASS"] and verdicts(lenient) == ["REVISE", "PASS"]
    owner = "owner:" if lang == "en" else "负责人"
    assert owner in exacting.final_answer and owner not in lenient.final_answer
    assert exacting.llm_calls == 6 and lenient.llm_calls == 4


def test_seed_04s_trial_division_passes_a_lenient_critic_and_never_becomes_a_sieve():
    exacting, lenient = run("primes"), run("primes", lenient_critic=True)
    assert verdicts(exacting) == ["REVISE", "PASS"] and "is_prime = [True]" in exacting.final_answer
    assert verdicts(lenient) == ["PASS"] and "divisor" in lenient.final_answer


def test_a_lenient_reviewer_still_sends_back_code_that_crashes_on_valid_input():
    lenient = run("code-review", lenient_critic=True)  # graph style: free-text reviews
    assert verdicts(lenient) == ["REVISE", "PASS"]
    assert verdicts(run("code-review")) == ["REVISE", "REVISE", "REVISE"]


@pytest.mark.parametrize("graph_style", [False, True])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sentence_ends_the_critics_prompt_and_the_stance_rides_on_its_call(graph_style, lang):
    seen = []

    def critic(request):  # noqa: ANN001, ANN202 - a scripted reply that records what the critic was sent
        seen.append(request)
        return '{"verdict": "PASS", "analysis": "ok", "feedback": "no improvement needed"}'

    model = ScriptedModel(["draft", critic])
    config = ac.configure("reflection", lang=lang, graph_style=graph_style, lenient_critic=True)
    result = ac.run("Write a haiku about tea.", config, model)
    assert verdicts(result) == ["PASS"]
    (request,) = seen
    sent = request.messages[-1] if not graph_style else request.messages[0]
    assert sent.content.endswith(LENIENT[lang]) and request.context.input("stance") == "lenient"
    calls = [e for e in result.events if isinstance(e, ev.LlmCall)]
    assert MessageTable(result.events).request(calls[1])[0 if graph_style else -1]["content"].endswith(LENIENT[lang])


def test_off_the_critic_is_sent_its_template_alone():
    config, task = ac.for_scenario("report-criteria")
    result = ac.run(task, config, ac.OfflineModel())
    call = next(e for e in result.events if isinstance(e, ev.LlmCall) and e.role == "critic")
    assert LENIENT["en"].strip() not in MessageTable(result.events).request(call)[-1]["content"]
