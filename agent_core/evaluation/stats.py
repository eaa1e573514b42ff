"""Honest statistics for an evaluation: intervals for pass rates, paired comparisons, exact McNemar.

Plain Python (math and random only), so the CLI, the page and a notebook get the same numbers.

- `wilson(k, n)`: the Wilson score interval for a proportion (95 % by default). Unlike the normal
  approximation it stays inside [0, 1] and is not zero-width at 0/n or n/n.
- `bootstrap_mean(values)`: a percentile bootstrap of a mean over *tasks* (seeded: the same rows give
  the same interval). With repeats, a task's repeats are not independent draws, so the summary
  resamples tasks, each carrying the mean of its repeats (a cluster bootstrap).
- `mcnemar_exact(b, c)`: the exact two-sided McNemar test: under "no difference" each of the b + c
  discordant pairs goes either way with probability 1/2, so p = P(X <= min(b, c)) doubled, X ~ Bin(b+c, 1/2).
- `paired(...)`: two patterns on the same tasks: the difference of pass rates with a bootstrap interval
  over tasks, the discordant tasks (b better / a better), and McNemar's exact p on them. With one run a
  task that is McNemar's test on discordant pairs; with repeats, a task counts once (it is better for b
  when b passed more of its repeats), since a task's repeats are not independent.
- `transitions(...)`: fix and break counts between two verdicts on the same tasks (wrong→right,
  right→wrong), each with its Wilson interval as a share of the tasks.

Which interval a summary reports is named with it (`WILSON` or `BOOTSTRAP`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054
WILSON = "wilson"
BOOTSTRAP = "bootstrap over tasks"
#: resamples of a bootstrap; 2000 keeps the 2.5 % / 97.5 % percentiles stable to about ±0.01
BOOTSTRAP_RESAMPLES = 2000
DEFAULT_SEED = 0
#: at or above this p, two patterns are "not distinguishable at this n"
ALPHA = 0.05


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials; (0, 1) when n is 0."""
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # exact ends at 0/n and n/n (the formula gives them up to rounding)
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def bootstrap_mean(
    values: Sequence[float], *, seed: int = DEFAULT_SEED, resamples: int = BOOTSTRAP_RESAMPLES, level: float = 0.95
) -> tuple[float, float]:
    """A percentile bootstrap interval of the mean of `values` (one per task); (0, 1) for no values."""
    values = list(values)
    if not values:
        return 0.0, 1.0
    n = len(values)
    rng = random.Random(seed)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    return _percentiles(means, level)


def _percentiles(sorted_values: Sequence[float], level: float) -> tuple[float, float]:
    tail = (1 - level) / 2
    last = len(sorted_values) - 1
    return sorted_values[round(tail * last)], sorted_values[round((1 - tail) * last)]


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value for b and c discordant pairs (1.0 when there are none)."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got {b}, {c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


@dataclass(frozen=True)
class Paired:
    """Pattern `b` against pattern `a` on the tasks both ran (with repeats: the same task and repeat)."""

    a: str
    b: str
    #: tasks both ran
    tasks: int
    #: pairs (task × repeat) both ran
    pairs: int
    #: pass rate of b minus pass rate of a: the mean over tasks of each task's difference over its repeats
    difference: float
    ci_low: float
    ci_high: float
    #: tasks where b did better than a (passed where a failed, or more often over the repeats), and the reverse
    b_only: int
    a_only: int
    p_value: float
    ci_method: str = BOOTSTRAP

    @property
    def distinguishable(self) -> bool:
        """False when McNemar's p is at least ALPHA: this n cannot tell the two apart."""
        return self.p_value < ALPHA


def paired(a: str, b: str, verdicts: Mapping[tuple[str, str, int], bool], *, seed: int = DEFAULT_SEED) -> Paired | None:
    """Compare b with a on (task_id, pattern, repeat) -> passed; None when they share no pair."""
    keys = sorted({(t, r) for (t, p, r) in verdicts if p == a} & {(t, r) for (t, p, r) in verdicts if p == b})
    if not keys:
        return None
    per_task: dict[str, list[float]] = {}
    for t, r in keys:
        per_task.setdefault(t, []).append(float(verdicts[(t, b, r)]) - float(verdicts[(t, a, r)]))
    diffs = [sum(v) / len(v) for v in per_task.values()]
    # discordant *tasks*: a task's repeats are not independent trials, so the test counts tasks where
    # one pattern did better over the repeats (with one repeat each, exactly McNemar's discordant pairs)
    b_only = sum(1 for d in diffs if d > 0)
    a_only = sum(1 for d in diffs if d < 0)
    low, high = bootstrap_mean(diffs, seed=seed)
    return Paired(
        a,
        b,
        len(per_task),
        len(keys),
        sum(diffs) / len(diffs),
        low,
        high,
        b_only,
        a_only,
        mcnemar_exact(b_only, a_only),
    )


@dataclass(frozen=True)
class Transitions:
    """Between two verdicts on the same n tasks: how many were fixed (wrong→right) and broken."""

    n: int
    fixed: int
    broken: int

    @property
    def fixed_ci(self) -> tuple[float, float]:
        return wilson(self.fixed, self.n)

    @property
    def broken_ci(self) -> tuple[float, float]:
        return wilson(self.broken, self.n)

    @property
    def p_value(self) -> float:
        """Exact McNemar on fixes against breaks: does the later verdict differ from the earlier?"""
        return mcnemar_exact(self.fixed, self.broken)


def transitions(before: Sequence[bool], after: Sequence[bool]) -> Transitions:
    """Fix and break counts between two verdicts of the same tasks, in the same order."""
    if len(before) != len(after):
        raise ValueError("before and after must cover the same tasks")
    fixed = sum(1 for x, y in zip(before, after, strict=True) if not x and y)
    broken = sum(1 for x, y in zip(before, after, strict=True) if x and not y)
    return Transitions(len(before), fixed, broken)


def pass_interval(per_task: Mapping[str, Sequence[bool]], *, seed: int = DEFAULT_SEED) -> tuple[float, float, str]:
    """The 95 % interval of a pattern's pass rate, and the method: Wilson when every task ran once
    (independent trials), else a bootstrap over tasks (a task's repeats are correlated)."""
    runs = [v for vs in per_task.values() for v in vs]
    if all(len(vs) == 1 for vs in per_task.values()):
        low, high = wilson(sum(runs), len(runs))
        return low, high, WILSON
    low, high = bootstrap_mean([sum(vs) / len(vs) for vs in per_task.values() if vs], seed=seed)
    return low, high, BOOTSTRAP
