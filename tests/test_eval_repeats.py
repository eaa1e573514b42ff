"""Repeats, rows, resume and the summary: `python -m agent_core eval` on the offline model."""

from __future__ import annotations

import csv
import io

import pytest

from agent_core.cli import main
from agent_core.evaluation import backends, rows, tasksets
from agent_core.evaluation.samples import SAMPLES
from agent_core.llm import OpenAICompatibleModel
from agent_core.messages import ChatRequest, user
from agent_core.offline.model import OfflineModel


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def read(path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_rows_one_per_task_pattern_and_repeat_with_the_columns(tmp_path) -> None:
    out = tmp_path / "rows.csv"
    code, text = cli(
        "eval",
        "--tasks",
        "gsm8k-style",
        "--limit",
        "4",
        "--pattern",
        "direct",
        "--pattern",
        "reflection",
        "--repeats",
        "3",
        "--out",
        str(out),
    )
    assert code == 0 and "4 task(s) x 2 pattern(s) x 3 repeats" in text
    lines = read(out)
    assert len(lines) == 4 * 2 * 3
    assert {(r["task_id"], r["pattern"], r["repeat"]) for r in lines} == {
        (f"gsm8k-style/{t}", p, str(r)) for t in range(1, 5) for p in ("direct", "reflection") for r in range(3)
    }
    for column in ("task_id", "pattern", "repeat", "passed", "answer", "score", "calls", "tokens", "cost", "latency"):
        assert column in lines[0]
    assert all(r["scorer"] == "numeric" for r in lines)


def test_resume_runs_only_the_missing_rows(tmp_path) -> None:
    out = tmp_path / "rows.csv"
    assert cli("eval", "--tasks", "gsm8k-style", "--limit", "3", "--pattern", "direct", "--out", str(out))[0] == 0
    first = out.read_text(encoding="utf-8")
    # a second pattern and a second repeat: only those rows run, the first three are kept as they were
    code, text = cli(
        "eval",
        "--tasks",
        "gsm8k-style",
        "--limit",
        "3",
        "--pattern",
        "direct",
        "--pattern",
        "reflection",
        "--repeats",
        "2",
        "--out",
        str(out),
    )
    assert code == 0 and "3 of 12 rows are there, 9 to run" in text
    assert sum(line.startswith("[") for line in text.splitlines()) == 9
    assert out.read_text(encoding="utf-8").startswith(first)
    assert len(read(out)) == 12
    code, text = cli(
        "eval",
        "--tasks",
        "gsm8k-style",
        "--limit",
        "3",
        "--pattern",
        "direct",
        "--pattern",
        "reflection",
        "--repeats",
        "2",
        "--out",
        str(out),
    )
    assert code == 0 and "12 of 12 rows are there, 0 to run" in text and len(read(out)) == 12


def test_resume_refuses_a_file_that_is_not_eval_rows(tmp_path, capsys) -> None:
    out = tmp_path / "other.csv"
    out.write_text("a,b\n1,2\n", encoding="utf-8")
    code, _ = cli("eval", "--tasks", "gsm8k-style", "--pattern", "direct", "--out", str(out))
    assert code == 2 and "other columns" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "a,b\n1,2\n"  # left as it was


def test_summary_out_has_intervals_cost_per_solved_and_the_paired_comparison(tmp_path) -> None:
    summary = tmp_path / "summary.csv"
    code, text = cli(
        "eval",
        "--tasks",
        "gsm8k-style",
        "--pattern",
        "direct",
        "--pattern",
        "reflection",
        "--summary-out",
        str(summary),
    )
    assert code == 0
    lines = read(summary)
    by = {(r["kind"], r["pattern"]): r for r in lines}
    direct, reflection = by[("pattern", "direct")], by[("pattern", "reflection")]
    assert (reflection["n"], reflection["passed"]) == ("12", "8")
    assert (direct["n"], direct["passed"], direct["ci_method"]) == ("12", "9", "wilson")
    assert float(direct["ci_low"]) < 0.75 < float(direct["ci_high"])
    assert direct["cost_per_solved"] != ""
    paired = by[("paired", "reflection")]
    assert (paired["versus"], paired["b_only"], paired["a_only"], paired["p_value"]) == ("direct", "1", "2", "1")
    assert "not distinguishable at this n" in text


def test_the_rounds_csv_has_the_baselines_round_zero(tmp_path) -> None:
    path = tmp_path / "rounds.csv"
    assert (
        cli("eval", "--tasks", "bundled", "--pattern", "direct", "--pattern", "reflection", "--rounds-out", str(path))[
            0
        ]
        == 0
    )
    lines = read(path)
    direct = [r for r in lines if r["pattern"] == "direct"]
    assert len(direct) == 7 and {r["round"] for r in direct} == {"0"}
    assert {r["pattern"] for r in lines} == {"direct", "reflection"}


def test_code_rows_with_repeats_are_the_same_at_any_concurrency() -> None:
    task_set = tasksets.load_task_set(SAMPLES["bundled"].path)
    plan = backends.plan(task_set, ["reference", "direct", "reflection+tests"], repeats=2, limit=3)

    def keyed(concurrency: int):
        got = [
            r for r in backends.local(plan, OfflineModel(), concurrency=concurrency) if isinstance(r, rows.ResultRow)
        ]
        return [(r.key, r.passed, r.calls, r.rounds, r.answer) for r in got]

    one = keyed(1)
    assert len(one) == 3 * 3 * 2 and one == keyed(4)


def test_question_sets_refuse_the_entry_that_needs_unit_tests() -> None:
    from agent_core.errors import ConfigError
    from agent_core.evaluation.harness import WITH_TESTS

    with pytest.raises(ConfigError, match="unit tests"):
        backends.plan(tasksets.load_task_set(SAMPLES["gsm8k-style"].path), [WITH_TESTS])
    with pytest.raises(ConfigError, match="repeats"):
        backends.plan(tasksets.load_task_set(SAMPLES["gsm8k-style"].path), ["direct"], repeats=0)


def test_the_judge_scorer_runs_through_the_router_and_counts_its_call(tmp_path) -> None:
    out = tmp_path / "rows.csv"
    code, _ = cli(
        "eval", "--tasks", "gsm8k-style", "--limit", "3", "--pattern", "direct", "--scorer", "judge", "--out", str(out)
    )
    assert code == 0
    lines = read(out)
    assert [r["passed"] for r in lines] == ["True", "True", "True"]
    assert all(r["scorer"] == "judge" and r["calls"] == "2" for r in lines)  # the answer's call and the judge's


def test_each_repeat_asks_for_its_own_stable_seed() -> None:
    bodies = []

    class Endpoint(OpenAICompatibleModel):
        def __init__(self):  # no client: the body is what is under test
            self.name = "m"

        def _stream(self, request, extra):
            bodies.append(dict(extra))
            yield from ()

    for repeat in (0, 1, 0):
        list(
            backends.SeededModel(Endpoint(), backends.repeat_seed("t", "direct", repeat)).stream(
                ChatRequest((user("hi"),))
            )
        )
    assert bodies[0] == bodies[2] != bodies[1] and set(bodies[0]) == {"seed"}


def test_the_humaneval_sample_is_valid_its_canonical_solutions_pass() -> None:
    code, text = cli("eval", "--tasks", "humaneval-sample", "--pattern", "reference")
    assert code == 0 and "10/10" in text
