"""Eval throughput on question tasks: 200 tasks x 3 patterns x 3 repeats against a local endpoint that takes
300 ms a call — the local pool at concurrency 8, one run at a time, and Ray on this machine — side by side.

Run: python tests/bench/bench_eval_tasks.py [--tasks 200] [--repeats 3] [--delay 0.3] [--concurrency 8]
                                              [--sequential-tasks 20] [--reps 1] [--no-ray] [--quick]

The tasks are generated generic questions ("What is i + 7?", scored `numeric`); the endpoint is
tests/fake_openai_server.py on 127.0.0.1, answering the sum (wrong on every fifth task) and, as
Reflection's critic, "No improvement needed." The patterns are direct (1 call), reflection (2 calls)
and self-consistency×3 (3 calls): 6 calls per task and repeat. One run at a time would take about 20 minutes on
the whole set, so it runs the first `--sequential-tasks` tasks and is compared per run (a run's mean
wall time), which is what throughput is; the pool and Ray run the whole set. Ray starts a local
instance with 2 CPUs (this machine's), each job reserving 0.25 of one, `--concurrency` jobs in
flight; its overhead per run is (Ray's wall time - the pool's) / runs, and the time to its first row
(starting workers and importing the package) is reported beside it. Every mode's rows are compared
with the pool's (clock readings aside).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent_core.evaluation import backends, rows  # noqa: E402
from agent_core.evaluation.tasksets import QuestionTask, TaskSet  # noqa: E402
from agent_core.llm import OpenAICompatibleModel  # noqa: E402
from tests.bench._util import machine, median, table  # noqa: E402
from tests.fake_openai_server import FakeOpenAIServer, RecordedRequest, Reply  # noqa: E402

PATTERNS = ("direct", "reflection", "self-consistency×3")
TARGET_POOL = 6.0
TARGET_RAY = 1.3


def task_set(n: int) -> TaskSet:
    return TaskSet("generic", tuple(QuestionTask(f"sum/{i}", f"What is {i} + 7?", str(i + 7), scorer="numeric")
                                    for i in range(n)))


def endpoint(delay: float):
    def reply(request: RecordedRequest) -> Reply:
        text = "\n".join(str(m.get("content") or "") for m in request.body.get("messages", []))
        if "exacting reviewer" in text:
            return Reply("No improvement needed.", delay=delay)
        i = int(re.search(r"What is (\d+) \+ 7", text).group(1))
        return Reply(f"{i} + 7 = {i + 7 + (1 if i % 5 == 4 else 0)}.\nAnswer: {i + 7 + (1 if i % 5 == 4 else 0)}",
                     delay=delay)
    return reply


def key(row: rows.ResultRow) -> tuple:
    return (row.key, row.passed, row.status, row.calls, row.tokens, row.answer, row.rounds)


def run(url: str, plan: backends.Plan, concurrency: int, backend: str) -> tuple[float, list[tuple], float | None]:
    model = OpenAICompatibleModel(url, "fake-model", api_key="not-needed")
    try:
        started = time.perf_counter()
        if backend == "ray":
            from agent_core.evaluation import ray_backend

            runs = ray_backend.RayEvaluation(plan, model, concurrency=concurrency, num_cpus=2)
            got = list(runs)
            first = runs.first_row_s
        else:
            got = [r for r in backends.local(plan, model, concurrency=concurrency) if isinstance(r, rows.ResultRow)]
            first = None
        return time.perf_counter() - started, sorted(key(r) for r in got), first
    finally:
        model.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--sequential-tasks", type=int, default=20)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--quick", action="store_true", help="40 tasks, 1 repeat, 8 run one at a time")
    args = parser.parse_args()
    if args.quick:
        args.tasks, args.repeats, args.sequential_tasks = 40, 1, 8
    full = backends.plan(task_set(args.tasks), PATTERNS, repeats=args.repeats)
    small = backends.plan(task_set(args.sequential_tasks), PATTERNS, repeats=args.repeats)
    modes = [("pool", args.concurrency, full), ("pool", 1, small)] + ([] if args.no_ray else
                                                                     [("ray", args.concurrency, full)])
    times: dict[tuple[str, int], list[float]] = {(b, c): [] for b, c, _ in modes}
    seen: dict[tuple[str, int], list[tuple]] = {}
    first_rows: list[float] = []
    with FakeOpenAIServer(endpoint(args.delay)) as server:
        for rep in range(args.reps):
            for backend, n, plan in modes:
                seconds, found, first = run(server.url, plan, n, backend)
                times[(backend, n)].append(seconds)
                seen[(backend, n)] = found
                if first is not None:
                    first_rows.append(first)
                print(f"rep {rep + 1}/{args.reps}, {backend} x{n}: {seconds:.1f} s for {len(found)} runs",
                      file=sys.stderr, flush=True)
    runs_full, runs_small = full.total, small.total
    pool = median(times[("pool", args.concurrency)])
    seq = median(times[("pool", 1)])
    per_pool, per_seq = pool / runs_full, seq / runs_small
    lines = [[f"local pool, --concurrency {args.concurrency}", runs_full, f"{pool:.1f} s",
              f"{min(times[('pool', args.concurrency)]):.1f}-{max(times[('pool', args.concurrency)]):.1f} s",
              f"{per_pool * 1000:.0f} ms", "1.00x"],
             [f"local pool, --concurrency 1 (first {args.sequential_tasks} tasks)", runs_small, f"{seq:.1f} s",
              f"{min(times[('pool', 1)]):.1f}-{max(times[('pool', 1)]):.1f} s", f"{per_seq * 1000:.0f} ms",
              f"{per_seq / per_pool:.2f}x"]]
    ray_note = ""
    if not args.no_ray:
        on_ray = median(times[("ray", args.concurrency)])
        lines.append([f"Ray on this machine, {args.concurrency} in flight", runs_full, f"{on_ray:.1f} s",
                      f"{min(times[('ray', args.concurrency)]):.1f}-{max(times[('ray', args.concurrency)]):.1f} s",
                      f"{on_ray / runs_full * 1000:.0f} ms", f"{on_ray / pool:.2f}x"])
        same = seen[("ray", args.concurrency)] == seen[("pool", args.concurrency)]
        ray_note = (f"\nRay vs the pool: **{on_ray / pool:.2f}x** the pool's wall time (target <= {TARGET_RAY:g}x): "
                    f"{'met' if on_ray / pool <= TARGET_RAY else 'NOT met'}; overhead "
                    f"{(on_ray - pool) / runs_full * 1000:.0f} ms a run, {median(first_rows):.1f} s to the first row "
                    f"(starting the instance and its workers). Same rows as the pool: {'yes' if same else 'NO'}.")
    calls = 6 * args.repeats
    print(f"{machine()}\n")
    print(f"{args.tasks} question tasks x {len(PATTERNS)} patterns ({', '.join(PATTERNS)}) x {args.repeats} repeats "
          f"({calls} calls a task) against tests/fake_openai_server.py at {args.delay * 1000:.0f} ms a call. "
          f"Median of {args.reps} repetition(s), spread = min-max.\n")
    print(table(["run", "runs", "wall time", "spread", "per run", "vs the pool"], lines))
    speedup = per_seq / per_pool
    print(f"\nPool vs one at a time (per run): **{speedup:.1f}x** (target >= {TARGET_POOL:g}x): "
          f"{'met' if speedup >= TARGET_POOL else 'NOT met'}.{ray_note}")


if __name__ == "__main__":
    main()
