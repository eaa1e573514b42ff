"""Verdict parsing tolerates what real models send, and says so when it had to fall back."""

import pytest

from agent_core.verdicts import extract_json, parse_critique, parse_judgement, parse_step_verdict


@pytest.mark.parametrize(
    "reply",
    [
        '{"passed": false, "feedback": "add the warnings"}',
        '```json\n{"passed": false, "feedback": "add the warnings"}\n```',
        'Here is my verdict:\n{"passed": false, "feedback": "add the warnings"}\nHope it helps.',
        "{'passed': False, 'feedback': 'add the warnings'}",
        '{"passed": false, "feedback": "add the warnings",}',
        '{"passed": false, "feedback": "add the warnings"',
        '<think>The report lacks {warnings}...</think>{"passed": "false", "feedback": "add the warnings"}',
    ],
)
def test_judgement_survives_fences_prose_quotes_commas_truncation_and_think_blocks(reply):
    verdict = parse_judgement(reply)
    assert verdict is not None and verdict.verdict == "REVISE" and verdict.feedback == "add the warnings"


@pytest.mark.parametrize("reply", ["", "looks good to me", "[1, 2]", '{"passed": "maybe"}', "<think>{}</think>"])
def test_unusable_judgement_is_none_so_the_caller_can_reask_or_fall_back(reply):
    assert parse_judgement(reply) is None


def test_step_verdict_reads_seed03_shape_and_refuses_unknown_verdicts():
    v = parse_step_verdict('{"verdict":"replan","analysis":"数据尚在同步中","suggestion":"告知用户"}')
    assert (v.verdict, v.analysis, v.suggestion) == ("REPLAN", "数据尚在同步中", "告知用户")
    assert parse_step_verdict('{"verdict": "MAYBE"}') is None
    assert parse_step_verdict('{"verdict": ["PASS"], "analysis": 3}') is None


def test_critique_honours_seed04_stop_phrase_in_free_text():
    assert parse_critique("筛法已非常高效，一般场景下无需改进。").verdict == "PASS"
    assert parse_critique("Already O(n log log n): no improvement needed.").verdict == "PASS"
    revise = parse_critique("Trial division is O(n*sqrt(n)); use the Sieve of Eratosthenes.")
    assert revise.verdict == "REVISE" and revise.parsed and "Sieve" in revise.feedback
    assert parse_critique('{"verdict": "PASS", "feedback": ""}').verdict == "PASS"
    assert parse_critique('{"passed": false, "feedback": "add owners"}').feedback == "add owners"


def test_empty_critique_is_a_visible_fallback():
    v = parse_critique("   ")
    assert v.verdict == "PASS" and v.parsed is False


def test_extract_json_ignores_non_objects():
    assert extract_json("no braces here") is None
    assert extract_json('{"a": {"b": [1, 2]}}') == {"a": {"b": [1, 2]}}
