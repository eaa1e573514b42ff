"""Eval's rounds: every draft scored, transitions by round, self stop vs oracle stop, the baseline —
exactly what the offline scripts imply on the bundled set, and on an uploaded HumanEval file."""

from __future__ import annotations

import csv
import gzip
import io
import json

import pytest

from agent_core import OfflineModel
from agent_core.cli import main
from agent_core.evaluation import EvalRow, bundled_tasks, evaluate, round_stats, rounds_to_csv, stop_stats
from agent_core.offline.scripts.eval_tasks import SOLUTIONS
from tests.app_pages import open_page

PATTERNS = ["reflection", "reflection+tests", "direct"]


@pytest.fixture(scope="module")
def rows() -> list[EvalRow]:
    return [r for r in evaluate(bundled_tasks(), PATTERNS, OfflineModel()) if isinstance(r, EvalRow)]


def implied(task_id: str, pattern: str) -> tuple[bool, ...]:
    """The drafts' verdicts the scripts imply: a right draft is passed at once; with the tests the refiner
    fixes the bug; the critic alone asks for what its review finds, and passes a draft it finds nothing in."""
    s = SOLUTIONS[task_id]
    if not s.fixed:
        return (True,)
    if pattern == "reflection+tests":
        return (False, True)
    if s.review is None:
        return (False,)
    return (False, (s.reviewed or s.fixed) == s.fixed)


def test_every_draft_is_scored_as_the_scripts_imply(rows):
    for row in rows:
        if row.pattern == "direct":
            assert row.rounds == () and row.llm_calls == 1
            assert row.passed == (not SOLUTIONS[row.task_id].fixed)
        else:
            assert row.rounds == implied(row.task_id, row.pattern), row.task_id
            assert row.passed == row.rounds[-1], "the run's answer is its last draft"
            assert row.round_calls[0] == 1 and list(row.round_calls) == sorted(row.round_calls)


def test_per_round_pass_rates_and_transitions(rows):
    stats = {(s.pattern, s.round): s for s in round_stats(rows)}
    assert set(stats) == {("reflection", 0), ("reflection", 1), ("reflection+tests", 0), ("reflection+tests", 1)}
    first, second = stats["reflection", 0], stats["reflection", 1]
    assert (first.passed, first.tasks, second.passed) == (4, 7, 5)
    # the critic alone fixes fizzbuzz, keeps primes_up_to's bound bug in its sieve, passes running_max's bug
    assert (second.right_to_wrong, second.wrong_to_right, second.right_to_right, second.wrong_to_wrong) == (0, 1, 4, 2)
    tests_second = stats["reflection+tests", 1]
    assert (tests_second.passed, tests_second.wrong_to_right, tests_second.wrong_to_wrong) == (7, 3, 0)
    assert second.drafted == 2 and tests_second.drafted == 3


def test_self_stop_beside_oracle_stop_and_the_baseline(rows):
    stops = {s.pattern: s for s in stop_stats(rows, "direct")}
    assert (stops["reflection"].self_passed, stops["reflection"].oracle_passed) == (5, 5)
    # the oracle stops at the first passing draft, so it never spends more calls than the run did
    assert stops["reflection"].oracle_calls < stops["reflection"].self_calls
    assert stops["direct"].baseline and (stops["direct"].self_passed, stops["direct"].self_calls) == (4, 1.0)


def test_the_rounds_csv_has_one_line_per_task_pattern_and_round(rows):
    lines = list(csv.DictReader(io.StringIO(rounds_to_csv(rows))))
    assert list(lines[0]) == ["task_id", "pattern", "round", "passed", "changed_from_previous"]
    assert len(lines) == sum(len(r.rounds) for r in rows) == 7 + 2 + 7 + 3
    fizz = [line for line in lines if line["task_id"] == "bundled/fizzbuzz" and line["pattern"] == "reflection"]
    assert [(f["round"], f["passed"], f["changed_from_previous"]) for f in fizz] == [
        ("0", "False", ""),
        ("1", "True", "True"),
    ]


def test_the_cli_writes_the_rounds_and_prints_the_oracle_beside_the_self_stop(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    path = tmp_path / "rounds.csv"
    out = io.StringIO()
    code = main(
        ["eval", "--tasks", "bundled", "--pattern", "reflection", "--pattern", "direct", "--rounds-out", str(path)],
        out=out,
    )
    assert code == 0
    text = out.getvalue()
    # 9 rounds of reflection's drafts and the baseline's 7 one-call runs, round 0 each
    assert "oracle stop*" in text and "direct (baseline)" in text and f"wrote {path} (16 rows)" in text
    lines = path.read_text().splitlines()
    assert lines[0] == "task_id,pattern,repeat,round,passed,changed_from_previous"
    assert sum(line.split(",")[1] == "direct" for line in lines) == 7


def test_an_uploaded_humaneval_file_gets_the_rounds_section():
    tasks = [
        {
            "task_id": f"demo/{i}",
            "prompt": 'def add(a, b):\n    """Add two numbers."""\n',
            "entry_point": "add",
            "canonical_solution": "    return a + b\n",
            "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
        }
        for i in range(2)
    ]
    data = gzip.compress("\n".join(json.dumps(t) for t in tasks).encode())
    at = open_page("pages/eval.py", ev_patterns=["reflection", "direct"])
    at.radio(key="ev_source").set_value("upload").run()
    at.get("file_uploader")[0].set_value(("tasks.jsonl.gz", data, "application/octet-stream")).run()
    at.button(key="ev_run").click().run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    rows = at.session_state["ev_rows"]
    assert {r["pattern"] for r in rows} == {"reflection", "direct"}
    assert all(len(r["rounds"]) >= 1 for r in rows if r["pattern"] == "reflection")
    assert "What self-correction changes" in [h.value for h in at.subheader]
    frames = [d.value for d in at.dataframe]
    stops = next(f for f in frames if "oracle stop* · pass" in f.columns)
    assert list(stops["pattern"]) == ["reflection", "direct (baseline)"]
    rounds = next(f for f in frames if "wrong→right" in f.columns)
    assert set(rounds["pattern"]) == {"reflection"} and list(rounds["round"])[0] == 0
    chart = json.loads(at.get("plotly_chart")[-1].proto.spec)
    assert chart["layout"]["title"]["text"] == "Pass rate by round"


def test_the_baseline_at_about_the_same_budget_votes_over_independent_answers():
    from agent_core.evaluation.harness import BASELINE_ENTRIES

    assert BASELINE_ENTRIES == ("direct", "self-consistency×3"), "the one call first, then the vote"
    rows = [
        r
        for r in evaluate(bundled_tasks(), ["reflection", "self-consistency×3"], OfflineModel())
        if isinstance(r, EvalRow)
    ]
    stops = {s.pattern: s for s in stop_stats(rows, BASELINE_ENTRIES)}
    voted = stops["self-consistency×3"]
    # three calls a task, beside reflection's 2.57; the scripted model answers alike, so the vote is its draft
    assert voted.baseline and voted.self_calls == 3.0 and voted.self_passed == 4
    assert stops["reflection"].self_calls < voted.self_calls
