"""`python -m agent_core eval`: its task-set, scorer, repeat, statistics and backend flags, and the run.

    python -m agent_core eval --tasks questions.csv --scorer numeric --pattern direct --pattern reflection \\
        --repeats 3 --out rows.csv --summary-out summary.csv

Rows stream into `--out` as they finish (one per task × pattern × repeat); rerunning with the same
file runs only the missing ones. The summary (printed, and `--summary-out`) gives per pattern n, the
pass rate with its 95 % interval (Wilson, or a bootstrap over tasks with repeats: the line says
which), cost per solved task, and every pattern against the baseline on the same tasks with an
exact McNemar p ("not distinguishable at this n" when p >= 0.05).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any, TextIO

from .. import sandbox
from ..errors import ConfigError
from ..flags import option_overrides
from . import backend_choice, backends, harness, rounds, rows, samples, stats
from .harness import SEES_TESTS, TEST_FEEDBACK_NOTE
from .scorers import JUDGE_PROMPTS, SCORERS
from .tasks import BUNDLED_PATH
from .tasksets import TaskSet, load_task_set


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The eval flags this module reads (cli.py adds the rest)."""
    parser.add_argument(
        "--scorer",
        choices=SCORERS,
        help="score every question of the set this way (default: the "
        "task's own, else the format's: numeric for GSM8K, exact)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        metavar="K",
        help=f"run every task x pattern K times (1-{backends.MAX_REPEATS}; seeded where the endpoint "
        "honours OpenAI's seed)",
    )
    parser.add_argument(
        "--summary-out",
        metavar="CSV",
        help="write per pattern n, pass_rate, ci_low, ci_high, cost per solved task, and the paired comparisons here",
    )
    parser.add_argument(
        "--judge-prompt",
        metavar="FILE",
        help="the judge scorer's system prompt (a text file); the default asks for VERDICT: CORRECT or INCORRECT",
    )
    parser.add_argument(
        "--backend",
        choices=backend_choice.BACKENDS,
        default="local",
        help="local: a pool of threads (default); ray: every run a Ray task (pip install -r requirements-ray.txt)",
    )
    parser.add_argument(
        "--ray-address", metavar="ADDR", help="join this Ray cluster (default: RAY_ADDRESS, else a local instance)"
    )


def load(name: str) -> TaskSet:
    """--tasks: 'bundled', a bundled sample by name (samples.SAMPLES), or a file."""
    if name == "bundled":
        return load_task_set(BUNDLED_PATH)
    if name in samples.SAMPLES:
        return samples.load_sample(name)
    return load_task_set(name)


