"""Offline runs outside the nine scripts stay coherent: a free task's scripted run is
labelled as scripted, quotes the task (never a prompt template) and cuts no word; the mock tools
answer in the run's language."""

from __future__ import annotations

import json
import re

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import mock_tools
from agent_core.offline.scripts.generic import LABEL, shortened

TASKS = {
    "en": "Write a short welcome note for the new hires at our neighbourhood bakery, with one practical "
    "tip about surviving the early shift and where to find the coffee.",
    "zh": "为我们社区面包店的新员工写一段简短的欢迎词，并给出一条关于如何熬过早班、以及去哪儿找咖啡的实用建议。",
}
#: headings and opening words of the default prompt templates, which a scripted reply must never quote
TEMPLATE_WORDS = ("## Task", "## 任务", "You are revising", "Complete the task below", "## Your")


def texts(result: ac.RunResult) -> list[str]:
    """Everything a person reads from the run: drafts, answers, plans, step results."""
    out = []
    for e in result.events:
        if isinstance(e, ev.Draft | ev.FinalAnswer):
            out.append(e.text)
        elif isinstance(e, ev.StepFinished):
            out.append(e.result)
        elif isinstance(e, ev.PlanEvent):
            out += [s["description"] for s in e.steps]
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("pattern", ac.PATTERNS)
def test_a_free_task_is_answered_coherently_and_labelled_as_scripted(pattern, lang):
    result = ac.run(TASKS[lang], ac.configure(pattern=pattern, lang=lang), ac.OfflineModel())
    shown = texts(result)
    answer = next(e.text for e in result.events if isinstance(e, ev.FinalAnswer))
    assert answer.startswith(LABEL[lang]), answer
    for body in shown:
        assert not any(w in body for w in TEMPLATE_WORDS), body
        for quoted in re.findall(r"“(.+?)”", body):
            # the task itself, whole or cut between words with an ellipsis
            head = quoted.removesuffix("…")
            assert TASKS[lang].startswith(head), quoted
            if quoted.endswith("…") and lang == "en":
                assert TASKS[lang][len(head)] == " ", f"cut inside a word: {quoted!r}"


@pytest.mark.parametrize("pattern", ["reflection", "react"])
def test_a_scenario_task_under_another_pattern_quotes_the_task_not_the_template(pattern):
    config, task = ac.for_scenario("order-99999")
    config = ac.configure(pattern=pattern, lang="en", scenario="order-99999", tools=config.tools)
    result = ac.run(task, config, ac.OfflineModel())
    for body in texts(result):
        assert not any(w in body for w in TEMPLATE_WORDS), body


def test_shortened_cuts_between_words_and_between_cjk_characters():
    assert shortened("one two three four", 9) == "one two…"
    assert shortened("one two three", 50) == "one two three"
    assert shortened("  spread\nover   lines ", 50) == "spread over lines"
    assert shortened("早班的建议非常重要", 4) == "早班的建…"
    assert shortened("x" * 30, 10) == "x" * 10 + "…"  # one long word: cut, and said so


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_mock_tools_answer_in_the_runs_language(lang):
    tools = mock_tools.registry(None, lang)
    outputs = [
        tools.run("query_order", {"order_id": "99999"}).output,
        tools.run("query_order", {"order_id": "123"}).output,
        tools.run("query_logistics", {"tracking_no": "SF0000000"}).output,
        tools.run("weather", {"city": "Beijing"}).output,
        tools.run("search", {"query": "warnings"}).output,
        tools.run("compare_products", {"products": "R1, R7 Pro"}).output,
    ]
    han = re.compile(r"[\u4e00-\u9fff]")
    for out in outputs:
        words = "".join(v for v in _strings(json.loads(out)))
        if lang == "en":
            assert not han.search(words), out
        else:
            assert han.search(words), out
    assert json.loads(outputs[0])["status"] == ("syncing" if lang == "en" else "查询中")


def test_the_language_is_the_runs_not_an_argument():
    obs = mock_tools.registry(["query_order"], "zh").run("query_order", {"order_id": "99999", "lang": "en"})
    assert obs.is_error and "lang" in obs.output


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_order_run_sees_tool_output_in_its_language(lang):
    config, task = ac.for_scenario("order-99999", lang)
    result = ac.run(task, config, ac.OfflineModel())
    outputs = [e.output for e in result.events if isinstance(e, ev.ToolResult)]
    assert outputs and all(bool(re.search(r"[\u4e00-\u9fff]", o)) == (lang == "zh") for o in outputs), outputs


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@pytest.mark.parametrize("scenario", list(ac.SCENARIOS))
def test_covers_says_which_runs_the_scripts_play_and_which_are_placeholders(scenario):
    from agent_core.offline import covers

    for pattern in ac.PATTERNS:
        config, task = ac.for_scenario(scenario)
        config = ac.configure(pattern=pattern, lang="en", scenario=scenario, tools=config.tools)
        answer = next(
            (e.text for e in ac.run(task, config, ac.OfflineModel()).events if isinstance(e, ev.FinalAnswer)), ""
        )
        assert covers(scenario, pattern) == (not answer.startswith(LABEL["en"])), (scenario, pattern, answer[:80])
    assert not covers(None, "react")
