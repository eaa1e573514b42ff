"""The Eval harness: task sets load or are refused clearly, answers are judged by their tests, and on
the bundled set the offline model plays the papers' story — one-shot answers keep their bugs, the
critic alone fixes only what it looks for, test feedback fixes them all, at a price in calls."""

import gzip
import io
import json
import re
from dataclasses import fields

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.cli import main
from agent_core.errors import ConfigError, EndpointConnectionError, TaskSetError
from agent_core.evaluation import (
    CSV_COLUMNS,
    EVAL_PATTERNS,
    MAX_BYTES,
    MAX_TASKS,
    EvalProgress,
    EvalRow,
    EvalTask,
    bundled_tasks,
    evaluate,
    extract_code,
    load_tasks,
    rows_to_csv,
    runnable_tests,
    scores_figure,
    summarize,
    task_text,
)
from agent_core.evaluation.rows import ROW_COLUMNS
from agent_core.patterns.registry import eval_entries
from agent_core.testing import ScriptedModel, say

BUGGY = {"bundled/fizzbuzz", "bundled/running_max", "bundled/primes_up_to"}

INCREMENT = {
    "task_id": "Demo/0",
    "prompt": 'def increment(x: int) -> int:\n    """Return x + 1.\n    >>> increment(1)\n    2\n    """\n',
    "entry_point": "increment",
    "canonical_solution": "    return x + 1\n",
    "test": "METADATA = {}\n\n\ndef check(candidate):\n    assert candidate(1) == 2\n    assert candidate(-1) == 0\n",
}
WRONG = {**INCREMENT, "task_id": "Demo/1", "canonical_solution": "    return x + 2\n"}


def jsonl(*tasks):
    return "".join(json.dumps(t) + "\n" for t in tasks).encode()


def rows_of(items):
    return [r for r in items if isinstance(r, EvalRow)]


def outcome(rows):
    """pattern -> the task ids it failed."""
    failed = {}
    for r in rows:
        failed.setdefault(r.pattern, set())
        if not r.passed:
            failed[r.pattern].add(r.task_id)
    return failed


@pytest.fixture(scope="module")
def offline_rows():
    """Every agent pattern on the bundled set, on the offline model (about 2 s of sandbox runs)."""
    return rows_of(
        evaluate(bundled_tasks(), ["react", "plan-execute", "reflection", "reflection+tests"], ac.OfflineModel())
    )


# --- task sets ------------------------------------------------------------------------------------


def test_the_bundled_set_is_seven_humaneval_tasks_with_check_functions():
    tasks = bundled_tasks()
    assert [t.task_id for t in tasks] == [
        "bundled/is_palindrome",
        "bundled/fizzbuzz",
        "bundled/running_max",
        "bundled/primes_up_to",
        "bundled/word_frequency",
        "bundled/balanced_brackets",
        "bundled/to_roman",
    ]
    for t in tasks:
        assert f"def {t.entry_point}(" in t.prompt and t.defines_check and t.canonical_solution.startswith("    ")


def test_the_reference_scores_every_bundled_task_without_calling_a_model():
    rows = rows_of(evaluate(bundled_tasks(), ["reference"], None))
    assert len(rows) == 7 and all(r.passed and r.status == "passed" for r in rows)
    assert {r.llm_calls for r in rows} == {0} and all(r.tests_run and not r.tests_failed for r in rows)
    (score,) = summarize(rows)
    assert (score.pattern, score.pass_rate, score.calls_per_task) == ("reference", 1.0, 0.0)


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzipped"])
def test_a_humaneval_file_loads_and_the_reference_tells_right_from_wrong(tmp_path, packed):
    data = jsonl(INCREMENT, WRONG)
    path = tmp_path / ("tasks.jsonl.gz" if packed else "tasks.jsonl")
    path.write_bytes(gzip.compress(data) if packed else data)
    for source in (path, str(path), path.read_bytes()):
        tasks = load_tasks(source)
        assert tasks == [
            EvalTask("Demo/0", INCREMENT["prompt"], "increment", INCREMENT["test"], "    return x + 1\n"),
            EvalTask("Demo/1", INCREMENT["prompt"], "increment", INCREMENT["test"], "    return x + 2\n"),
        ]
    right, wrong = rows_of(evaluate(tasks, ["reference"], None))
    assert right.passed and right.summary == "all 2 tests passed"
    assert not wrong.passed and wrong.status == "failed"
    assert (
        wrong.summary == "2 of 2 tests failed: assert candidate(1) == 2 (got 3, expected 2); "
        "assert candidate(-1) == 0 (got 1, expected 0)"
    )


