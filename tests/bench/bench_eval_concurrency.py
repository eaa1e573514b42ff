"""Eval concurrency: 164 HumanEval-format tasks against a local endpoint that takes 300 ms a call,
one run at a time vs `--concurrency 8`, side by side.

Run: python tests/bench/bench_eval_concurrency.py [--reps 3] [--tasks 164] [--concurrency 8] [--delay 0.3]

The tasks are generated (HumanEval's JSONL fields, a `check(candidate)` test each): `add_i(x)` returns
x + i. The endpoint is tests/fake_openai_server.py on 127.0.0.1: the writer answers with the function
(wrong on every fifth task, so the results hold failures too) and the reviewer with "No improvement
needed.", so Reflection makes two calls a task and every answer is judged in the sandbox. Repetitions
alternate sequential and concurrent runs, so both see the same machine load. Prints a Markdown table:
median and spread (min-max) of the wall time, the ratio of the medians, and whether every
repetition gave the same rows (task, pattern, verdict, status, summary, calls, tokens) in the same order.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent_core.evaluation import EvalRow, EvalTask, evaluate  # noqa: E402
from agent_core.llm import OpenAICompatibleModel  # noqa: E402
from tests.bench._util import machine, median, table  # noqa: E402
from tests.fake_openai_server import FakeOpenAIServer, RecordedRequest, Reply  # noqa: E402

PATTERN = "reflection"
TARGET = 6.0


def tasks(n: int) -> list[EvalTask]:
    """n HumanEval-format tasks: add_i(x) returns x + i."""
    return [
        EvalTask(
            f"Bench/{i}",
            f'def add_{i}(x: int) -> int:\n    """Return x + {i}.\n    >>> add_{i}(1)\n    {1 + i}\n    """\n',
            f"add_{i}",
            f"def check(candidate):\n    assert candidate(1) == {1 + i}\n    assert candidate(-{i}) == 0\n",
            f"    return x + {i}\n",
        )
        for i in range(n)
    ]


def endpoint(delay: float):
    """The fake model: writes add_i (off by one on every fifth task), and is always satisfied as a reviewer."""

    def reply(request: RecordedRequest) -> Reply:
        text = "\n".join(str(m.get("content") or "") for m in request.body.get("messages", []))
        if "exacting reviewer" in text:
            return Reply("No improvement needed.", delay=delay)
        i = int(re.search(r"def add_(\d+)", text).group(1))
        body = f"x + {i + 1}" if i % 5 == 4 else f"x + {i}"
        return Reply(f"```python\ndef add_{i}(x: int) -> int:\n    return {body}\n```", delay=delay)

    return reply


def key(row: EvalRow) -> tuple:
    """A row without its clock readings."""
    return (
        row.task_id,
        row.pattern,
        row.passed,
        row.status,
        row.summary,
        row.llm_calls,
        row.prompt_tokens,
        row.completion_tokens,
        row.error,
    )


def once(url: str, task_set: list[EvalTask], concurrency: int) -> tuple[float, list[tuple], int]:
    model = OpenAICompatibleModel(url, "fake-model", api_key="not-needed")
    try:
        started = time.perf_counter()
        rows = [r for r in evaluate(task_set, [PATTERN], model, concurrency=concurrency) if isinstance(r, EvalRow)]
        return time.perf_counter() - started, [key(r) for r in rows], sum(r.llm_calls for r in rows)
    finally:
        model.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=164)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.3, help="seconds the endpoint takes per call")
    args = parser.parse_args()
    task_set = tasks(args.tasks)
    times: dict[int, list[float]] = {1: [], args.concurrency: []}
    results: list[list[tuple]] = []
    calls = 0
    with FakeOpenAIServer(endpoint(args.delay)) as server:
        for rep in range(args.reps):
            for n in (1, args.concurrency):
                seconds, rows, calls = once(server.url, task_set, n)
                times[n].append(seconds)
                results.append(rows)
                print(f"rep {rep + 1}/{args.reps}, concurrency {n}: {seconds:.1f} s", file=sys.stderr, flush=True)
    identical = all(r == results[0] for r in results)
    passed = sum(row[2] for row in results[0])
    seq, par = median(times[1]), median(times[args.concurrency])
    ratio = seq / par
    print(f"{machine()}\n")
    print(
        f"{args.tasks} tasks x {PATTERN} ({calls} LLM calls, {args.delay * 1000:.0f} ms each) on a local fake endpoint; "
        f"every answer judged in the sandbox. Median of {args.reps} alternating repetitions, spread = min-max.\n"
    )
    print(
        table(
            ["run", "median wall time", "spread", "per task"],
            [
                [
                    "one at a time (--concurrency 1)",
                    f"{seq:.1f} s",
                    f"{min(times[1]):.1f}-{max(times[1]):.1f} s",
                    f"{seq / args.tasks * 1000:.0f} ms",
                ],
                [
                    f"--concurrency {args.concurrency}",
                    f"{par:.1f} s",
                    f"{min(times[args.concurrency]):.1f}-{max(times[args.concurrency]):.1f} s",
                    f"{par / args.tasks * 1000:.0f} ms",
                ],
            ],
        )
    )
    pairs = [a / b for a, b in zip(times[1], times[args.concurrency], strict=True)]
    print(
        f"\nSpeed-up (ratio of the medians): **{ratio:.1f}x** (target >= {TARGET:g}x): "
        f"{'met' if ratio >= TARGET else 'NOT met'}; per repetition {', '.join(f'{p:.1f}x' for p in pairs)}."
    )
    print(
        f"Results identical in every run: {'yes' if identical else 'NO'} ({passed}/{args.tasks} passed, "
        "the same rows in the same order)."
    )


if __name__ == "__main__":
    main()
