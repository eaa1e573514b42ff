"""A placeholder is a bare name: `{task:>20000000}` (a 17-byte template that made a 20 MB prompt and
trace), `{task!r}`, `{task[0]}` and `{task.x}` are refused wherever a template is checked — the
prompt editor (in both languages), the CLI, step mode, a trace or an import that carries one — and
`PromptSet.render` never applies a spec or a conversion, whatever it is handed."""

from __future__ import annotations

import json

import pytest

from agent_core import examples, trace
from agent_core.cli import main
from agent_core.errors import TemplateError, TraceFormatError
from agent_core.patterns.registry import check_overrides, specs_for
from agent_core.prompts import PromptSet, placeholders
from pages.ui import i18n, setup_state
from tests.app_pages import open_page

#: (template field, what it does) — each more than naming a value
NOT_BARE = [
    ("{question:>20000000}", "a width of 20 MB"),
    ("{question:{answer}}", "a nested width"),
    ("{question!r}", "a conversion"),
    ("{question!s:^999}", "both"),
    ("{question[0]}", "an index"),
    ("{question.__class__}", "an attribute"),
    ("{question:,}", "a grouping spec"),
]


@pytest.mark.parametrize(("field", "_what"), NOT_BARE, ids=[w for _f, w in NOT_BARE])
def test_a_placeholder_that_does_more_than_name_a_value_is_refused(field, _what):
    with pytest.raises(TemplateError, match="does more than name a value; a placeholder is a bare name") as info:
        check_overrides("react", "en", {"judge": f"{field} {{answer}}"})
    assert info.value.kind == "format" and info.value.role == "judge"
    assert len(str(info.value)) < 400  # a 20 MB spec is not repeated in the message


def test_bare_names_and_literal_braces_still_work():
    prompts = PromptSet(specs_for("react"), "en", {"judge": "{{not a field:>9}} {question} / {answer}"})
    assert prompts.render("judge", question="q", answer="a") == "{not a field:>9} q / a"
    assert placeholders("{question:} {answer}") == ["question", "answer"]  # an empty spec formats nothing


def test_render_never_applies_a_spec_even_if_one_got_past_validation():
    prompts = PromptSet(specs_for("react"), "en")
    # what a bug elsewhere could hand it: a parsed template that still carries a spec and a conversion
    prompts._parsed["judge"] = [("", "question", ">20000000", "r"), (" ", "answer", "", None)]
    out = prompts.render("judge", question="q", answer="{x:>99}")
    assert out == "q {x:>99}"  # values are text too: braces in them are never expanded


def test_step_mode_edits_are_checked_the_same_way():
    prompts = PromptSet(specs_for("react"), "en")
    with pytest.raises(TemplateError) as info:
        prompts.replace("judge", "{question:>9} {answer}")
    assert info.value.kind == "format"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_prompt_editor_says_why_in_the_pages_language(lang):
    spec = specs_for("react")["judge"]
    with pytest.raises(TemplateError) as info:
        check_overrides("react", lang, {"judge": "{question:>20000000} {answer}"})
    said = setup_state.template_problem(info.value, spec, lang)
    assert "{question:>20000000}" in said and said == i18n.t(
        "setup_state.template.format",
        lang,
        prompt="judge",
        placeholder="{question:>20000000}",
        allowed="{answer}, {question}",
        double="",
    )
    assert ("不只是引用一个值" if lang == "zh" else "does more than name a value") in said


def test_the_playground_blocks_a_run_whose_template_formats_its_value():
    at = open_page("pages/playground.py")
    at.selectbox(key="pg_variant").select("react-advisor").run()
    key = setup_state.prompt_key("pg", "react", "judge")
    at.text_area(key=key).set_value(at.text_area(key=key).value.replace("{answer}", "{answer:>20000000}")).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.button(key="pg_run").disabled
    assert any("{answer:>20000000}" in e.value and "bare name" in e.value for e in at.error)


def test_the_cli_refuses_such_a_template_before_any_call(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    path = tmp_path / "judge.txt"
    path.write_text("{question} {answer!r}", encoding="utf-8")
    code = main(
        [
            "run",
            "--pattern",
            "react",
            "--scenario",
            "weather-report",
            "--reflection-rounds",
            "1",
            "--prompt",
            f"judge={path}",
        ],
        out=None,
    )
    assert code == 2
    assert "does more than name a value" in capsys.readouterr().err


@pytest.mark.parametrize("template", ["{tools:>20000000}", "{tools!a}", "{tools[0]}"])
def test_a_trace_carrying_such_a_template_is_refused_at_load(template):
    data = json.loads(examples.path_of("weather-report", "en").read_bytes())
    data["config"]["prompts"] = {"actor_system": template}
    with pytest.raises(TraceFormatError, match="does more than name a value") as info:
        trace.loads(json.dumps(data))
    assert info.value.reason == "config"


def test_the_catalogues_fill_values_as_text():
    # the page's own templates take participant text as values, never as templates
    assert i18n.t("render.task", "en", task="{x:>99999}").count("{x:>99999}") == 1