def test_extra_fields_a_missing_solution_and_blank_lines_are_accepted():
    extra = {**INCREMENT, "language": "python", "canonical_solution": None}
    (task,) = load_tasks(b"\n" + jsonl(extra) + b"\n\n")
    assert task.canonical_solution == ""
    (row,) = rows_of(evaluate([task], ["reference"], None))
    assert (row.passed, row.status, row.summary) == (False, "error", "the task has no canonical_solution")


def _too_many() -> bytes:
    return jsonl(*({**INCREMENT, "task_id": f"T/{i}"} for i in range(MAX_TASKS + 1)))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            jsonl(INCREMENT) + b"{not json\n",
            "line 2: not JSON (Expecting property name enclosed in double quotes); "
            "expected one task object a line (HumanEval's JSONL format)",
        ),
        (b"[1, 2]\n", "line 1: expected a JSON object, got an array"),
        (
            jsonl({k: v for k, v in INCREMENT.items() if k != "test"}),
            "line 1: missing field(s) test; a task needs task_id, prompt, entry_point, test",
        ),
        (jsonl({**INCREMENT, "prompt": 42}), "line 1: field 'prompt' must be a string, got a number"),
        (
            jsonl({**INCREMENT, "entry_point": "inc rement"}),
            "line 1 (Demo/0): entry_point 'inc rement' is not a Python function name",
        ),
        (
            jsonl({**INCREMENT, "test": "def check(candidate:\n"}),
            "line 1 (Demo/0): the test does not parse (its line 1: ",
        ),
        (jsonl(INCREMENT, INCREMENT), "line 2: task_id 'Demo/0' repeats line 1"),
        (b"\n  \n", "no tasks: expected one JSON object a line (HumanEval's JSONL format)"),
        (b"\x1f\x8b\x08\x00garbage", "the task file is not a valid gzip file"),
        (gzip.compress(b" " * (MAX_BYTES + 1)), "the task file unpacks to more than 5 MB"),
        (b" " * (MAX_BYTES + 1), "the task file is 5.2 MB; task sets are limited to 5 MB"),
        (b'{"task_id": "caf\xe9"}\n', "the task file is not UTF-8 text (line 1, byte 16)"),
        (_too_many(), f"more than {MAX_TASKS} tasks (line {MAX_TASKS + 1}); evaluate a smaller set"),
    ],
    ids=[
        "not-json",
        "array",
        "missing-field",
        "wrong-type",
        "bad-entry-point",
        "test-syntax",
        "duplicate",
        "empty",
        "gzip-garbage",
        "gzip-bomb",
        "too-big",
        "not-utf8",
        "too-many",
    ],
)
def test_a_bad_task_file_is_refused_with_a_message_naming_the_problem(data, message):
    with pytest.raises(TaskSetError) as info:
        load_tasks(data)
    assert str(info.value).startswith(message)


