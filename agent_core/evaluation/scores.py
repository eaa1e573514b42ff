"""Pass rate against cost per pattern, the per-task CSV, and published results to read ours against.

Plain Python except `scores_figure`, which imports plotly only when called.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..metrics import empty_figure
from .harness import ENTRIES, REFERENCE, SEES_TESTS, EvalRow

if TYPE_CHECKING:
    import plotly.graph_objects as go


@dataclass(frozen=True)
class PatternScore:
    """One pattern over the tasks it ran: pass rate, and mean cost per task."""

    pattern: str
    tasks: int
    passed: int
    #: from 0 to 1
    pass_rate: float
    calls_per_task: float
    tokens_per_task: float
    prompt_tokens_per_task: float
    completion_tokens_per_task: float
    seconds_per_task: float
    tokens_estimated: bool
    #: True when the pattern's refiner saw the tests that judge it (see TEST_FEEDBACK_NOTE)
    sees_tests: bool


def summarize(rows: Iterable[EvalRow]) -> list[PatternScore]:
    """One score per pattern, in the order the patterns first appear; works on a partial evaluation."""
    groups: dict[str, list[EvalRow]] = {}
    for row in rows:
        groups.setdefault(row.pattern, []).append(row)
    out = []
    for pattern, group in groups.items():
        n = len(group)

        def mean(values: Iterable[float], n: int = n) -> float:
            return round(sum(values) / n, 2)

        passed = sum(r.passed for r in group)
        out.append(
            PatternScore(
                pattern,
                n,
                passed,
                round(passed / n, 4),
                mean(r.llm_calls for r in group),
                mean(r.total_tokens for r in group),
                mean(r.prompt_tokens for r in group),
                mean(r.completion_tokens for r in group),
                mean(r.elapsed_ms / 1000 for r in group),
                any(r.tokens_estimated for r in group),
                pattern in SEES_TESTS,
            )
        )
    return out


#: The CSV's columns: every EvalRow field, with total_tokens beside the two counts it adds up.
CSV_COLUMNS = (
    "task_id",
    "pattern",
    "passed",
    "status",
    "summary",
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "tokens_estimated",
    "elapsed_ms",
    "judge_ms",
    "end_reason",
    "tests_run",
    "tests_failed",
    "error",
    "code",
    "cost_usd",
    "rounds",
    "round_calls",
)


def _cell(value: object) -> object:
    # rounds and round_calls are tuples: one space-separated cell ("False True", "1 3"); the rounds CSV
    # (evaluation/rounds.py) has them one line each
    if isinstance(value, tuple):
        return " ".join(str(v) for v in value)
    return "" if value is None else value


def rows_to_csv(rows: Iterable[EvalRow]) -> str:
    """The per-task results as CSV, one row per pattern and task (with the judged code)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([_cell(getattr(row, name)) for name in CSV_COLUMNS])
    return buffer.getvalue()


# --- published results ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReferencePoint:
    """A published result to show beside ours, with its source."""

    method: str
    benchmark: str
    #: pass rate (0-1) of the method, when the paper gives one number
    score: float | None
    baseline: str
    baseline_score: float | None
    claim: dict[str, str]
    source: str
    url: str


REFERENCE_POINTS = (
    ReferencePoint(
        "Reflexion (GPT-4)",
        "HumanEval (Python), pass@1",
        0.91,
        "GPT-4 alone",
        0.80,
        {
            "en": "Reflection driven by test feedback: the agent writes its own unit tests, runs its code, and "
            "reflects on the failures before trying again.",
            "zh": "由测试反馈驱动的反思：智能体自己编写单元测试、运行代码，根据失败信息反思后再尝试。",
        },
        "Shinn et al. 2023, \u201cReflexion: Language Agents with Verbal Reinforcement Learning\u201d (NeurIPS 2023)",
        "https://arxiv.org/abs/2303.11366",
    ),
    ReferencePoint(
        "Self-Refine",
        "7 tasks, GPT-3.5 / GPT-4",
        None,
        "one-shot generation by the same model",
        None,
        {
            "en": "About +20% absolute on average over one-shot generation, with the model critiquing and "
            "refining its own output.",
            "zh": "由同一个模型评审并修改自己的输出，相比一次生成平均绝对提升约 20%。",
        },
        "Madaan et al. 2023, \u201cSelf-Refine: Iterative Refinement with Self-Feedback\u201d (NeurIPS 2023)",
        "https://arxiv.org/abs/2303.17651",
    ),
    ReferencePoint(
        "Intrinsic self-correction",
        "reasoning benchmarks (GSM8K, CommonSenseQA, HotpotQA)",
        None,
        "the first answer",
        None,
        {
            "en": "Counterpoint: without external feedback (tests, tools, ground truth), asking a model to "
            "review its own answer may not help, and can turn right answers into wrong ones.",
            "zh": "反方观点：没有外部反馈（测试、工具、标准答案）时，让模型自我审查未必有帮助，"
            "甚至可能把正确答案改错。",
        },
        "Huang et al. 2024, \u201cLarge Language Models Cannot Self-Correct Reasoning Yet\u201d (ICLR 2024)",
        "https://arxiv.org/abs/2310.01798",
    ),
)


