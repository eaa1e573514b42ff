"""Eval throughput on question tasks: 200 tasks x 3 patterns x 3 repeats against a local endpoint that takes
300 ms a call — the local pool at concurrency 8, one run at a time, and Ray on this machine — side by side.

Run: python tests/bench/bench_eval_tasks.py [--tasks 200] [--repeats 3] [--delay 0.3] [--concurrency 8]
                                              [--sequential-tasks 20] [--reps 1] [--no-ray] [--why] [--quick]

The tasks are generated generic questions ("What is i + 7?", scored `numeric`); the endpoint is
tests/fake_openai_server.py on 127.0.0.1, answering the sum (wrong on every fifth task) and, as
Reflection's critic, "No improvement needed." The patterns are direct (1 call), reflection (2 calls)
and self-consistency×3 (3 samples, one vote): 6 calls per task and repeat. One run at a time would
take about 20 minutes on the whole set, so it runs the first `--sequential-tasks` tasks and is
compared per run (a run's mean wall time), which is what throughput is; the pool and Ray run the
whole set.

Ray runs twice in every repetition: cold (a fresh local instance with 2 CPUs, this machine's, each
job reserving 0.25 of one, `--concurrency` jobs in flight: what a first `--backend ray` pays) and
warm (a second evaluation on that instance, its workers up: what every later one pays, as on a
cluster already running). Start-up (the instance, then the first row: workers started and the
package imported) is reported apart from the per-run cost, which is (wall time - the pool's) / runs
on the warm instance. `--why` adds what a Ray run's overhead is made of, measured on a warm
instance: Ray's own floor (a no-op task, as many in flight), building a job's model on a worker,
one ask of the shared rate gate's actor, and the bytes a job and its row travel as. Every mode's
rows are compared with the pool's (clock readings aside).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent_core.evaluation import backends, rows  # noqa: E402
from agent_core.evaluation.tasksets import QuestionTask, TaskSet  # noqa: E402
from agent_core.llm import OpenAICompatibleModel  # noqa: E402
from agent_core.models import ModelRouter  # noqa: E402
from agent_core.pricing import PriceTable  # noqa: E402
from tests.bench._util import machine, median, table  # noqa: E402
from tests.fake_openai_server import FakeOpenAIServer, RecordedRequest, Reply  # noqa: E402

PATTERNS = ("direct", "reflection", "self-consistency×3")
TARGET_POOL = 6.0
TARGET_RAY = 1.3


def task_set(n: int) -> TaskSet:
    return TaskSet(
        "generic", tuple(QuestionTask(f"sum/{i}", f"What is {i} + 7?", str(i + 7), scorer="numeric") for i in range(n))
    )


def endpoint(delay: float):
    def reply(request: RecordedRequest) -> Reply:
        text = "\n".join(str(m.get("content") or "") for m in request.body.get("messages", []))
        if "exacting reviewer" in text:
            return Reply("No improvement needed.", delay=delay)
        i = int(re.search(r"What is (\d+) \+ 7", text).group(1))
        return Reply(
            f"{i} + 7 = {i + 7 + (1 if i % 5 == 4 else 0)}.\nAnswer: {i + 7 + (1 if i % 5 == 4 else 0)}", delay=delay
        )

    return reply


def key(row: rows.ResultRow) -> tuple:
    return (row.key, row.passed, row.status, row.calls, row.tokens, row.answer, row.rounds)


def descendants_cpu_s() -> float:
    """CPU seconds (user + system) used so far by this process's descendants that are still alive:
    a local Ray instance's GCS, raylet and workers (os.times() counts only children already reaped)."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    mine, total = {os.getpid()}, 0.0
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                total += cpu[pid]
                grew = True
    return total


@dataclass
class Timed:
    """One mode's run: its wall time, rows, CPU, and (on Ray) its start-up."""

    seconds: float
    rows: list[tuple]
    calls: int
    cpu_s: float
    load: float
    #: seconds to build the RayEvaluation (starting the instance when none runs) and then to the first row
    made_s: float | None = None
    first_row_s: float | None = None


def run(url: str, plan: backends.Plan, concurrency: int, backend: str) -> Timed:
    model = OpenAICompatibleModel(url, "fake-model", api_key="not-needed")
    load = os.getloadavg()[0]
    cpu_before = time.process_time() + descendants_cpu_s()
    try:
        started = time.perf_counter()
        made = first = None
        if backend == "ray":
            from agent_core.evaluation import ray_backend

            runs = ray_backend.RayEvaluation(plan, model, concurrency=concurrency, num_cpus=2)
            made = time.perf_counter() - started
            got = list(runs)
            first = runs.first_row_s
        else:
            got = [r for r in backends.local(plan, model, concurrency=concurrency) if isinstance(r, rows.ResultRow)]
        seconds = time.perf_counter() - started
        cpu = time.process_time() + descendants_cpu_s() - cpu_before
        return Timed(seconds, sorted(key(r) for r in got), sum(r.calls for r in got), cpu, load, made, first)
    finally:
        model.close()


