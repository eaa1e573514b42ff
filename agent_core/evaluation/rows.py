"""Result rows (one per task × pattern × repeat), their CSV, resuming from it, and the summary.

A `ResultRow` is what every backend hands back, for code and question tasks alike; `--out` writes
them as they finish (ROW_COLUMNS), and a rerun with the same file reads the rows already there and
runs only the missing (task_id, pattern, repeat) keys. `summarize_rows` gives per pattern n, the
pass rate with its 95 % interval (stats.pass_interval: Wilson when each task ran once, else a
bootstrap over tasks; `ci_method` says which) and the cost per solved task; `comparisons` pairs every
pattern with the baseline (or with the first pattern) on the same tasks and repeats.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from ..errors import ConfigError
from . import stats

#: free text (detail, the answer) after the fixed columns, the answer last: a long program stays out of the way
ROW_COLUMNS = (
    "task_id",
    "pattern",
    "runs",
    "repeat",
    "passed",
    "status",
    "score",
    "calls",
    "tokens",
    "cost",
    "scorer",
    "detail",
    "error",
    "rounds",
    "round_calls",
    "latency",
    "answer",
)
SUMMARY_COLUMNS = (
    "kind",
    "pattern",
    "versus",
    "n",
    "tasks",
    "passed",
    "pass_rate",
    "ci_low",
    "ci_high",
    "ci_method",
    "cost_per_solved",
    "difference",
    "b_only",
    "a_only",
    "p_value",
)
#: the longest answer kept in a row (the end of a longer one is cut off, marked with …)
ROW_ANSWER_CHARS = 4000


@dataclass(frozen=True)
class ResultRow:
    """One pattern on one task, one repeat: the verdict, the answer, and what it cost."""

    task_id: str
    pattern: str
    repeat: int
    passed: bool
    #: passed, failed, unparsable (a question scorer could not read the answer), or the sandbox's status
    status: str
    #: from 0 to 1 (1 or 0 for a pass or a fail)
    score: float
    calls: int
    tokens: int
    #: USD at the price table's prices; None when a model's price is unknown
    cost: float | None
    #: the scorer, or "tests" for a code task
    scorer: str
    detail: str = ""
    error: str = ""
    #: every draft's verdict for multi-draft runs; a run without drafts has one round, its answer
    rounds: tuple[bool, ...] = ()
    #: the LLM calls spent up to and including each of those rounds
    round_calls: tuple[int, ...] = ()
    #: the run's wall time in seconds, judging included
    latency: float = 0.0
    #: the final answer (for code, the judged program)
    answer: str = ""
    #: the pattern the row ran: a pattern entry's pattern, or a named entry's (entries.py), whose label
    #: is then `pattern`; "" for the reference and for rows written before rows said it
    runs: str = ""

    @property
    def llm_calls(self) -> int:
        """The calls, under the name rounds.py reads."""
        return self.calls

    @property
    def key(self) -> tuple[str, str, int]:
        return self.task_id, self.pattern, self.repeat


def _cell(row: ResultRow, name: str) -> object:
    value = getattr(row, name)
    if name == "rounds":
        return " ".join("1" if v else "0" for v in value)
    if name == "round_calls":
        return " ".join(map(str, value))
    if name == "cost":
        return "" if value is None else f"{value:.6f}"
    if name == "answer" and len(value) > ROW_ANSWER_CHARS:
        return value[: ROW_ANSWER_CHARS - 1] + "…"
    return value


def header_line() -> str:
    return ",".join(ROW_COLUMNS) + "\n"


def row_line(row: ResultRow) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([_cell(row, n) for n in ROW_COLUMNS])
    return buffer.getvalue()


def rows_to_csv(rows: Iterable[ResultRow]) -> str:
    return header_line() + "".join(row_line(r) for r in rows)


def read_rows(path: str | Path) -> list[ResultRow]:
    """The rows of an earlier `--out` (for resuming); [] when the file does not exist or is empty.

    A file with other columns is refused (ConfigError) rather than appended to."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not text.strip():
        return []
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if tuple(reader.fieldnames or ()) not in (ROW_COLUMNS, _BEFORE_RUNS):
        raise ConfigError(
            f"{path} has other columns than eval's rows ({', '.join(ROW_COLUMNS)}); write to a new file or remove it"
        )
    out = []
    try:
        for line in reader:
            out.append(
                ResultRow(
                    line["task_id"],
                    line["pattern"],
                    int(line["repeat"]),
                    line["passed"] == "True",
                    line["status"],
                    float(line["score"]),
                    int(line["calls"]),
                    int(line["tokens"]),
                    float(line["cost"]) if line["cost"] else None,
                    line["scorer"],
                    line["detail"],
                    line["error"],
                    tuple(v == "1" for v in line["rounds"].split()),
                    tuple(int(v) for v in line["round_calls"].split()),
                    float(line["latency"]),
                    line["answer"],
                    line.get("runs") or "",
                )
            )
    except (ValueError, TypeError, KeyError) as exc:
        raise ConfigError(f"{path}, line {reader.line_num}: not an eval row ({exc})") from None
    # a key written twice (an interrupted write, then a rerun) counts once: the last one wins
    return list({r.key: r for r in out}.values())