# --- figure -----------------------------------------------------------------------------------------

_TEXT = {
    "en": {
        "x": "LLM calls per task",
        "y": "pass rate (%)",
        "tokens": "tokens per task",
        "tasks": "tasks",
        "empty": "no results yet",
        "tests": "* the refiner saw the tasks' tests",
    },
    "zh": {
        "x": "每个任务的 LLM 调用次数",
        "y": "通过率（%）",
        "tokens": "每个任务的 token 数",
        "tasks": "任务数",
        "empty": "暂无结果",
        "tests": "* 修订者看到了任务的测试",
    },
}
#: one colour per eval entry, from the patterns' specs
_COLORS = {REFERENCE: "#9D755D", **{i: e.color or spec.color for i, (spec, e) in ENTRIES.items()}}


#: where the labels of points that sit together go, in turn: the first above, the next below, then
#: beside them (a label is about a tenth of the chart wide and a twentieth high)
_PLACES = (
    "top center",
    "bottom center",
    "middle right",
    "middle left",
    "top right",
    "bottom left",
    "top left",
    "bottom right",
)
_NEAR_X, _NEAR_Y = 0.1, 0.06


def label_places(points: Iterable[tuple[float, float]], x_span: float, y_span: float) -> list[str]:
    """A text position per point such that labels of points closer than a label's size take turns
    around them (two patterns at the same pass rate and cost printed one name over the other)."""
    placed: list[tuple[float, float, int]] = []  # (x, y, the place its label took)
    for x, y in points:
        taken = {turn for px, py, turn in placed if abs(px - x) < _NEAR_X * x_span and abs(py - y) < _NEAR_Y * y_span}
        turn = next((i for i in range(len(_PLACES)) if i not in taken), len(placed) % len(_PLACES))
        placed.append((x, y, turn))
    return [_PLACES[turn] for _, _, turn in placed]


def scores_figure(scores: Iterable[PatternScore], lang: str = "en") -> go.Figure:
    """Pass rate against LLM calls per task, one labelled point per pattern."""
    import plotly.graph_objects as go

    text = _TEXT.get(lang, _TEXT["en"])
    scores = list(scores)
    if not scores:
        return empty_figure(text["empty"], height=240)
    fig = go.Figure()
    most = max(s.calls_per_task for s in scores)
    places = label_places([(s.calls_per_task, s.pass_rate * 100) for s in scores], x_span=most * 1.15 + 1, y_span=117)
    for s, place in zip(scores, places, strict=True):
        name = f"{s.pattern}*" if s.sees_tests else s.pattern
        fig.add_trace(
            go.Scatter(
                x=[s.calls_per_task],
                y=[round(s.pass_rate * 100, 1)],
                mode="markers+text",
                name=name,
                text=[name],
                textposition=place,
                marker={"size": 14, "color": _COLORS.get(s.pattern, "#72B7B2")},
                customdata=[[s.passed, s.tasks, s.tokens_per_task]],
                hovertemplate=(
                    f"{name}<br>%{{y:.1f}}% (%{{customdata[0]}}/%{{customdata[1]}} {text['tasks']})<br>"
                    f"%{{x:.2f}} {text['x']}<br>%{{customdata[2]:,.0f}} {text['tokens']}<extra></extra>"
                ),
            )
        )
    fig.update_layout(
        xaxis={"title": text["x"], "range": [-0.5, most * 1.15 + 0.5], "zeroline": False},
        yaxis={"title": text["y"], "range": [-5, 112]},
        showlegend=False,
        height=380,
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
    )
    if any(s.sees_tests for s in scores):
        fig.add_annotation(
            text=text["tests"],
            showarrow=False,
            xref="paper",
            yref="paper",
            x=0,
            y=-0.22,
            xanchor="left",
            font={"size": 11},
        )
        fig.update_layout(margin={"l": 10, "r": 10, "t": 30, "b": 70})
    return fig