def why(url: str, concurrency: int, plan: backends.Plan) -> list[list[object]]:
    """What one Ray run's overhead is made of, on the warm local instance (rows of a table)."""
    import pickle

    from agent_core.evaluation import ray_backend

    ray = ray_backend._ray()
    model = OpenAICompatibleModel(url, "fake-model", api_key="not-needed")
    made = ray_backend.portable(model)

    def noop() -> None:
        return None

    def builds(made: object, n: int) -> tuple[float, float]:
        cls, kwargs = made
        started = time.perf_counter()
        for _ in range(n):
            cls(**kwargs)._client.close()
        fresh = (time.perf_counter() - started) / n
        started = time.perf_counter()
        for _ in range(n):
            ray_backend.rebuild(made)
        return fresh, (time.perf_counter() - started) / n

    def asks(actor: object, n: int) -> float:
        ray.get(actor.remaining.remote())  # the actor's process up first: its start is no ask's cost
        started = time.perf_counter()
        for _ in range(n):
            ray.get(actor.remaining.remote())
        return (time.perf_counter() - started) / n

    remote_noop = ray.remote(num_cpus=ray_backend.JOB_CPUS)(noop)
    n, pending, started = 400, set(), time.perf_counter()
    for _ in range(n):
        if len(pending) >= concurrency:  # the same in-flight loop as RayEvaluation's
            ready, rest = ray.wait(list(pending), num_returns=1)
            pending = set(rest)
        pending.add(remote_noop.remote())
    ray.get(list(pending))
    floor = (time.perf_counter() - started) / n
    fresh, kept = ray.get(ray.remote(num_cpus=ray_backend.JOB_CPUS)(builds).remote(made, 20))
    actor = ray.remote(num_cpus=0)(ray_backend._Gate).remote()
    ask = ray.get(ray.remote(num_cpus=ray_backend.JOB_CPUS)(asks).remote(actor, 50))
    job = plan.jobs()[0]
    row = backends.run_job(plan, job, ModelRouter(model), PriceTable())
    model.close()
    return [
        ["Ray's floor: a no-op task, the same number in flight", f"{floor * 1000:.1f} ms a task"],
        ["a job's model built on the worker (an HTTP client)", f"{fresh * 1000:.1f} ms"],
        ["the same, kept by the worker from its earlier jobs", f"{kept * 1000:.3f} ms"],
        ["one ask of the rate gate's actor, from a worker", f"{ask * 1000:.2f} ms"],
        [
            "bytes a job travels as (job, model, gate handle, price table by reference)",
            f"{len(pickle.dumps(job)) + len(pickle.dumps(made))} B",
        ],
        ["bytes its row travels back as", f"{len(pickle.dumps(row))} B"],
        ["the plan (once per evaluation, in Ray's object store)", f"{len(pickle.dumps(plan)) / 1024:.0f} KiB"],
    ]


