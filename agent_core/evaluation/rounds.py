"""What self-correction changes: every draft of a multi-draft run scored, round by round.

For entries whose spec says `rounds=True` (Reflection and its variants), the harness judges every
draft in the sandbox, not only the final answer, and keeps the verdicts on the row (`EvalRow.rounds`,
draft 0 first) with the calls spent up to each draft (`EvalRow.round_calls`). From those:

- per round k: the pass rate, and the transitions from round k-1 — right→wrong, wrong→right,
  right→right, wrong→wrong. A run that stopped before round k keeps its last draft (it is carried
  forward, as the answer the run gave), so every round counts every task;
- the run's own stop (the critic decides: the final answer) beside an **oracle stop** (stop at the
  first passing draft, which needs the answer key: Huang et al. 2024 show it inflates the gains);
- the baseline (the registry's baseline pattern's Eval entries: one call, and the same baseline at
  about the multi-draft patterns' budget, majority vote) beside them, with the calls each spent.

`changed_from_previous` in the rounds CSV is True when a round's verdict differs from the round
before it (a wrong→right or right→wrong transition); it is empty for round 0.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import plotly.graph_objects as go

ROUNDS_CSV_COLUMNS = ("task_id", "pattern", "round", "passed", "changed_from_previous")
TRANSITIONS = ("right→wrong", "wrong→right", "right→right", "wrong→wrong")


class Drafted(Protocol):
    """What these statistics read of a row: a page's EvalRow, or the CLI's ResultRow (one repeat)."""

    @property
    def task_id(self) -> str: ...
    @property
    def pattern(self) -> str: ...
    @property
    def passed(self) -> bool: ...
    @property
    def llm_calls(self) -> int: ...
    @property
    def rounds(self) -> tuple[bool, ...]: ...
    @property
    def round_calls(self) -> tuple[int, ...]: ...


@dataclass(frozen=True)
class RoundStat:
    """One round of one pattern over the tasks: pass rate and the transitions into it."""

    pattern: str
    round: int
    tasks: int
    passed: int
    #: tasks that had a real draft this round (the rest carry their last draft forward)
    drafted: int
    right_to_wrong: int = 0
    wrong_to_right: int = 0
    right_to_right: int = 0
    wrong_to_wrong: int = 0

    @property
    def pass_rate(self) -> float:
        return self.passed / self.tasks if self.tasks else 0.0


@dataclass(frozen=True)
class StopStat:
    """A pattern's pass rate and mean calls when the run stops itself, and at an oracle stop."""

    pattern: str
    tasks: int
    self_passed: int
    self_calls: float
    oracle_passed: int
    oracle_calls: float
    baseline: bool = False

    @property
    def self_rate(self) -> float:
        return self.self_passed / self.tasks if self.tasks else 0.0

    @property
    def oracle_rate(self) -> float:
        return self.oracle_passed / self.tasks if self.tasks else 0.0


def round_rows(rows: Iterable[Drafted]) -> list[tuple[str, str, int, bool, bool | None]]:
    """(task_id, pattern, round, passed, changed_from_previous) for every real draft of every run."""
    out: list[tuple[str, str, int, bool, bool | None]] = []
    for row in rows:
        for k, passed in enumerate(row.rounds):
            out.append((row.task_id, row.pattern, k, passed, None if k == 0 else passed != row.rounds[k - 1]))
    return out


