"""Every default prompt is valid in both languages; broken edits are named before any call."""

import pytest

from agent_core.errors import TemplateError
from agent_core.patterns.registry import PATTERNS, check_overrides, specs_for
from agent_core.prompts import PromptSet

AVAILABLE = [
    p
    for p in PATTERNS
    if p == "react" or __import__("importlib").util.find_spec(f"agent_core.prompts.{p.replace('-', '_')}")
]


@pytest.mark.parametrize("pattern", AVAILABLE)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_defaults_validate(pattern, lang):
    prompts = PromptSet(specs_for(pattern), lang)
    for key, spec in prompts.specs.items():
        assert prompts.texts[key].strip(), key
        assert spec.en != spec.zh, f"{pattern}.{key} has no Chinese version"


@pytest.mark.parametrize(
    "text, message",
    [
        ("Question: {question}", r"missing placeholder \{answer\}"),
        ("{question} {answer} {answr}", r"unknown placeholder \{answr\}"),
        ("{question} {answer} }", "stray '}'"),
        ("{question} {answer} {", "stray '{'"),
        ("{question} {answer} {0}", r"\{0\} is not a valid placeholder"),
        ("{question} {answer} {a.b}", r"\{a.b\} does more than name a value; a placeholder is a bare name"),
    ],
)
def test_broken_judge_templates_are_named(text, message):
    with pytest.raises(TemplateError, match=message) as info:
        check_overrides("react", "en", {"judge": text})
    assert info.value.role == "judge"


def test_literal_braces_are_allowed_and_rendered():
    prompts = PromptSet(specs_for("react"), "en", {"judge": 'Reply {{"passed": true}} to {question} / {answer}'})
    assert prompts.render("judge", question="q", answer="a") == 'Reply {"passed": true} to q / a'


def test_unknown_prompt_key_is_refused():
    with pytest.raises(TemplateError, match="no prompt called 'jduge'"):
        check_overrides("react", "en", {"jduge": "x"})


def test_values_with_braces_do_not_break_rendering():
    prompts = PromptSet(specs_for("react"), "zh")
    text = prompts.render("judge", question="{x}", answer='{"a": 1}')
    assert '{"a": 1}' in text and "{x}" in text