def test_errors_in_a_file_name_the_file_and_a_missing_file_is_a_task_set_error(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_bytes(jsonl(INCREMENT) + b"oops\n")
    with pytest.raises(TaskSetError, match=r"^mine\.jsonl: line 2: not JSON"):
        load_tasks(path)
    (tmp_path / "fake.jsonl.gz").write_bytes(jsonl(INCREMENT))
    with pytest.raises(TaskSetError, match=r"^fake\.jsonl\.gz is named \.gz but is not gzip-compressed$"):
        load_tasks(tmp_path / "fake.jsonl.gz")
    with pytest.raises(TaskSetError, match=r"^cannot read .*absent\.jsonl: No such file or directory$"):
        load_tasks(tmp_path / "absent.jsonl")


# --- judging --------------------------------------------------------------------------------------


@pytest.fixture
def task():
    (t,) = load_tasks(jsonl({**INCREMENT, "prompt": "from typing import List\n\n\n" + INCREMENT["prompt"]}))
    return t


def test_a_fenced_function_is_taken_from_prose_and_follows_the_prompt(task):
    answer = (
        "<think>easy</think>Here you go:\n```text\nnot this\n```\n```python\n"
        "def increment(x: int) -> int:\n    return x + 1\n```\nDone."
    )
    assert extract_code(answer, task) == f"{task.prompt}\n\ndef increment(x: int) -> int:\n    return x + 1\n"


def test_the_prompts_helpers_stay_available_to_a_function_that_replaces_its_stub():
    helper = {**INCREMENT, "prompt": "def step() -> int:\n    return 1\n\n\n" + INCREMENT["prompt"]}
    (task,) = load_tasks(jsonl(helper))
    (row,) = rows_of(
        evaluate(
            [task], ["react"], ScriptedModel(["```python\ndef increment(x: int) -> int:\n    return x + step()\n```"])
        )
    )
    assert row.passed, row.summary


def test_broken_code_after_a_whole_prompt_keeps_only_the_prompts_imports(task):
    code = extract_code("```python\ndef increment(x:\n```", task)
    assert code == "from typing import List\ndef increment(x:\n"


def test_a_bare_body_completes_the_prompt_as_in_humaneval(task):
    assert extract_code("    return x + 1", task) == task.prompt + "    return x + 1\n"
    assert extract_code("return x + 1", task) == task.prompt + "    return x + 1\n"  # indented for it
    assert extract_code("```\n    return x + 1\n```", task) == task.prompt + "    return x + 1\n"


def test_prose_is_no_code_and_is_judged_as_such(task):
    assert extract_code("I cannot help with that.", task) == extract_code("", task) == ""
    (row,) = rows_of(evaluate([task], ["react"], ScriptedModel(["I cannot help with that."])))
    assert (row.passed, row.status, row.judge_ms) == (False, "error", 0)
    assert row.summary == "the answer holds no code: no code block, function or function body"


def test_a_scripted_model_answering_with_a_body_is_judged_through_the_whole_path(task):
    model = ScriptedModel([say("    return x + 1", role="actor"), say("```python\nreturn x\n```", role="actor")])
    good, bad = rows_of(evaluate([task, EvalTask("Demo/9", task.prompt, "increment", task.test)], ["react"], model))
    model.assert_consumed()
    assert "```python\nfrom typing import List" in model.requests[0].messages[-1].content
    assert (good.passed, good.llm_calls, good.end_reason) == (True, 1, "answer")
    assert (bad.passed, bad.summary) == (
        False,
        "2 of 2 tests failed: assert candidate(1) == 2 (got 1, expected 2); "
        "assert candidate(-1) == 0 (got -1, expected 0)",
    )


def test_a_failed_run_is_a_row_that_says_why_not_an_exception(task):
    class Down:
        name = "down"

        def stream(self, request):
            raise EndpointConnectionError("cannot reach http://127.0.0.1:9/v1")
            yield  # a generator, like every model

    (row,) = rows_of(evaluate([task], ["react"], Down()))
    assert (row.passed, row.status, row.end_reason) == (False, "error", "error")
    assert row.summary == "the run failed: connection_error: cannot reach http://127.0.0.1:9/v1"


# --- the offline story on the bundled set --------------------------------------------------------


def test_each_pattern_fixes_only_the_bugs_its_feedback_can_see(offline_rows):
    assert outcome(offline_rows) == {
        "react": BUGGY,  # one shot: three plausible bugs go out as written
        "plan-execute": {"bundled/fizzbuzz", "bundled/primes_up_to"},  # its edge-case step finds the empty list
        "reflection": {"bundled/running_max", "bundled/primes_up_to"},  # the critic alone finds one bug
        "reflection+tests": set(),  # the failing assertions reach the refiner
    }


def test_the_story_holds_in_chinese_and_in_graph_style():
    rows = rows_of(
        evaluate(
            bundled_tasks()[1:3],
            ["react", "plan-execute", "reflection", "reflection+tests"],
            ac.OfflineModel(),
            lang="zh",
            config_overrides={"reflection": {"graph_style": True}},
        )
    )
    assert outcome(rows) == {
        "react": {"bundled/fizzbuzz", "bundled/running_max"},
        "plan-execute": {"bundled/fizzbuzz"},
        "reflection": {"bundled/running_max"},
        "reflection+tests": set(),
    }


def test_reflection_with_tests_beats_one_shot_react_and_costs_more_calls(offline_rows):
    scores = {s.pattern: s for s in summarize(offline_rows)}
    react, tested = scores["react"], scores["reflection+tests"]
    assert (react.passed, react.tasks, tested.passed) == (4, 7, 7)
    assert tested.pass_rate > react.pass_rate and tested.calls_per_task > react.calls_per_task
    assert react.calls_per_task == 1.0
    # draft + critique for a right draft; two more (refine, critique again) for each buggy one
    assert tested.calls_per_task == round((7 * 2 + 3 * 2) / 7, 2)
    assert tested.sees_tests and not scores["reflection"].sees_tests
    assert scores["plan-execute"].calls_per_task == 3.0  # planner, edge-case step, synthesis


def test_primes_the_critic_alone_asks_for_speed_and_the_sieve_keeps_the_bound_bug():
    """Huang et al. in one run: intrinsic review improves what it looks at, not what is wrong."""
    primes = next(t for t in bundled_tasks() if t.entry_point == "primes_up_to")
    config = ac.configure(pattern="reflection", code_task=True, scenario=f"eval/{primes.task_id}")
    result = ac.run(task_text(primes), config, ac.OfflineModel())
    verdicts = [(e.verdict, e.feedback) for e in result.events if isinstance(e, ev.VerdictEvent)]
    assert [v for v, _ in verdicts] == ["REVISE", "PASS"] and "Sieve of Eratosthenes" in verdicts[0][1]
    drafts = [e.text for e in result.events if isinstance(e, ev.Draft)]
    assert "range(2, n)" in drafts[0] and "is_prime = [True] * n" in drafts[1]
    assert result.reason == "pass" and result.llm_calls == 4


def test_primes_with_tests_the_failure_leads_the_feedback_and_the_refiner_fixes_the_bound():
    primes = next(t for t in bundled_tasks() if t.entry_point == "primes_up_to")
    config = ac.configure(
        pattern="reflection",
        code_task=True,
        test_evaluator=True,
        tests=runnable_tests(primes),
        scenario=f"eval/{primes.task_id}",
    )
    result = ac.run(task_text(primes), config, ac.OfflineModel())
    seen = [
        (e.kind, getattr(e, "is_error", None) if e.kind == "tool_result" else getattr(e, "verdict", None))
        for e in result.events
        if e.kind in ("tool_result", "verdict")
    ]
    assert seen == [("tool_result", True), ("verdict", "REVISE"), ("tool_result", False), ("verdict", "PASS")]
    revise = next(e for e in result.events if isinstance(e, ev.VerdictEvent))
    assert revise.feedback.startswith("The unit tests failed: 1 of 1 tests failed: check(primes_up_to)")
    assert "is_prime = [True] * (n + 1)" in result.final_answer and result.llm_calls == 4


# --- the generator, the table, the CSV ------------------------------------------------------------


def test_evaluate_yields_progress_before_each_row_task_by_task():
    tasks = bundled_tasks()[:2]
    items = list(evaluate(tasks, ["reference", "react"], ac.OfflineModel()))
    assert [type(i).__name__ for i in items] == ["EvalProgress", "EvalRow"] * 4
    progress, rows = items[::2], items[1::2]
    expected = [(t.task_id, p) for t in tasks for p in ("reference", "react")]
    assert [(p.task_id, p.pattern) for p in progress] == expected == [(r.task_id, r.pattern) for r in rows]
    assert [p.index for p in progress] == [0, 1, 2, 3] and {p.total for p in progress} == {4}
    assert isinstance(progress[2], EvalProgress) and progress[2].fraction == 0.5


def test_limit_and_a_shared_budget_shape_every_run():
    rows = rows_of(
        evaluate(
            bundled_tasks(), ["reflection+tests"], ac.OfflineModel(), limit=3, config_overrides={"max_llm_calls": 3}
        )
    )
    assert [r.task_id for r in rows] == ["bundled/is_palindrome", "bundled/fizzbuzz", "bundled/running_max"]
    # a buggy draft's second critique would be call 4: the budget ends the run on the refined draft
    assert [(r.passed, r.llm_calls, r.end_reason) for r in rows] == [
        (True, 2, "pass"),
        (True, 3, "budget"),
        (True, 3, "budget"),
    ]


def test_overrides_under_a_patterns_name_apply_to_that_pattern_only():
    fizzbuzz = bundled_tasks()[1:2]
    rows = rows_of(
        evaluate(
            fizzbuzz,
            ["reflection", "reflection+tests"],
            ac.OfflineModel(),
            config_overrides={"reflection": {"max_iterations": 1}},
        )
    )
    assert [(r.pattern, r.llm_calls, r.end_reason) for r in rows] == [
        ("reflection", 3, "cap"),
        ("reflection+tests", 4, "pass"),
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"patterns": ["reflexion"]}, "unknown eval pattern 'reflexion'"),
        ({"patterns": []}, "choose at least one pattern"),
        ({"config_overrides": {"max_rounds": 99}}, "max_rounds must be an integer from 1 to 30, got 99"),
        ({"config_overrides": {"tests": "assert True"}}, "'tests' is set by the harness"),
        ({"config_overrides": {"max_roundz": 2}}, "'max_roundz' is neither a run option nor an eval pattern"),
        (
            {"config_overrides": {"react": {"scenario": "x"}}},
            "config_overrides['react']: 'scenario' is set by the harness",
        ),
        ({"config_overrides": {"reflection": 2}}, "config_overrides['reflection'] must map run options to values"),
        ({"config_overrides": {"react": {"prompts": {"actor_system": "{nope}"}}}}, "unknown placeholder {nope}"),
        ({"limit": 0}, "limit must be at least 1"),
        ({"models": None}, "a model is needed for every pattern but reference"),
    ],
)
def test_bad_settings_are_refused_before_anything_runs(kwargs, message):
    args = {"patterns": ["react"], "models": ac.OfflineModel(), **kwargs}
    with pytest.raises(ConfigError, match=re.escape(message)):
        evaluate(bundled_tasks(), args.pop("patterns"), args.pop("models"), **args)