def run(args: argparse.Namespace, out: TextIO, models_of: Callable[[argparse.Namespace], tuple[Any, list[str]]]) -> int:
    task_set = load(args.tasks).with_scorer(args.scorer)
    if task_set.is_code:
        sandbox.check_available()  # refused before any model call: SandboxUnavailable says why and how to fix it
    patterns = args.patterns or list(
        harness.EVAL_PATTERNS if task_set.is_code else (p for p in harness.EVAL_PATTERNS if p not in SEES_TESTS)
    )
    overrides = option_overrides(args)
    judge_prompts = None
    if args.judge_prompt:
        try:
            text = Path(args.judge_prompt).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--judge-prompt: cannot read {args.judge_prompt}: {exc.strerror or exc}") from None
        judge_prompts = {lang: {**words, "system": text} for lang, words in JUDGE_PROMPTS.items()}
    plan = backends.plan(
        task_set,
        patterns,
        repeats=args.repeats,
        limit=args.limit,
        lang=args.lang,
        config_overrides=overrides,
        judge_prompts=judge_prompts,
    )
    if args.out:
        rows.upgrade_file(args.out)
    earlier = rows.read_rows(args.out) if args.out else []
    wanted = {(t.task_id, p, r) for t in plan.task_set.tasks for p in plan.patterns for r in range(plan.repeats)}
    earlier = [r for r in earlier if r.key in wanted]
    done = {r.key for r in earlier}
    for path in (args.rounds_out, args.summary_out):
        _writable(path)
    models, _secrets = models_of(args)
    runs = backend_choice.start(
        plan, models, backend=args.backend, done=done, concurrency=args.concurrency, address=args.ray_address
    )
    n_tasks = len(plan.task_set.tasks)
    repeats = f" x {plan.repeats} repeats" if plan.repeats > 1 else ""
    print(
        f"eval: {n_tasks} task(s) x {len(plan.patterns)} pattern(s){repeats} on {models.default.name}, "
        f"{runs.concurrency} at a time{' on Ray' if args.backend == 'ray' else ''}",
        file=out,
        flush=True,
    )
    if earlier:
        print(
            f"resuming {args.out}: {len(earlier)} of {plan.total} rows are there, {len(runs.jobs)} to run",
            file=out,
            flush=True,
        )
    fresh = _stream(runs, args.out, bool(earlier), plan, out)
    by_key = {r.key: r for r in [*earlier, *fresh]}
    order = [(t.task_id, p, r) for t in plan.task_set.tasks for p in plan.patterns for r in range(plan.repeats)]
    results = [by_key[k] for k in order if k in by_key]
    gate = getattr(runs, "gate", None)
    if gate is not None and gate.refusals:
        print(
            f"the endpoint rate-limited {gate.refusals} call(s); the pool waited {gate.waited_s:.1f} s in all", file=out
        )
    summaries = rows.summarize_rows(results)
    baseline = next((p for p in harness.BASELINE_ENTRIES if p in plan.patterns), None)
    pairs = rows.comparisons(results, baseline)
    print_summary(summaries, pairs, out)
    print_rounds(results, out)
    if args.out:
        print(f"wrote {args.out} ({len(results)} rows)", file=out)
    if args.rounds_out:
        Path(args.rounds_out).write_text(rows.rounds_csv(results), encoding="utf-8")
        print(f"wrote {args.rounds_out} ({len(rows.round_lines(results))} rows)", file=out)
    if args.summary_out:
        Path(args.summary_out).write_text(rows.summary_to_csv(summaries, pairs), encoding="utf-8")
        print(f"wrote {args.summary_out} ({len(summaries)} patterns, {len(pairs)} comparisons)", file=out)
    failed = [r for r in results if r.error]
    if failed:
        print(f"error: {len(failed)} of {len(results)} runs failed; the first: {failed[0].error}", file=sys.stderr)
        return 1
    return 0


def _writable(path: str | None) -> None:
    if path:
        try:
            with open(path, "a", encoding="utf-8"):
                pass  # refused now rather than after a long evaluation
        except OSError as exc:
            raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


def _stream(runs: Any, path: str | None, append: bool, plan: backends.Plan, out: TextIO) -> list[rows.ResultRow]:
    """Iterate the backend, printing each row and appending it to `path` as it comes."""
    try:
        sink = open(path, "a" if append else "w", encoding="utf-8", newline="") if path else None  # noqa: SIM115
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
    fresh: list[rows.ResultRow] = []
    total = len(runs.jobs)
    width = max((len(t.task_id) for t in plan.task_set.tasks), default=8)
    try:
        if sink is not None and not append:
            sink.write(rows.header_line())
        with closing(runs):
            for item in runs:
                if not isinstance(item, rows.ResultRow):
                    continue
                fresh.append(item)
                if sink is not None:
                    sink.write(rows.row_line(item))
                    sink.flush()  # a stopped or killed evaluation keeps every finished row
                calls = f"{item.calls} call{'' if item.calls == 1 else 's'}"
                detail = item.detail if len(item.detail) <= 100 else item.detail[:99] + "…"
                task = item.task_id if plan.repeats == 1 else f"{item.task_id}#{item.repeat}"
                print(
                    f"[{len(fresh):>{len(str(total))}}/{total}] {task:<{width}}  {item.pattern:<16} "
                    f"{'PASS' if item.passed else 'FAIL'}  {calls:>8}  {detail}",
                    file=out,
                    flush=True,
                )
    except KeyboardInterrupt:
        runs.stop()
        seen = {r.key for r in fresh}
        late = [r for r in runs.finished_rows() if r.key not in seen]  # finished ahead of a run still going
        if sink is not None:
            sink.writelines(rows.row_line(r) for r in late)
        fresh.extend(late)
        print(f"stopped by the user after {len(fresh)} of {total} runs", file=out)
    finally:
        if sink is not None:
            sink.close()
    return fresh