def spread(values: list[float], unit: str = "s", scale: float = 1.0, digits: int = 1) -> str:
    return f"{min(values) * scale:.{digits}f}-{max(values) * scale:.{digits}f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--sequential-tasks", type=int, default=20)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--why", action="store_true", help="what Ray's overhead is made of (on the warm instance)")
    parser.add_argument("--quick", action="store_true", help="40 tasks, 1 repeat, 8 run one at a time")
    args = parser.parse_args()
    if args.quick:
        args.tasks, args.repeats, args.sequential_tasks = 40, 1, 8
    full = backends.plan(task_set(args.tasks), PATTERNS, repeats=args.repeats)
    small = backends.plan(task_set(args.sequential_tasks), PATTERNS, repeats=args.repeats)
    modes = [("pool", args.concurrency, full), ("seq", 1, small)] + (
        [] if args.no_ray else [("ray", args.concurrency, full), ("ray-warm", args.concurrency, full)]
    )
    timed: dict[str, list[Timed]] = {m: [] for m, _, _ in modes}
    probes: list[list[object]] = []
    with FakeOpenAIServer(endpoint(args.delay)) as server:
        for rep in range(args.reps):
            for mode, n, plan in modes:
                got = run(server.url, plan, n, "ray" if mode.startswith("ray") else "pool")
                timed[mode].append(got)
                print(
                    f"rep {rep + 1}/{args.reps}, {mode} x{n}: {got.seconds:.1f} s for {len(got.rows)} runs "
                    f"(load {got.load:.1f})",
                    file=sys.stderr,
                    flush=True,
                )
            if not args.no_ray:
                from agent_core.evaluation import ray_backend

                if args.why and not probes:
                    probes = why(server.url, args.concurrency, full)
                ray_backend._ray().shutdown()  # the next repetition's cold run starts its own instance
    runs_full, runs_small = full.total, small.total
    wall = {m: median([t.seconds for t in ts]) for m, ts in timed.items()}
    pool = wall["pool"]
    per_pool, per_seq = pool / runs_full, wall["seq"] / runs_small

    def line(mode: str, label: str, runs: int, versus: str) -> list[object]:
        ts = timed[mode]
        return [
            label,
            runs,
            f"{wall[mode]:.1f} s",
            spread([t.seconds for t in ts]),
            f"{wall[mode] / runs * 1000:.0f} ms",
            f"{median([t.cpu_s for t in ts]) / runs * 1000:.1f} ms",
            versus,
            spread([t.load for t in ts], unit="", digits=1),
        ]

    lines = [
        line("pool", f"local pool, --concurrency {args.concurrency}", runs_full, "1.00x"),
        line(
            "seq",
            f"local pool, --concurrency 1 (first {args.sequential_tasks} tasks)",
            runs_small,
            f"{per_seq / per_pool:.2f}x a run",
        ),
    ]
    notes = []
    if not args.no_ray:
        lines += [
            line(
                "ray",
                f"Ray, cold (a fresh local instance), {args.concurrency} in flight",
                runs_full,
                f"{wall['ray'] / pool:.2f}x",
            ),
            line(
                "ray-warm",
                f"Ray, warm (that instance again), {args.concurrency} in flight",
                runs_full,
                f"{wall['ray-warm'] / pool:.2f}x",
            ),
        ]
        cold = timed["ray"]
        made = [t.made_s or 0.0 for t in cold]
        first = [t.first_row_s or 0.0 for t in cold]
        after = [(t.seconds - (t.made_s or 0.0) - (t.first_row_s or 0.0)) / (runs_full - 1) for t in cold]
        start_rows = [
            [
                "starting the instance (ray.init, the gate's actor, the plan put in the object store)",
                f"{median(made):.1f} s",
                spread(made),
            ],
            [
                "then to the first row (workers started, the package imported, one run)",
                f"{median(first):.1f} s",
                spread(first),
            ],
            [
                f"the cold run after its first row, per run (the pool: {per_pool * 1000:.0f} ms)",
                f"{median(after) * 1000:.0f} ms",
                spread(after, unit="ms", scale=1000, digits=0),
            ],
        ]
        overhead = [(w.seconds - p.seconds) / runs_full for w, p in zip(timed["ray-warm"], timed["pool"], strict=True)]
        for mode, what in (("ray", "cold, start-up included"), ("ray-warm", "warm, its workers up")):
            ratio = wall[mode] / pool
            same = all(t.rows == timed["pool"][0].rows for t in timed[mode])
            notes.append(
                f"Ray {what}: **{ratio:.2f}x** the pool's wall time (target <= {TARGET_RAY:g}x): "
                f"{'met' if ratio <= TARGET_RAY else 'NOT met'}. Same rows as the pool: "
                f"{'yes' if same else 'NO'}."
            )
        notes.append(
            f"Ray's overhead per run, warm: {median(overhead) * 1000:.0f} ms "
            f"({spread(overhead, unit='ms', scale=1000, digits=0)}; (Ray's wall time - the pool's) / runs, "
            "per repetition)."
        )
    calls = median([t.calls for t in timed["pool"]]) / args.tasks
    print(f"{machine()}\n")
    print(
        f"{args.tasks} question tasks x {len(PATTERNS)} patterns ({', '.join(PATTERNS)}) x {args.repeats} repeats "
        f"({calls:g} calls a task) against tests/fake_openai_server.py at {args.delay * 1000:.0f} ms a call. "
        f"Median of {args.reps} repetition(s), spread = min-max; CPU per run counts this process (driver and "
        "endpoint) and, on Ray, the instance's processes; load = the 1-minute load average as each run started.\n"
    )
    print(table(["run", "runs", "wall time", "spread", "per run", "CPU per run", "vs the pool", "load"], lines))
    speedup = per_seq / per_pool
    print(
        f"\nPool vs one at a time (per run): **{speedup:.1f}x** (target >= {TARGET_POOL:g}x): "
        f"{'met' if speedup >= TARGET_POOL else 'NOT met'}."
    )
    if not args.no_ray:
        print("\nRay's start-up, apart from its per-run cost (cold runs):\n")
        print(table(["part", "median", "spread"], start_rows))
        print("\n" + "\n".join(notes))
    if probes:
        print("\nWhat a Ray run's overhead is made of (warm instance, one measurement each):\n")
        print(table(["part", "cost"], probes))


if __name__ == "__main__":
    main()