def test_the_csv_has_a_row_per_run_and_every_field(offline_rows):
    assert set(CSV_COLUMNS) == {f.name for f in fields(EvalRow)} | {"total_tokens"}
    import csv

    table = list(csv.DictReader(io.StringIO(rows_to_csv(offline_rows))))
    assert len(table) == len(offline_rows) == 28
    fizz = next(r for r in table if r["task_id"] == "bundled/fizzbuzz" and r["pattern"] == "react")
    assert fizz["passed"] == "False" and "range(1, n)" in fizz["code"]
    assert int(fizz["total_tokens"]) == int(fizz["prompt_tokens"]) + int(fizz["completion_tokens"])


def test_the_scores_figure_puts_each_pattern_at_its_calls_and_pass_rate(offline_rows):
    fig = scores_figure(summarize(offline_rows))
    points = {t.name: (t.x[0], t.y[0]) for t in fig.data}
    assert points == {
        "react": (1.0, 57.1),
        "plan-execute": (3.0, 71.4),
        "reflection": (2.57, 71.4),
        "reflection+tests*": (2.86, 100.0),
    }
    assert "the refiner saw the tasks' tests" in fig.layout.annotations[0].text
    assert scores_figure([], lang="zh").layout.annotations[0].text == "暂无结果"


# --- the command line ------------------------------------------------------------------------------


