"""After a run: downloads (trace JSON, OTLP/JSON spans, Markdown report) and its costs — calls, tokens
and latency by role, a timeline of every LLM and tool call, tokens per step."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from agent_core import events as ev
from agent_core import metrics, otel
from agent_core.report import markdown_report

from . import telemetry, text
from .i18n import lang as page_lang
from .i18n import role_labels, t, words
from .runs import RunRecord


def trace_json(record: RunRecord, secrets: Iterable[str] = ()) -> str:
    """The run as a versioned trace (agent_core.trace), with any of `secrets` redacted."""
    return record.trace().dumps(secrets=list(secrets))


def report_markdown(record: RunRecord, secrets: Iterable[str] = ()) -> str:
    """The run as a Markdown handout (agent_core.report), with any of `secrets` redacted."""
    return markdown_report(record.config, record.typed_events(), record.models, secrets=list(secrets))


def otlp_json(record: RunRecord, secrets: Iterable[str] = ()) -> str:
    """The run as OpenTelemetry spans (OTLP/JSON, agent_core.otel), timed from its wall-clock start."""
    start = int(record.started * 1e9) if record.started else None
    return otel.dumps(record.trace(), secrets=list(secrets), start_ns=start)


def file_stem(record: RunRecord) -> str:
    subject = record.config.get("scenario") or "task"
    return f"{record.config.get('pattern', 'run')}-{subject}-{record.run_id}"


def downloads(record: RunRecord, *, key: str, secrets: Iterable[str] = ()) -> None:
    """Download buttons for the trace and the report; the files are built only when clicked."""
    keys = list(secrets)
    row = st.container(horizontal=True, gap="small", key=f"{key}-downloads")
    row.download_button(
        t("summary.trace"),
        lambda: trace_json(record, keys),
        file_name=f"trace-{file_stem(record)}.json",
        mime="application/json",
        key=f"{key}-trace",
        icon=":material/data_object:",
        on_click="ignore",
    )
    row.download_button(
        t("summary.report"),
        lambda: report_markdown(record, keys),
        file_name=f"report-{file_stem(record)}.md",
        mime="text/markdown",
        key=f"{key}-report",
        icon=":material/article:",
        on_click="ignore",
    )
    row.download_button(
        t("summary.otlp"),
        lambda: otlp_json(record, keys),
        file_name=f"otlp-{file_stem(record)}.json",
        mime="application/json",
        key=f"{key}-otlp",
        icon=":material/conversion_path:",
        on_click="ignore",
        help=t("summary.otlp_help"),
    )
    telemetry.note(page_lang())  # live export: said once if the extra is missing or the collector failed


def timeline(events: Iterable[ev.Event], lang: str | None = None) -> go.Figure:
    """The core's timeline of calls, its roles named in `lang` (tools keep their own names)."""
    lang = lang or page_lang()
    fig = metrics.timeline_figure(events, lang)
    roles = role_labels(lang)
    for trace in fig.data:
        if trace.y is not None:
            trace.y = [roles.get(name, name) for name in trace.y]
    order = fig.layout.yaxis.categoryarray
    if order is not None:
        fig.layout.yaxis.categoryarray = [roles.get(name, name) for name in order]
    return fig


def costs(events: list[ev.Event], *, key: str, lang: str | None = None) -> None:
    """Metrics by role, the timeline of calls, and tokens per step."""
    lang = lang or page_lang()
    w = words("summary", lang)
    roles = role_labels(lang)
    by_role, timeline_tab, per_step = st.tabs([w["by_role"], w["timeline"], w["per_step"]])
    with by_role:
        table = metrics.by_role(events)
        if table.empty:
            st.caption(w["no_calls"])
        else:
            table["role"] = [roles.get(r, r) for r in table["role"]]
            # st.table, not a data grid: headers and cells wrap, so every column, "est." included, stays
            # in view at 1280×720; the full figures are in the downloads
            shown = table[
                [
                    "role",
                    "model",
                    "calls",
                    "prompt_tokens",
                    "completion_tokens",
                    "total_tokens",
                    "latency_ms_mean",
                    "latency_ms_total",
                    "estimated",
                ]
            ].copy()
            for column in ("latency_ms_mean", "latency_ms_total"):
                shown[column] = shown[column].round().astype(int)
            shown["estimated"] = ["✓" if v else "" for v in shown["estimated"]]
            shown["model"] = [text.inline(str(m), 80) for m in shown["model"]]  # st.table draws Markdown
            with st.container(key=f"{key}-by-role"):
                st.table(
                    shown.rename(
                        columns={
                            "role": w["col_role"],
                            "model": w["col_model"],
                            "calls": w["col_calls"],
                            "prompt_tokens": w["col_prompt"],
                            "completion_tokens": w["col_completion"],
                            "total_tokens": w["col_total"],
                            "latency_ms_mean": w["col_mean_ms"],
                            "latency_ms_total": w["col_total_ms"],
                            "estimated": w["col_est"],
                        }
                    ),
                    hide_index=True,
                )
                if shown["estimated"].any():
                    st.caption(f"{w['col_est']} ✓ · {w['col_est_help']}")
    with timeline_tab:
        st.plotly_chart(timeline(events, lang), key=f"{key}-timeline", width="stretch")
    with per_step:
        frame = metrics.tokens_per_step(events)
        if frame.empty:
            st.caption(w["no_calls"])
        else:
            labels = [
                (w["bar_run"] if pd.isna(s) else w["bar_step"].format(step=s))
                + " · "
                + w["role_sep"].join(roles.get(r, r) for r in str(rs).split(", ") if r)
                for s, rs in zip(frame["step"].astype(object), frame["roles"], strict=True)
            ]
            fig = go.Figure(
                [
                    go.Bar(name=w["bar_prompt"], x=labels, y=frame["prompt_tokens"], marker_color="#A5B4FC"),
                    go.Bar(name=w["bar_completion"], x=labels, y=frame["completion_tokens"], marker_color="#4F46E5"),
                ]
            )
            fig.update_layout(
                barmode="stack",
                height=320,
                margin={"l": 10, "r": 10, "t": 30, "b": 40},
                legend={"orientation": "h", "y": 1.05},
                yaxis_title=w["bar_tokens"],
            )
            st.plotly_chart(fig, key=f"{key}-per-step", width="stretch")