def print_summary(summaries: list[rows.PatternSummary], pairs: list[stats.Paired], out: TextIO) -> None:
    """The pass rates (as before: pattern, rate, passed/n, calls, tokens), with the interval and cost per solved."""
    print(
        f"\n{'pattern':<17}  {'pass rate':>9}  {'passed':>7}  {'calls/task':>10}  {'tokens/task':>11}  "
        f"{'95% CI':>15}  {'$/solved':>9}",
        file=out,
    )
    for s in summaries:
        name = s.pattern + ("*" if s.pattern in SEES_TESTS else "")
        cost = "" if s.cost_per_solved is None else f"{s.cost_per_solved:.4f}"
        print(
            f"{name:<17}  {s.pass_rate:>9.1%}  {f'{s.passed}/{s.n}':>7}  {s.calls_per_run:>10.2f}  "
            f"{s.tokens_per_run:>11.0f}  {f'{100 * s.ci_low:.0f}-{100 * s.ci_high:.0f}%':>15}  {cost:>9}",
            file=out,
        )
    methods = sorted({s.ci_method for s in summaries})
    if methods:
        print(
            f"95% CI: {', '.join(methods)}" + (" (seeded, 2000 resamples)" if stats.BOOTSTRAP in methods else ""),
            file=out,
        )
    if any(s.pattern in SEES_TESTS for s in summaries):
        print(f"* {TEST_FEEDBACK_NOTE['en']}", file=out)
    if pairs:
        print("\npaired on the same tasks (difference of pass rates, bootstrap 95% CI; exact McNemar):", file=out)
    for p in pairs:
        verdict = (
            f"{p.b} {'better' if p.difference > 0 else 'worse'} than {p.a}"
            if p.distinguishable
            else "not distinguishable at this n"
        )
        print(
            f"  paired: {p.b} vs {p.a}: {100 * p.difference:+.1f} points [{100 * p.ci_low:+.0f}, {100 * p.ci_high:+.0f}], "
            f"{p.b_only} task(s) better, {p.a_only} worse, p = {p.p_value:.3g}: {verdict}",
            file=out,
        )


def print_rounds(results: list[rows.ResultRow], out: TextIO) -> None:
    """Per round of every pattern that drafts (and of the baseline's one call): pass rate, transitions
    with the fix/break intervals; then self vs oracle stop."""
    drafted = [r for r in results if r.rounds]
    if not any(len(r.rounds) > 1 for r in drafted):
        return
    round_stats = rounds.round_stats(drafted)
    print("\nby round (a run that stopped keeps its last draft; W→R fixes, R→W breaks, 95% Wilson):", file=out)
    print(
        f"{'round':>5}  {'pattern':<18} {'pass':>7}  {'R→W':>4} {'W→R':>4} {'R→R':>4} {'W→W':>4}  "
        f"{'fixed CI':>9} {'broken CI':>9}",
        file=out,
    )
    for s in round_stats:
        fixed = stats.wilson(s.wrong_to_right, s.tasks)
        broken = stats.wilson(s.right_to_wrong, s.tasks)
        cis = (
            f"{100 * fixed[0]:.0f}-{100 * fixed[1]:.0f}%  {100 * broken[0]:.0f}-{100 * broken[1]:.0f}%"
            if s.round
            else ""
        )
        print(
            f"{s.round:>5}  {s.pattern:<18} {100 * s.pass_rate:>6.1f}%  {s.right_to_wrong:>4} {s.wrong_to_right:>4} "
            f"{s.right_to_right:>4} {s.wrong_to_wrong:>4}  {cis}",
            file=out,
        )
    print(f"\n{'':>5}  {'pattern':<18} {'self stop':>10} {'calls':>6}  {'oracle stop*':>12} {'calls':>6}", file=out)
    for stop in rounds.stop_stats(drafted, harness.BASELINE_ENTRIES):
        name = stop.pattern + (" (baseline)" if stop.baseline else "")
        print(
            f"{'stop':>5}  {name:<18} {100 * stop.self_rate:>9.1f}% {stop.self_calls:>6.2f}  "
            f"{100 * stop.oracle_rate:>11.1f}% {stop.oracle_calls:>6.2f}",
            file=out,
        )
    print(
        "* oracle stop: stop at the first passing draft — it needs the answer key, so no real run can do it "
        "(Huang et al. 2024)",
        file=out,
    )
