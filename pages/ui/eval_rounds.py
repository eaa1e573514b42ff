"""Eval's "what self-correction changes": pass rate and transitions by round, the run's own stop beside
an oracle stop, and the baseline — drawn from agent_core.evaluation.rounds; words from the catalogue."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from agent_core.evaluation import EvalRow, round_stats, rounds_figure, rounds_to_csv, stop_stats
from agent_core.evaluation.harness import BASELINE_ENTRIES

from .i18n import words


def relabel(fig: go.Figure, lang: str) -> go.Figure:
    """The figure with its pattern ids (trace names, point labels, annotations) in the page's language:
    the core's figures name patterns by the ids their rows carry."""
    labels = words("eval.patterns", lang)

    def say(name: object) -> object:
        if not isinstance(name, str):
            return name
        bare, star = (name[:-1], "*") if name.endswith("*") else (name, "")
        return labels.get(bare, bare) + star if bare in labels else name

    for trace in fig.data:
        trace.name = say(trace.name)
        if getattr(trace, "text", None) is not None and not isinstance(trace.text, str):
            trace.text = [say(item) for item in trace.text]
    for note in fig.layout.annotations or ():
        for pattern, label in labels.items():
            if note.text and note.text.endswith(f": {pattern}"):
                note.text = note.text[: -len(pattern)] + label
    return fig


def show(rows: Sequence[EvalRow], lang: str, key: str) -> None:
    """The rounds section of the Eval page, for the rows of one evaluation."""
    w = words("eval_rounds", lang)
    labels = words("eval.patterns", lang)
    st.subheader(w["title"])
    stats = round_stats(rows)
    if not stats:
        st.caption(w["none"])
        return
    st.caption(w["intro"])
    stops = stop_stats(rows, BASELINE_ENTRIES)
    st.plotly_chart(relabel(rounds_figure(stats, stops, lang), lang), key=f"{key}_rounds_chart")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    w["pattern"]: labels.get(s.pattern, s.pattern),
                    w["round"]: s.round,
                    w["pass"]: f"{s.pass_rate:.0%}",
                    w["drafted"]: s.drafted,
                    w["rw"]: s.right_to_wrong,
                    w["wr"]: s.wrong_to_right,
                    w["rr"]: s.right_to_right,
                    w["ww"]: s.wrong_to_wrong,
                }
                for s in stats
            ]
        ),
        hide_index=True,
        width="stretch",
        key=f"{key}_rounds_table",
    )
    st.markdown(f"**{w['stops']}**")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    w["pattern"]: labels.get(s.pattern, s.pattern) + (w["baseline"] if s.baseline else ""),
                    w["self"]: f"{s.self_rate:.0%}",
                    w["self_calls"]: s.self_calls,
                    w["oracle"]: f"{s.oracle_rate:.0%}",
                    w["oracle_calls"]: s.oracle_calls,
                }
                for s in stops
            ]
        ),
        hide_index=True,
        width="stretch",
        key=f"{key}_stops_table",
    )
    st.caption(w["stops_note"])
    st.download_button(
        w["download"],
        rounds_to_csv(rows),
        file_name="eval-rounds.csv",
        mime="text/csv",
        key=f"{key}_rounds_csv",
        icon=":material/download:",
    )