def rounds_to_csv(rows: Iterable[Drafted]) -> str:
    """The rounds CSV: one line per task × pattern × round."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(ROUNDS_CSV_COLUMNS)
    for task_id, pattern, k, passed, changed in round_rows(rows):
        writer.writerow([task_id, pattern, k, passed, "" if changed is None else changed])
    return buffer.getvalue()


def round_stats(rows: Iterable[Drafted]) -> list[RoundStat]:
    """Per pattern with drafts, per round: pass rate and transitions (last drafts carried forward)."""
    by_pattern: dict[str, list[Drafted]] = {}
    for row in rows:
        if row.rounds:
            by_pattern.setdefault(row.pattern, []).append(row)
    out: list[RoundStat] = []
    for pattern, group in by_pattern.items():
        depth = max(len(r.rounds) for r in group)
        for k in range(depth):
            now = [_at(r.rounds, k) for r in group]
            counts = dict.fromkeys(TRANSITIONS, 0)
            if k:
                for before, after in zip((_at(r.rounds, k - 1) for r in group), now, strict=True):
                    counts[f"{'right' if before else 'wrong'}→{'right' if after else 'wrong'}"] += 1
            out.append(
                RoundStat(
                    pattern,
                    k,
                    len(group),
                    sum(now),
                    sum(1 for r in group if k < len(r.rounds)),
                    counts["right→wrong"],
                    counts["wrong→right"],
                    counts["right→right"],
                    counts["wrong→wrong"],
                )
            )
    return out


def stop_stats(rows: Iterable[Drafted], baseline: str | Collection[str] | None = None) -> list[StopStat]:
    """Self stop beside oracle stop for every pattern with drafts, and the baseline's rows (one entry
    id, or several: the single call and the same baseline at a larger budget)."""
    baselines = {baseline} if isinstance(baseline, str) else set(baseline or ())
    by_pattern: dict[str, list[Drafted]] = {}
    for row in rows:
        if row.rounds or row.pattern in baselines:
            by_pattern.setdefault(row.pattern, []).append(row)
    out: list[StopStat] = []
    for pattern, group in by_pattern.items():
        n = len(group)
        self_calls = sum(r.llm_calls for r in group) / n
        oracle_passed, oracle_calls = 0, 0
        for r in group:
            first = next((k for k, ok in enumerate(r.rounds) if ok), None)
            if first is not None:
                oracle_passed += 1
                oracle_calls += r.round_calls[first] if first < len(r.round_calls) else r.llm_calls
            else:
                oracle_calls += r.llm_calls
        if not group[0].rounds:  # the baseline has one answer: its oracle stop is its own
            oracle_passed, oracle_calls = sum(r.passed for r in group), sum(r.llm_calls for r in group)
        out.append(
            StopStat(
                pattern,
                n,
                sum(r.passed for r in group),
                round(self_calls, 2),
                oracle_passed,
                round(oracle_calls / n, 2),
                pattern in baselines,
            )
        )
    return out


def _at(rounds: Sequence[bool], k: int) -> bool:
    return rounds[min(k, len(rounds) - 1)]


_LABELS = {
    "en": {"x": "round (draft)", "y": "pass rate (%)", "title": "Pass rate by round", "baseline": "baseline"},
    "zh": {"x": "轮次（草稿）", "y": "通过率（%）", "title": "各轮通过率", "baseline": "基线"},
}


#: where the baselines' labels go, highest line first
_BASELINE_PLACES = ("top right", "bottom right", "top left", "bottom left")


def rounds_figure(stats: Sequence[RoundStat], stops: Sequence[StopStat] = (), lang: str = "en") -> go.Figure:
    """Pass rate by round, one line per pattern, with the baseline as a dashed level."""
    import plotly.graph_objects as go

    t = _LABELS["zh" if lang == "zh" else "en"]
    fig = go.Figure()
    for pattern in dict.fromkeys(s.pattern for s in stats):
        mine = [s for s in stats if s.pattern == pattern]
        fig.add_trace(
            go.Scatter(
                x=[s.round for s in mine],
                y=[round(100 * s.pass_rate, 1) for s in mine],
                mode="lines+markers",
                name=pattern,
            )
        )
    # the baselines' labels avoid each other: the highest line is labelled above itself, the next below
    # itself (so two labels never share a line's side), the third and fourth the same on the left
    levels = sorted((s for s in stops if s.baseline), key=lambda s: -s.self_rate)
    for i, stop in enumerate(levels):
        fig.add_hline(
            y=round(100 * stop.self_rate, 1),
            line_dash="dash",
            annotation_text=f"{t['baseline']}: {stop.pattern}",
            annotation_position=_BASELINE_PLACES[i % len(_BASELINE_PLACES)],
        )
    fig.update_layout(
        title=t["title"],
        xaxis_title=t["x"],
        yaxis_title=t["y"],
        yaxis_range=[0, 105],
        xaxis={"dtick": 1},
        margin={"t": 50, "b": 40, "l": 50, "r": 20},
        height=340,
    )
    return fig
