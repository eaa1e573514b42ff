"""Every importer says why it refuses a file and raises nothing else: OTLP/JSON (agent_core.otel),
traces (trace.loads and Replay's open_file), Eval task sets (JSONL, gzip) and price lines.

The files are the bundled traces (each exported to OTLP/JSON) and the bundled task set, mutated the
ways a hostile participant would: JSON nested 20,000 deep inside a string attribute (tool arguments,
call messages), 400-digit and negative times, NaN and Infinity, wrong types, duplicate keys, lone
surrogates, megabyte strings, truncation, gzip bombs. Before, the first two raised RecursionError and
OverflowError on Replay; a lone surrogate raised UnicodeEncodeError when the page was drawn.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import otel, trace
from agent_core.errors import ConfigError, TaskSetError, TraceFormatError
from agent_core.evaluation import BUNDLED_PATH, MAX_BYTES, load_tasks
from agent_core.otel import importing
from agent_core.pricing import parse_user_prices
from pages.ui.player import open_file

TRACES = sorted((Path(trace.__file__).parent / "data" / "traces").glob("*.json"))
EXPORTS = {p.name: otel.export_request(trace.loads(p.read_bytes())) for p in TRACES}
BUNDLED = {p.name: json.loads(p.read_bytes()) for p in TRACES}
TASK_LINES = [json.loads(line) for line in BUNDLED_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]

DEEP = 20_000
DEEP_JSON = ["[" * DEEP + "]" * DEEP, '{"a":' * DEEP + "1" + "}" * DEEP, '{"x": ' + "[" * DEEP]

#: Values a hostile file puts where another value stood.
HOSTILE_VALUES = st.one_of(
    st.sampled_from(DEEP_JSON),  # JSON inside a string, nested too deep to parse by recursion
    st.sampled_from([10**400, -(10**400), 2**64, -1, "9" * 400, "-5", "1e400", 1e308, -1e308]),
    st.sampled_from([float("nan"), float("inf"), float("-inf")]),
    st.sampled_from([None, True, False, 0, 1.5, "", [], {}, [[]], {"a": None}, [1, "a", None]]),
    st.sampled_from(["\ud800", "half \udfff pair", "\ud83d", "x" * 1_000_000, "{tools:>20000000}", "{task!r}"]),
    st.sampled_from(
        [{"stringValue": s} for s in DEEP_JSON]
        + [
            {"intValue": "9" * 400},
            {"doubleValue": "NaN"},
            {"arrayValue": {"values": 5}},
            {"kvlistValue": []},
            {"boolValue": []},
        ]
    ),
    st.text(max_size=40),
)


def _slots(data: Any) -> list[tuple[Any, Any]]:
    """(container, key) of every value in JSON data, without recursion."""
    out, stack = [], [data]
    while stack:
        item = stack.pop()
        pairs = item.items() if isinstance(item, dict) else enumerate(item) if isinstance(item, list) else ()
        for key, value in pairs:
            out.append((item, key))
            stack.append(value)
    return out


def _dumps(data: Any) -> bytes:
    # Infinity and NaN as Python writes them; a lone surrogate as its JSON escape
    return json.dumps(data, ensure_ascii=False).encode("utf-8", "backslashreplace")


@st.composite
def mutated(draw: st.DrawFn, bases: dict[str, Any]) -> bytes:
    """One of `bases`, serialised after one to four hostile edits of its values, then maybe of its text."""
    data = copy.deepcopy(bases[draw(st.sampled_from(sorted(bases)))])
    for _ in range(draw(st.integers(1, 4))):
        slots = _slots(data)
        if not slots:
            break
        container, key = slots[draw(st.integers(0, len(slots) - 1))]
        if draw(st.booleans()) or not isinstance(container, dict):
            # a copy: sampled values are shared objects, and a later edit may land inside this one
            container[key] = copy.deepcopy(draw(HOSTILE_VALUES))
        else:
            del container[key]
    text = _dumps(data)
    edit = draw(st.sampled_from(["none", "none", "truncate", "duplicate", "deep", "raw-surrogate", "bom", "nul"]))
    if edit == "truncate":
        text = text[: draw(st.integers(0, max(0, len(text) - 1)))]
    elif edit == "duplicate":  # a key said twice: JSON keeps the last, which must be checked as any other
        text = text.replace(b'"', b'"kind": 5, "', 1) if text.startswith(b"{") else text
    elif edit == "deep":  # nesting in the file itself, past json's recursion limit
        text = text.replace(b"{", b'{"deep": ' + b"[" * DEEP + b"]" * DEEP + b", ", 1)
    elif edit == "raw-surrogate":  # not even valid UTF-8 (json.loads of bytes lets surrogates through)
        text = text.replace(b'"', b'"\xed\xa0\x80', 2)
    elif edit == "bom":
        text = b"\xef\xbb\xbf" + text
    elif edit == "nul":
        text = text.replace(b'"', b'"\\u0000', 1)
    return text


FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@FUZZ
@given(mutated(EXPORTS))
def test_otlp_import_of_any_mutated_export_raises_only_its_typed_error(data):
    try:
        out = importing.loads(data)
    except TraceFormatError:
        return
    for _name, imported in out:  # what it accepts is a trace the views can trust
        assert isinstance(imported, importing.ImportedTrace)
        json.dumps(imported.to_dict(), ensure_ascii=False).encode()  # no lone surrogate left in it


@FUZZ
@given(mutated({**EXPORTS, **BUNDLED}))
def test_replays_open_file_of_any_mutated_trace_or_export_raises_only_its_typed_error(data):
    try:
        opened = open_file(data)
    except TraceFormatError:
        return
    for _name, loaded in opened:
        json.dumps(loaded.to_dict(), ensure_ascii=False).encode()


@FUZZ
@given(mutated(BUNDLED))
def test_trace_loads_of_any_mutated_trace_raises_only_its_typed_error(data):
    try:
        trace.loads(data)
    except TraceFormatError:
        pass


def test_the_two_reported_crashes_are_clear_refusals_or_text():
    export = copy.deepcopy(EXPORTS["weather-report.en.json"])
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    # JSON nested 20,000 deep in a tool's arguments: kept as the text it is
    tool = next(s for s in spans if any(a["key"] == "gen_ai.tool.call.arguments" for a in s["attributes"]))
    arguments = next(a for a in tool["attributes"] if a["key"] == "gen_ai.tool.call.arguments")
    arguments["value"] = {"stringValue": DEEP_JSON[0]}
    ((_, imported),) = importing.loads(_dumps(export))
    assert any(getattr(e, "arguments", None) == DEEP_JSON[0] for e in imported.events)
    # ... and in a field that must hold JSON: a refusal that says so
    agent = next(s for s in spans if any(a["key"] == "agent_patterns.config" for a in s["attributes"]))
    plan_span = copy.deepcopy(export)
    for a in agent["attributes"]:
        if a["key"] == "agent_patterns.config":
            a["value"] = {"stringValue": DEEP_JSON[1]}
    importing.loads(_dumps(plan_span))  # a config that is not JSON is a foreign run, drawn generically
    # a start time of 400 digits
    spans[0]["startTimeUnixNano"] = "9" * 400
    with pytest.raises(TraceFormatError, match="should be a time in nanoseconds") as info:
        importing.loads(_dumps(export))
    assert info.value.reason == "not_otlp"


# --- Eval task sets --------------------------------------------------------------------------------------


def _task_file(lines: list[Any]) -> bytes:
    return b"\n".join(_dumps(line) for line in lines) + b"\n"


@st.composite
def mutated_tasks(draw: st.DrawFn) -> bytes:
    lines = copy.deepcopy(TASK_LINES)
    for _ in range(draw(st.integers(1, 3))):
        line = draw(st.integers(0, len(lines) - 1))
        field = draw(st.sampled_from(["task_id", "prompt", "entry_point", "test", "canonical_solution", "extra"]))
        lines[line][field] = copy.deepcopy(draw(HOSTILE_VALUES))
    text = _task_file(lines)
    edit = draw(st.sampled_from(["none", "truncate", "deep", "gzip", "gzip-truncated", "raw-surrogate"]))
    if edit == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif edit == "deep":
        text = text.replace(b"{", b'{"deep": ' + b"[" * DEEP + b"]" * DEEP + b", ", 1)
    elif edit == "gzip":
        text = gzip.compress(text)
    elif edit == "gzip-truncated":
        packed = gzip.compress(text)
        text = packed[: draw(st.integers(2, len(packed)))]
    elif edit == "raw-surrogate":
        text = text.replace(b'"', b'"\xed\xa0\x80', 1)
    return text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated_tasks())
def test_the_task_loader_of_any_mutated_task_set_raises_only_task_set_errors(data):
    try:
        tasks = load_tasks(data)
    except TaskSetError:
        return
    for task in tasks:  # what it accepts, every page and the sandbox can carry
        for value in (task.task_id, task.prompt, task.entry_point, task.test, task.canonical_solution):
            value.encode("utf-8")
        assert isinstance(task.defines_check, bool)


_SET_LINES = [
    {"question": "What is 2 + 3?", "answer": "It is 5.\n#### 5"},
    {"question": "Pick one", "answer": "b", "choices": ["a", "b", "c"]},
    {"task_id": 1, "text": "Add one.", "code": "def f(x):\n    return x + 1", "test_list": ["assert f(1) == 2"]},
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    st.sampled_from(_SET_LINES),
    st.sampled_from(
        ["question", "answer", "choices", "tolerance", "text", "code", "test_list", "test_setup_code", "id"]
    ),
    HOSTILE_VALUES,
    st.sampled_from(["set.jsonl", "set.csv", "set.jsonl.gz"]),
)
def test_the_question_set_loader_raises_only_task_set_errors(line, field, value, name):
    from agent_core.evaluation import tasksets

    row = {**line, field: value}
    if name.endswith(".csv"):  # the same row as a CSV file: a header and one line of its text values
        text = ",".join(row) + "\n" + ",".join(json.dumps(v) if not isinstance(v, str) else v for v in row.values())
        data = text.encode("utf-8", "backslashreplace")
    else:
        data = _dumps(row) + b"\n"
        data = gzip.compress(data) if name.endswith(".gz") else data
    try:
        tasksets.load_task_set(data, name=name)
    except TaskSetError:
        pass


@pytest.mark.parametrize(
    "data",
    [
        b"x" * 300_000 + b",question\n1,2\n",
        b'question,answer\n"unterminated\n' * 3,
        b"question,answer\n" + b"q,1\n" * 600,
    ],
)
def test_hostile_csv_question_sets_are_refused_with_a_message(data):
    from agent_core.evaluation import tasksets

    with pytest.raises(TaskSetError):  # a 300 KB header field raised csv.Error before
        tasksets.load_task_set(data, name="set.csv")


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (gzip.compress(b"\n" * (64 * MAX_BYTES)), "unpacks to more than 5 MB"),  # 320 MB of newlines in 300 KB
        (gzip.compress(b"{" * (MAX_BYTES + 10)), "unpacks to more than 5 MB"),
        (b'{"task_id": ' + b"[" * DEEP + b"]" * DEEP + b"}\n", "nested too deeply"),
        (_task_file([{**TASK_LINES[0], "prompt": "\ud800"}]), "lone surrogate"),
        (_task_file([{**TASK_LINES[0], "test": "assert 1\n" * 40_000}]), "is 360,000 characters"),
        (_task_file([{**TASK_LINES[0], "task_id": 10**400}]), "must be a string"),
    ],
    ids=["gzip-bomb", "gzip-bomb-braces", "deep", "surrogate", "huge-field", "huge-number"],
)
def test_hostile_task_files_are_refused_with_a_message(data, words):
    with pytest.raises(TaskSetError, match=words):
        load_tasks(data)


# --- price lines ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        {"m": [10**400, 1]},
        {"m": {"input": 1, "output": -(10**400)}},
        '{"m": [1' + "0" * 400 + ", 1]}",
        '{"m": ' + "[" * DEEP + "]" * DEEP + "}",
    ],
    ids=["huge-int", "huge-negative", "huge-int-text", "deep"],
)
def test_price_lines_past_a_floats_range_or_nested_deep_are_config_errors(raw):
    with pytest.raises(ConfigError):
        parse_user_prices(raw)


_NUMBERS = st.one_of(
    st.sampled_from([10**400, -(10**400), 2**64, float("nan"), float("inf"), -1, 0, 1.5]), st.floats(), st.integers()
)
_PRICE = st.one_of(
    HOSTILE_VALUES,
    st.lists(st.one_of(_NUMBERS, HOSTILE_VALUES), max_size=3),
    st.dictionaries(st.sampled_from(["input", "output", "source"]), st.one_of(_NUMBERS, HOSTILE_VALUES), max_size=3),
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.one_of(st.text(max_size=8), st.just("\ud800")), _PRICE, max_size=3))
def test_price_lines_of_any_shape_raise_only_config_errors(raw):
    for given_as in (raw, _dumps(raw).decode("utf-8", "surrogatepass")):
        try:
            parse_user_prices(given_as)
        except ConfigError:
            pass
