"""Every parser of participant, model or endpoint text runs in linear time: hostile shapes (runs of
backticks, fences without a newline, nested fences, lines of `~`, blank lines, brackets, `](`) of
about 1 MB each finish well inside a generous bound, and 4× the input costs about 4× the time.

The old code took 36 s on 150 KB of backticks (`_FENCE` in evaluation.harness), a second on 8 KB of
blank lines (ReAct's field pattern) and 1.5 s on 8 KB handed to json_repair; a quadratic parser
fails the bound here by orders of magnitude, so the bound can be generous on a loaded machine.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import untrusted
from agent_core.diffing import Budget, diff_stats, word_diff
from agent_core.errors import AgentError
from agent_core.evaluation import EvalTask, extract_code
from agent_core.messages import estimate_tokens
from agent_core.patterns.plan_execute.loop import parse_plan
from agent_core.patterns.react.loop import parse_text_step
from agent_core.patterns.reflection.loop import clean_draft
from agent_core.prompts import placeholders
from agent_core.report import cell, quote
from agent_core.report import escape as report_escape
from agent_core.tools import parse_arguments
from agent_core.verdicts import extract_json, parse_critique, parse_judgement, parse_step_verdict, strip_think
from pages.ui import text
from pages.ui.diff_view import looks_like_code

TASK = EvalTask("T/0", 'def add(a, b):\n    """Add."""\n', "add", "assert add(1, 2) == 3\n", "    return a + b\n")

#: name -> the parser, called on one untrusted string
PARSERS: dict[str, Callable[[str], object]] = {
    "code_blocks": untrusted.code_blocks,
    "defines": lambda s: untrusted.defines(s, "add"),
    "json": lambda s: _swallow(untrusted.loads, s),
    "extract_code": lambda s: extract_code(s, TASK),
    "clean_draft": lambda s: clean_draft(s, True),
    "strip_think": strip_think,
    "extract_json": extract_json,
    "parse_critique": parse_critique,
    "parse_judgement": parse_judgement,
    "parse_step_verdict": parse_step_verdict,
    "react_step": parse_text_step,
    "plan": lambda s: parse_plan(s, ("search", "lookup")),
    "report_escape": report_escape,
    "report_quote": quote,
    "report_cell": cell,
    "text_escape": text.escape,
    "text_inline": text.inline,
    "text_badge": text.badge,
    "code_span": text.code_span,
    "highlighted": lambda s: text.highlighted(s, [("task", 0, len(s) // 2)]),
    "looks_like_code": looks_like_code,
    "placeholders": lambda s: _swallow(placeholders, s),
    "estimate_tokens": estimate_tokens,
    "tool_arguments": parse_arguments,
    "diff_stats": lambda s: diff_stats(s, s[::-1], Budget()),
    "word_diff": lambda s: word_diff(s[: len(s) // 2], s[len(s) // 2 :], Budget()),
}

#: name -> the hostile text of about n characters
SHAPES: dict[str, Callable[[int], str]] = {
    "backticks": lambda n: "`" * n,
    "fences": lambda n: "```" * (n // 3),
    "fences-no-newline": lambda n: "```python" * (n // 9),
    "fence-lines": lambda n: "```\n" * (n // 4),
    "python-fences": lambda n: "```python\n" * (n // 10),
    "nested-fences": lambda n: "````\n```python\n``\n" * (n // 18),
    "tildes": lambda n: "~" * n,
    "tilde-fences": lambda n: "~~~\n" * (n // 4),
    "newlines": lambda n: "\n" * n,
    "blank-lines": lambda n: " \t\n" * (n // 3),
    "def-lines": lambda n: "def \n" * (n // 5),
    "def-no-paren": lambda n: "def add " * (n // 8),
    "think": lambda n: "<think>" * (n // 7),
    "fields": lambda n: "Thought\n" * (n // 8),
    "observation": lambda n: "Observation \n" * (n // 13),
    "braces": lambda n: "{" * n,
    "brackets": lambda n: "[" * n,
    "quotes": lambda n: '{"a": "' + '\\"' * (n // 2),
    "keys": lambda n: "{" + "a:" * (n // 2),
    "links": lambda n: "](" * (n // 2),
    "definitions": lambda n: "[a]" * (n // 3),
    "entities": lambda n: "&" + "a" * n,
    "placeholders": lambda n: "{task" * (n // 5),
    "cjk": lambda n: "中" * n,
    "mixed": lambda n: '```py\n{"a": [1, {"b": \'](\'}]}\n<think>`~\n\tdef add(\n' * (n // 40),
}

N = 1 << 20  # about a megabyte
#: Seconds any parser may take on a megabyte: linear code takes milliseconds, the old quadratic code hours.
BOUND_S = 3.0


def _swallow(parse: Callable[[str], object], s: str) -> object:
    try:
        return parse(s)
    except (ValueError, AgentError):
        return None  # the typed refusal is the point; only its time is measured


def _seconds(parse: Callable[[str], object], s: str, repeats: int = 1) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        parse(s)
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize("shape", SHAPES)
def test_a_megabyte_of_each_hostile_shape_parses_within_the_bound(shape):
    s = SHAPES[shape](N)
    slow = {name: round(secs, 2) for name, parse in PARSERS.items() if (secs := _seconds(parse, s)) > BOUND_S}
    assert not slow, slow


@pytest.mark.parametrize(
    "name", ["code_blocks", "defines", "extract_code", "clean_draft", "react_step", "report_escape", "text_escape"]
)
@pytest.mark.parametrize("shape", ["backticks", "fences-no-newline", "newlines", "links", "mixed"])
def test_four_times_the_input_costs_about_four_times_the_time(name, shape):
    parse = PARSERS[name]
    small, large = SHAPES[shape](N // 4), SHAPES[shape](N)
    t_small, t_large = _seconds(parse, small, 3), _seconds(parse, large, 3)
    # linear: about 4×; quadratic would be 16×. The slack absorbs a busy machine and timer grain.
    assert t_large <= 8 * t_small + 0.05, (t_small, t_large)


def test_the_known_attack_150_kb_of_backticks_no_longer_holds_the_server():
    answer = "`" * 150_000  # 36 s in extract_code before
    started = time.process_time()
    assert extract_code(answer, TASK) == ""
    assert time.process_time() - started < 1.0


# --- the hand-written scanners say what the patterns they replace said ----------------------------------

_OLD_FENCE = re.compile(r"```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_FENCE_ALPHABET = st.sampled_from(
    ["`", "```", "\n", " ", "\t", "py", "python", "x", "é", "_", "+", ".", "-", "~", "١", "def add(", "\r\n"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_FENCE_ALPHABET, max_size=24).map("".join))
def test_code_blocks_finds_what_the_old_pattern_found(s):
    assert untrusted.code_blocks(s) == _OLD_FENCE.findall(s)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["def", " ", "\t", "add", "ad", "(", "\n", "x", "  def add(", "async "]), max_size=16).map(
        "".join
    )
)
def test_defines_agrees_with_the_old_pattern_on_one_line_definitions(s):
    old = re.search(r"^\s*def\s+add\s*\(", s, re.MULTILINE) is not None
    # the old `\s` also ran across line breaks ("def\nadd("): not a definition Python accepts
    if "\n" not in s:
        assert untrusted.defines(s, "add") == old


def test_code_blocks_keeps_the_shapes_the_harness_relies_on():
    assert untrusted.code_blocks("Here:\n```python\ndef f():\n    pass\n```\nDone.") == [
        ("python", "def f():\n    pass\n")
    ]
    assert untrusted.code_blocks("```py\ncut off mid block") == [("py", "cut off mid block")]
    assert untrusted.code_blocks("```js\na\n```\n```python\nb\n```") == [("js", "a\n"), ("python", "b\n")]
    assert untrusted.code_blocks("no fence ``` here") == []


# --- hostile units repeated to a quarter megabyte: hypothesis picks the unit ---------------------------

_HOSTILE = st.sampled_from(
    list("`~{}[]()<>:\"'\\\n \t#*_-.!|$&@")
    + ["```", "```python\n", "<think>", "</think>", "Thought:", "Action:", "def add(", "](", "http://", "中", "\u2028"]
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unit=st.lists(_HOSTILE, min_size=1, max_size=6).map("".join), name=st.sampled_from(sorted(PARSERS)))
def test_any_repeated_hostile_unit_parses_within_the_bound(unit, name):
    s = (unit * (N // 4 // len(unit) + 1))[: N // 4]
    assert _seconds(PARSERS[name], s) < BOUND_S


def test_json_refusals_are_value_errors_whatever_breaks():
    for bad in ("[" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000, "1" * 5000, b"\xff\xfe{"):
        with pytest.raises(ValueError):
            untrusted.loads(bad)
    with pytest.raises(untrusted.JSONTooDeep):
        untrusted.loads("[" * 40 + "]" * 40)
    assert untrusted.loads("[" * 40 + "]" * 40, max_depth=None) is not None
    assert parse_arguments("[" * 1500)[0] is None  # the model's tool arguments: an observation, not a crash
    assert parse_arguments('{"n": ' + "9" * 1900 + "}") == ({"n": int("9" * 1900)}, None)
    assert parse_arguments("[" * 1999)[1].startswith("arguments are not valid JSON")


def test_an_endpoints_stream_is_split_in_one_pass_and_a_line_is_bounded():
    from agent_core.llm import MAX_LINE_BYTES, _lines

    blocks = [b"data: " + b"x" * 16_378] + [b"x" * 16_384] * 400 + [b"\n\ndata: [DONE]\n\n"]  # a 6.5 MB line
    started = time.process_time()
    lines = list(_lines(iter(blocks)))
    assert time.process_time() - started < BOUND_S
    assert len(lines[0]) == 16_384 * 401 and lines[-2] == b"data: [DONE]"
    with pytest.raises(ValueError, match="a line of more than 8 MB"):
        list(_lines(iter([b"x" * 65_536] * (MAX_LINE_BYTES // 65_536 + 2))))


def test_a_whole_answer_from_an_endpoint_is_read_up_to_a_bound():
    from agent_core.llm import MAX_BODY_BYTES, _read_capped

    class Endless:
        def iter_bytes(self):
            while True:
                yield b"x" * 1_048_576

    with pytest.raises(ValueError, match="over 32 MB"):
        _read_capped(Endless())
    assert MAX_BODY_BYTES == 32 << 20