def upgrade_file(path: str | Path) -> None:
    """Rewrite a file written before rows said the pattern they ran in today's columns, so that rows
    appended to it (a resumed `--out`) line up with its header; any other file is left as it is."""
    path = Path(path)
    try:
        with path.open(encoding="utf-8", newline="") as f:
            head = f.readline()
    except OSError:
        return  # read_rows says why, or the file is new
    if tuple(next(csv.reader([head]), [])) == _BEFORE_RUNS:
        path.write_text(rows_to_csv(read_rows(path)), encoding="utf-8")


# --- the summary ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PatternSummary:
    """One pattern: n runs over `tasks` tasks, the pass rate with its 95 % interval, cost per solved task."""

    pattern: str
    n: int
    tasks: int
    passed: int
    pass_rate: float
    ci_low: float
    ci_high: float
    ci_method: str
    #: USD spent over tasks solved; None when nothing was solved or a price is unknown
    cost_per_solved: float | None
    calls_per_run: float
    tokens_per_run: float


def summarize_rows(rows: Sequence[ResultRow], *, seed: int = stats.DEFAULT_SEED) -> list[PatternSummary]:
    """Per pattern, in the order the patterns first appear."""
    groups: dict[str, list[ResultRow]] = {}
    for row in rows:
        groups.setdefault(row.pattern, []).append(row)
    out = []
    for pattern, group in groups.items():
        per_task: dict[str, list[bool]] = {}
        for r in group:
            per_task.setdefault(r.task_id, []).append(r.passed)
        low, high, method = stats.pass_interval(per_task, seed=seed)
        passed = sum(r.passed for r in group)
        costs = [r.cost for r in group]
        known = all(c is not None for c in costs)
        spent = sum(c for c in costs if c is not None)
        n = len(group)
        out.append(
            PatternSummary(
                pattern,
                n,
                len(per_task),
                passed,
                passed / n,
                low,
                high,
                method,
                spent / passed if passed and known else None,
                sum(r.calls for r in group) / n,
                sum(r.tokens for r in group) / n,
            )
        )
    return out


def comparisons(
    rows: Sequence[ResultRow], baseline: str | None = None, *, seed: int = stats.DEFAULT_SEED
) -> list[stats.Paired]:
    """Every other pattern against `baseline` (default: the first pattern) on their shared tasks × repeats."""
    from .harness import REFERENCE  # the ground truth is no pattern to compare with

    patterns = [p for p in dict.fromkeys(r.pattern for r in rows) if p != REFERENCE]
    if not patterns:
        return []
    base = baseline if baseline in patterns else patterns[0]
    verdicts = {r.key: r.passed for r in rows}
    out = []
    for p in patterns:
        if p != base:
            result = stats.paired(base, p, verdicts, seed=seed)
            if result is not None:
                out.append(result)
    return out


def summary_to_csv(summaries: Iterable[PatternSummary], pairs: Iterable[stats.Paired]) -> str:
    """The summary CSV: a `pattern` line per pattern, then a `paired` line per comparison."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(SUMMARY_COLUMNS)
    for s in summaries:
        writer.writerow(
            [
                "pattern",
                s.pattern,
                "",
                s.n,
                s.tasks,
                s.passed,
                f"{s.pass_rate:.4f}",
                f"{s.ci_low:.4f}",
                f"{s.ci_high:.4f}",
                s.ci_method,
                "" if s.cost_per_solved is None else f"{s.cost_per_solved:.6f}",
                "",
                "",
                "",
                "",
            ]
        )
    for p in pairs:
        writer.writerow(
            [
                "paired",
                p.b,
                p.a,
                p.pairs,
                p.tasks,
                "",
                "",
                f"{p.ci_low:.4f}",
                f"{p.ci_high:.4f}",
                p.ci_method,
                "",
                f"{p.difference:.4f}",
                p.b_only,
                p.a_only,
                f"{p.p_value:.4g}",
            ]
        )
    return buffer.getvalue()


def round_lines(rows: Iterable[ResultRow]) -> list[tuple[str, str, int, int, bool, bool | None]]:
    """(task_id, pattern, repeat, round, passed, changed_from_previous) for every round of every run:
    a run without drafts (the one-call baseline) has one round, round 0, its answer."""
    out = []
    for row in rows:
        verdicts = row.rounds or (row.passed,)
        for k, passed in enumerate(verdicts):
            out.append((row.task_id, row.pattern, row.repeat, k, passed, None if k == 0 else passed != verdicts[k - 1]))
    return out


ROUND_COLUMNS = ("task_id", "pattern", "repeat", "round", "passed", "changed_from_previous")


def rounds_csv(rows: Iterable[ResultRow]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(ROUND_COLUMNS)
    for task_id, pattern, repeat, k, passed, changed in round_lines(rows):
        writer.writerow([task_id, pattern, repeat, k, passed, "" if changed is None else changed])
    return buffer.getvalue()


#: the columns of a file written before rows said the pattern they ran: resumed as well
_BEFORE_RUNS = tuple(c for c in ROW_COLUMNS if c != "runs")
# the CSV holds every field once (`runs` beside `pattern`, the field last: rows are built positionally)
assert sorted(f.name for f in fields(ResultRow)) == sorted(ROW_COLUMNS) and len(fields(ResultRow)) == len(ROW_COLUMNS)
