"""The evaluation's statistics against values worked out independently of the code under test."""

from __future__ import annotations

import math

import pytest

from agent_core.evaluation import stats

Z = 1.959963984540054


def _wilson_by_bisection(k: int, n: int) -> tuple[float, float]:
    """The Wilson interval as its definition: the p with |p̂ - p| = z·sqrt(p(1-p)/n), found by bisection."""
    phat = k / n

    def f(p: float) -> float:
        return (phat - p) ** 2 - Z * Z * p * (1 - p) / n

    def root(lo: float, hi: float) -> float:
        for _ in range(200):
            mid = (lo + hi) / 2
            if (f(lo) > 0) == (f(mid) > 0):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low = 0.0 if k == 0 else root(0.0, phat)
    high = 1.0 if k == n else root(phat, 1.0)
    return low, high


@pytest.mark.parametrize("n", [1, 5, 10, 40, 164])
def test_wilson_at_zero_and_all(n: int) -> None:
    low, high = stats.wilson(0, n)
    assert low == 0.0 and high == pytest.approx(Z * Z / (n + Z * Z), abs=1e-12)  # the closed form at 0/n
    low, high = stats.wilson(n, n)
    assert high == 1.0 and low == pytest.approx(n / (n + Z * Z), abs=1e-12)


@pytest.mark.parametrize(("k", "n"), [(1, 10), (5, 10), (7, 20), (4, 7), (5, 7), (120, 164)])
def test_wilson_at_k_of_n(k: int, n: int) -> None:
    expected = _wilson_by_bisection(k, n)
    assert stats.wilson(k, n) == pytest.approx(expected, abs=1e-9)


def test_wilson_published_values() -> None:
    # 5/10 and 0/10 as tabulated (Newcombe 1998, Table I style: 0.2366-0.7634, 0-0.2775)
    assert stats.wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert stats.wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)


def test_wilson_refuses_impossible_counts_and_is_vacuous_at_zero_trials() -> None:
    assert stats.wilson(0, 0) == (0.0, 1.0)
    for k, n in ((3, 2), (-1, 4)):
        with pytest.raises(ValueError):
            stats.wilson(k, n)


def _mcnemar_by_hand(b: int, c: int) -> float:
    n = b + c
    probs = [math.comb(n, i) / 2**n for i in range(n + 1)]
    observed = probs[b]
    # the two-sided exact test: every table at most as likely as the observed one (symmetric at 1/2)
    return min(1.0, sum(p for p in probs if p <= observed + 1e-15))


@pytest.mark.parametrize(("b", "c"), [(0, 0), (0, 1), (1, 6), (0, 5), (2, 2), (3, 9), (10, 2), (0, 12)])
def test_mcnemar_exact_on_small_tables(b: int, c: int) -> None:
    expected = 1.0 if b + c == 0 else _mcnemar_by_hand(b, c)
    assert stats.mcnemar_exact(b, c) == pytest.approx(expected, abs=1e-12)


def test_mcnemar_known_values() -> None:
    assert stats.mcnemar_exact(1, 6) == pytest.approx(16 / 128)  # 2 * (1 + 7) / 2^7
    assert stats.mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert stats.mcnemar_exact(0, 6) < stats.ALPHA <= stats.mcnemar_exact(0, 5)


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1] * 3
    first = stats.bootstrap_mean(values, seed=7)
    assert first == stats.bootstrap_mean(values, seed=7)
    assert first[0] < sum(values) / len(values) < first[1]
    assert stats.bootstrap_mean([1.0] * 8) == (1.0, 1.0)  # no spread, no width


def test_paired_counts_discordant_pairs_and_says_when_not_distinguishable() -> None:
    # 7 tasks: b fixes 1 that a fails, a and b agree elsewhere -> 4/7 vs 5/7, p = 1.0
    a = [True, True, True, True, False, False, False]
    b = [True, True, True, True, True, False, False]
    verdicts = {(f"t{i}", "a", 0): x for i, x in enumerate(a)} | {(f"t{i}", "b", 0): y for i, y in enumerate(b)}
    result = stats.paired("a", "b", verdicts)
    assert result is not None
    assert (result.tasks, result.pairs, result.b_only, result.a_only) == (7, 7, 1, 0)
    assert result.difference == pytest.approx(1 / 7)
    assert result.p_value == 1.0 and not result.distinguishable
    assert result.ci_low <= result.difference <= result.ci_high


def test_paired_uses_only_shared_pairs_and_repeats() -> None:
    verdicts = {
        ("t1", "a", 0): False,
        ("t1", "b", 0): True,
        ("t1", "a", 1): False,
        ("t1", "b", 1): True,
        ("t2", "a", 0): True,
    }  # t2 has no b: not a pair
    result = stats.paired("a", "b", verdicts)
    assert result is not None and (result.tasks, result.pairs, result.b_only) == (1, 2, 1)  # one task, counted once
    assert stats.paired("a", "c", verdicts) is None


def test_paired_with_repeats_counts_a_task_once_by_its_mean() -> None:
    # t1: b passes 2 of 3, a 1 of 3 -> b better; t2: a passes 3 of 3, b 0 -> a better; t3: tie
    runs = {
        "t1": ([True, False, False], [True, True, False]),
        "t2": ([True] * 3, [False] * 3),
        "t3": ([True, False, True], [False, True, True]),
    }
    verdicts = {}
    for t, (a, b) in runs.items():
        for r in range(3):
            verdicts[(t, "a", r)], verdicts[(t, "b", r)] = a[r], b[r]
    result = stats.paired("a", "b", verdicts)
    assert result is not None and (result.b_only, result.a_only, result.pairs) == (1, 1, 9)
    assert result.difference == pytest.approx((1 / 3 - 1 + 0) / 3)
    assert result.p_value == 1.0


def test_transitions_with_intervals() -> None:
    t = stats.transitions([False, False, True, True, False], [True, False, False, True, True])
    assert (t.n, t.fixed, t.broken) == (5, 2, 1)
    assert t.fixed_ci == stats.wilson(2, 5) and t.broken_ci == stats.wilson(1, 5)
    assert t.p_value == pytest.approx(1.0)
    with pytest.raises(ValueError):
        stats.transitions([True], [True, False])


def test_pass_interval_names_its_method() -> None:
    once = {"t1": [True], "t2": [False], "t3": [True]}
    assert stats.pass_interval(once) == (*stats.wilson(2, 3), stats.WILSON)
    repeated = {"t1": [True, False], "t2": [False, False], "t3": [True, True]}
    low, high, method = stats.pass_interval(repeated)
    assert method == stats.BOOTSTRAP and 0.0 <= low <= 0.5 <= high <= 1.0
