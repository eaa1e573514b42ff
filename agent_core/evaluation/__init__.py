"""The Eval harness: run patterns on code tasks with unit tests, and compare pass rate against cost.

    tasks = load_tasks("HumanEval.jsonl.gz")          # or bundled_tasks()
    rows = [r for r in evaluate(tasks, EVAL_PATTERNS, OfflineModel())
            if isinstance(r, EvalRow)]
    for score in summarize(rows): ...

tasks.py loads and validates task sets (HumanEval's JSONL format), harness.py runs and judges,
scores.py sums up and draws; see each module's docstring.

Question sets, repeats and statistics: tasksets.py reads every format (generic JSONL/CSV, GSM8K, MBPP,
HumanEval) through one bounded loader, scorers.py scores answers, backends.py runs every task × pattern
× repeat (the local pool; ray_backend.py on Ray), rows.py holds the rows, their CSV, resume and the
summary, stats.py the intervals and the paired tests, samples.py the bundled samples and presets, and
eval_cli.py the CLI's eval command.
"""

from .harness import (
    EVAL_PATTERNS,
    PATTERN_HELP,
    REFERENCE,
    TEST_FEEDBACK_NOTE,
    WITH_TESTS,
    EvalRow,
    evaluate,
    extract_code,
    judge,
    runnable_tests,
    task_text,
    worst_case,
)
from .pool import DEFAULT_CONCURRENCY, MAX_CONCURRENCY, EvalProgress, Evaluation
from .rounds import ROUNDS_CSV_COLUMNS, RoundStat, StopStat, round_stats, rounds_figure, rounds_to_csv, stop_stats
from .scores import CSV_COLUMNS, REFERENCE_POINTS, PatternScore, ReferencePoint, rows_to_csv, scores_figure, summarize
from .tasks import BUNDLED_PATH, MAX_BYTES, MAX_TASKS, EvalTask, bundled_tasks, load_tasks

__all__ = [
    "BUNDLED_PATH",
    "CSV_COLUMNS",
    "DEFAULT_CONCURRENCY",
    "EVAL_PATTERNS",
    "MAX_BYTES",
    "MAX_CONCURRENCY",
    "MAX_TASKS",
    "PATTERN_HELP",
    "REFERENCE",
    "REFERENCE_POINTS",
    "TEST_FEEDBACK_NOTE",
    "WITH_TESTS",
    "EvalProgress",
    "EvalRow",
    "EvalTask",
    "Evaluation",
    "PatternScore",
    "ReferencePoint",
    "bundled_tasks",
    "evaluate",
    "extract_code",
    "judge",
    "load_tasks",
    "rows_to_csv",
    "runnable_tests",
    "scores_figure",
    "summarize",
    "task_text",
    "worst_case",
    "ROUNDS_CSV_COLUMNS",
    "RoundStat",
    "StopStat",
    "round_stats",
    "rounds_figure",
    "rounds_to_csv",
    "stop_stats",
]