def cli(*argv):
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_cli_prints_each_run_and_the_pass_rates_and_writes_the_csv(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    path = tmp_path / "results.csv"
    code, out = cli(
        "eval",
        "--tasks",
        "bundled",
        "--pattern",
        "react",
        "--pattern",
        "reflection+tests",
        "--limit",
        "2",
        "--out",
        str(path),
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "eval: 2 task(s) x 2 pattern(s) on offline-scripted, 4 at a time"
    runs = [line.split()[1:4] for line in lines if line.startswith("[")]
    assert runs == [
        ["bundled/is_palindrome", "react", "PASS"],
        ["bundled/is_palindrome", "reflection+tests", "PASS"],
        ["bundled/fizzbuzz", "react", "FAIL"],
        ["bundled/fizzbuzz", "reflection+tests", "PASS"],
    ]
    table = {line.split()[0]: line.split()[1:4] for line in lines if line.startswith(("react ", "reflection+tests*"))}
    assert table == {"react": ["50.0%", "1/2", "1.00"], "reflection+tests*": ["100.0%", "2/2", "3.00"]}
    assert "* reflection+tests gives the refiner the task's own tests" in out
    written = path.read_text(encoding="utf-8")
    # one row per task x pattern x repeat (agent_core/evaluation/rows.py)
    assert written.splitlines()[0] == ",".join(ROW_COLUMNS) and written.count("bundled/fizzbuzz,") == 2


def test_cli_bad_task_file_is_one_line_and_a_nonzero_exit(tmp_path, capsys):
    path = tmp_path / "broken.jsonl"
    path.write_bytes(jsonl(INCREMENT) + b'{"task_id": "Demo/1"}\n')
    code, out = cli("eval", "--tasks", str(path), "--pattern", "reference")
    assert code == 2 and out == ""
    assert capsys.readouterr().err == (
        "error: broken.jsonl: line 2: missing field(s) prompt, entry_point, test; "
        "a task needs task_id, prompt, entry_point, test\n"
    )


def test_cli_runs_every_pattern_when_none_is_named(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code, out = cli("eval", "--tasks", "bundled", "--limit", "1")
    assert code == 0
    assert [line.split()[2] for line in out.splitlines() if line.startswith("[")] == list(EVAL_PATTERNS)
    table = {
        line.split()[0]: line.split()[1]
        for line in out.splitlines()
        if line.split() and line.split()[0].rstrip("*") in EVAL_PATTERNS
    }
    # every entry of every registered pattern, by its id (a * marks the ones that saw the task's tests)
    assert table == {
        ("reference" if e == "reference" else e + "*" if eval_entries()[e][1].tests else e): "100.0%"
        for e in EVAL_PATTERNS
    }
