"""The Eval page's statistics: pass rates with 95 % intervals, a chart with error bars, the paired
comparison in plain words, cost per solved task, an ETA, and downloads of the rows and the summary.

It reads `agent_core.evaluation.rows.ResultRow`s (one per task × pattern × repeat); a code run's
`EvalRow`s are read as repeat 0 (`from_eval_rows`). Every word is in pages/ui/locales/*.toml [eval_stats].
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from agent_core.evaluation import rows as result_rows
from agent_core.evaluation import stats
from agent_core.evaluation.harness import BASELINE_ENTRIES, EvalRow
from pages.ui import costs, text
from pages.ui.i18n import words


def from_eval_rows(found: Sequence[EvalRow]) -> list[result_rows.ResultRow]:
    """A code evaluation's rows as result rows (each task ran once: repeat 0)."""
    return [
        result_rows.ResultRow(
            r.task_id,
            r.pattern,
            0,
            r.passed,
            r.status,
            1.0 if r.passed else 0.0,
            r.llm_calls,
            r.total_tokens,
            r.cost_usd,
            "tests",
            r.summary,
            r.error,
            r.rounds,
            r.round_calls,
            round((r.elapsed_ms + r.judge_ms) / 1000, 3),
            r.code,
        )
        for r in found
    ]


def eta_text(done: int, total: int, elapsed_s: float, lang: str) -> str:
    """About how long the rest takes at the pace so far ("" before the first row)."""
    w = words("eval_stats", lang)
    if done <= 0 or done >= total or elapsed_s <= 0:
        return ""
    left = elapsed_s / done * (total - done)
    if left < 90:
        return w["eta_s"].format(s=max(1, round(left)))
    return w["eta_min"].format(m=round(left / 60))


def sentence(p: stats.Paired, label: dict[str, str], lang: str) -> str:
    """The paired comparison in plain words."""
    w = words("eval_stats", lang)
    b, a = label.get(p.b, p.b), label.get(p.a, p.a)
    values = {
        "b": b,
        "a": a,
        "d": f"{100 * abs(p.difference):.0f}",
        "low": f"{100 * p.ci_low:+.0f}",
        "high": f"{100 * p.ci_high:+.0f}",
        "better": p.b_only,
        "worse": p.a_only,
        "n": p.tasks,
        "p": f"{p.p_value:.2g}",
    }
    if not p.distinguishable:
        return w["same"].format(**values)
    return w["higher" if p.difference > 0 else "lower"].format(**values)


def figure(summaries: Sequence[result_rows.PatternSummary], label: dict[str, str], lang: str):
    """Pass rate per pattern with its 95 % interval as error bars."""
    import plotly.graph_objects as go

    w = words("eval_stats", lang)
    # plotly draws some HTML in tick labels, and an entry's label is a participant's text
    names = [html.escape(label.get(s.pattern, s.pattern)) for s in summaries]
    rates = [100 * s.pass_rate for s in summaries]
    fig = go.Figure(
        go.Bar(
            x=names,
            y=rates,
            marker_color="#4C78A8",
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [100 * s.ci_high - r for s, r in zip(summaries, rates, strict=True)],
                "arrayminus": [r - 100 * s.ci_low for s, r in zip(summaries, rates, strict=True)],
            },
            customdata=[[s.passed, s.n, 100 * s.ci_low, 100 * s.ci_high] for s in summaries],
            hovertemplate="%{x}: %{y:.0f}% (%{customdata[0]}/%{customdata[1]}), 95% CI %{customdata[2]:.0f}–"
            "%{customdata[3]:.0f}%<extra></extra>",
        )
    )
    fig.update_layout(
        yaxis={"title": w["rate_axis"], "range": [0, 105]},
        height=340,
        showlegend=False,
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
    )
    return fig


def show(found: Sequence[result_rows.ResultRow], lang: str, key: str, label: dict[str, str]) -> None:
    """The statistics section for the rows so far."""
    if not found:
        return
    w = words("eval_stats", lang)
    summaries = result_rows.summarize_rows(found)
    baseline = next((p for p in BASELINE_ENTRIES if any(s.pattern == p for s in summaries)), None)
    pairs = result_rows.comparisons(found, baseline)
    st.subheader(w["title"])
    methods = {s.ci_method for s in summaries}
    st.caption(w["method_bootstrap"] if stats.BOOTSTRAP in methods else w["method_wilson"])
    st.dataframe(
        pd.DataFrame(
            [
                {
                    w["pattern"]: label.get(s.pattern, s.pattern),
                    w["n"]: s.n,
                    w["passed"]: s.passed,
                    w["rate"]: f"{s.pass_rate:.0%}",
                    w["ci"]: f"{s.ci_low:.0%} – {s.ci_high:.0%}",
                    w["per_solved"]: costs.money(s.cost_per_solved, lang)
                    if s.cost_per_solved is not None
                    else w["none_solved"],
                }
                for s in summaries
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    st.plotly_chart(figure(summaries, label, lang), key=f"{key}_stats_chart")
    if pairs:
        st.markdown(f"**{w['paired']}**")
        for p in pairs:
            st.markdown(f"- {text.escape(sentence(p, label, lang))}")
    left, right = st.columns(2)
    left.download_button(
        w["rows_csv"],
        result_rows.rows_to_csv(found),
        file_name="eval-rows.csv",
        mime="text/csv",
        key=f"{key}_rows_csv",
        icon=":material/download:",
    )
    right.download_button(
        w["summary_csv"],
        result_rows.summary_to_csv(summaries, pairs),
        file_name="eval-summary.csv",
        mime="text/csv",
        key=f"{key}_summary_csv",
        icon=":material/download:",
    )
