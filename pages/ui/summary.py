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

from . import telemetry
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


#: The OTLP/JSON download (issue 16), en / zh.
OTLP_WORDS = {
    "en": {"label": "Download OTLP/JSON", "help": "The run as OpenTelemetry GenAI spans (OTLP/JSON), for a collector or "
           "any tool that reads OTLP; Replay opens it again."},
    "zh": {"label": "下载 OTLP/JSON", "help": "以 OpenTelemetry GenAI span（OTLP/JSON）形式导出本次运行，可交给 collector "
           "或任何读取 OTLP 的工具；回放页也能重新打开它。"},
}


def file_stem(record: RunRecord) -> str:
    subject = record.config.get("scenario") or "task"
    return f"{record.config.get('pattern', 'run')}-{subject}-{record.run_id}"


def downloads(record: RunRecord, *, key: str, secrets: Iterable[str] = ()) -> None:
    """Download buttons for the trace and the report; the files are built only when clicked."""
    keys = list(secrets)
    row = st.container(horizontal=True, gap="small", key=f"{key}-downloads")
    row.download_button("Download trace (JSON)", lambda: trace_json(record, keys), f"trace-{file_stem(record)}.json",
                        "application/json", key=f"{key}-trace", icon=":material/data_object:", on_click="ignore")
    row.download_button("Download report (Markdown)", lambda: report_markdown(record, keys),
                        f"report-{file_stem(record)}.md", "text/markdown", key=f"{key}-report",
                        icon=":material/article:", on_click="ignore")
    lang = "zh" if record.config.get("lang") == "zh" else "en"
    words = OTLP_WORDS[lang]
    row.download_button(words["label"], lambda: otlp_json(record, keys), f"otlp-{file_stem(record)}.json",
                        "application/json", key=f"{key}-otlp", icon=":material/conversion_path:", on_click="ignore",
                        help=words["help"])
    telemetry.note(lang)  # live export: said once if the extra is missing or the collector failed


def costs(events: list[ev.Event], *, key: str, lang: str = "en") -> None:
    """Metrics by role, the timeline of calls, and tokens per step."""
    by_role, timeline, per_step = st.tabs(["Cost by role", "Timeline", "Tokens per step"])
    with by_role:
        table = metrics.by_role(events)
        if table.empty:
            st.caption("No LLM call was made.")
        else:
            st.dataframe(table, hide_index=True, width="stretch", key=f"{key}-by-role", column_order=(
                "role", "model", "calls", "prompt_tokens", "completion_tokens", "total_tokens", "latency_ms_mean",
                "latency_ms_total", "estimated"), column_config={
                "prompt_tokens": st.column_config.NumberColumn("prompt tok."),
                "completion_tokens": st.column_config.NumberColumn("completion tok."),
                "total_tokens": st.column_config.NumberColumn("total tok."),
                "latency_ms_mean": st.column_config.NumberColumn("mean ms", format="%.0f"),
                "latency_ms_total": st.column_config.NumberColumn("total ms", format="%.0f"),
                "estimated": st.column_config.CheckboxColumn("est.", help="The server sent no usage; token "
                                                             "counts are estimates."),
            })
    with timeline:
        st.plotly_chart(metrics.timeline_figure(events, lang), key=f"{key}-timeline", width="stretch")
    with per_step:
        frame = metrics.tokens_per_step(events)
        if frame.empty:
            st.caption("No LLM call was made.")
        else:
            labels = [("run" if pd.isna(s) else f"step {s}") + f" · {r}"
                      for s, r in zip(frame["step"].astype(object), frame["roles"])]
            fig = go.Figure([go.Bar(name="prompt", x=labels, y=frame["prompt_tokens"], marker_color="#A5B4FC"),
                             go.Bar(name="completion", x=labels, y=frame["completion_tokens"], marker_color="#4F46E5")])
            fig.update_layout(barmode="stack", height=320, margin={"l": 10, "r": 10, "t": 30, "b": 40},
                              legend={"orientation": "h", "y": 1.05}, yaxis_title="tokens")
            st.plotly_chart(fig, key=f"{key}-per-step", width="stretch")
