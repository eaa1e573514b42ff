"""After Compare's lanes have ended: one table row per lane, cost and time charts, a diff between two
lanes' answers, and the export of every lane in one file (which Replay opens lane by lane)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import pandas as pd
import streamlit as st

from agent_core import events as ev
from agent_core import exports as exports_format
from agent_core import metrics
from agent_core.diffing import Budget, diff_stats, line_diff
from agent_core.pricing import PriceTable, spend

from . import costs, sidebar, summary, text
from .lane_state import P, Comparison
from .render import ENDINGS


# --- the table, the charts, the diff --------------------------------------------------------------

def final_text(events: Iterable[ev.Event]) -> tuple[str, str]:
    """A lane's answer to compare, and where it came from: its final answer, else its latest draft."""
    events = list(events)
    answer = next((e for e in reversed(events) if isinstance(e, ev.FinalAnswer)), None)
    if answer is not None:
        return answer.text, "final answer"
    draft = next((e for e in reversed(events) if isinstance(e, ev.Draft)), None)
    if draft is not None:
        return draft.text, f"latest draft (version {draft.version}); the lane gave no final answer"
    return "", "no answer: the lane ended before it wrote one"


def results_table(names: Sequence[str], lanes: Sequence[list[ev.Event]],
                  prices: PriceTable | None = None) -> pd.DataFrame:
    """One row per lane: how it ended, LLM calls (in all and by role), tokens, cost, time, verdicts."""
    summaries = {name: metrics.summary(events) for name, events in zip(names, lanes, strict=True)}
    table = metrics.compare_table(summaries)
    spent = [spend(events, prices or PriceTable()) for events in lanes]
    table["cost_usd"] = [s.usd if s.known else None for s in spent]  # None: a model without a price
    table["ended"] = [ENDINGS.get(s.end_reason or "", (s.end_reason or "running",))[0] for s in summaries.values()]
    table["by_role"] = [", ".join(f"{u.role} {u.calls}" for u in metrics.role_usage(events)) or "—" for events in lanes]
    table["verdict_counts"] = [" · ".join(f"{v} {n}" for v, n in s.verdicts.items()) or "—"
                               for s in summaries.values()]
    table["limits"] = table["limits"].replace("", "—")
    return table[["lane", "ended", "llm_calls", "max_llm_calls", "by_role", "prompt_tokens", "completion_tokens",
                  "total_tokens", "cost_usd", "latency_ms", "elapsed_s", "tool_calls", "tool_errors", "verdict_counts", "drafts",
                  "limits"]]


def results(comparison: Comparison, *, lang: str) -> None:
    """After every lane ended: the table, the cost charts, a diff of two answers, the exports."""
    lanes = comparison.events()
    names = comparison.names
    st.subheader("How the lanes compare", divider="gray")
    st.dataframe(results_table(names, lanes, costs.price_table()[0]), hide_index=True, width="stretch", key=f"{P}_table", column_config={
        "lane": st.column_config.TextColumn("lane", pinned=True),
        "llm_calls": st.column_config.NumberColumn("LLM calls"),
        "max_llm_calls": st.column_config.NumberColumn("bound", help="The most calls this lane could make."),
        "by_role": st.column_config.TextColumn("calls by role"),
        "prompt_tokens": st.column_config.NumberColumn("prompt tok."),
        "completion_tokens": st.column_config.NumberColumn("completion tok."),
        "total_tokens": st.column_config.NumberColumn("total tok."),
        "latency_ms": st.column_config.NumberColumn("model ms", format="%.0f", help="Time spent in LLM calls."),
        "elapsed_s": st.column_config.NumberColumn("seconds", format="%.1f", help="Wall-clock time of the run."),
        "tool_calls": st.column_config.NumberColumn("tool calls"),
        "tool_errors": st.column_config.NumberColumn("tool errors"),
        "verdict_counts": st.column_config.TextColumn("verdicts"),
        "cost_usd": st.column_config.NumberColumn(costs.words(lang)["cost"], format="$%.4f",
                                                  help=costs.words(lang)["cost_help"]),
    })
    if any(c.usage_estimated for events in lanes for c in events if isinstance(c, ev.LlmCall)):
        st.caption("Token counts are estimates where the server sent no usage (always, on the offline model).")
    cost, timelines = st.tabs(["Cost per lane", "Timelines"])
    with cost:
        summaries = {name: metrics.summary(events) for name, events in zip(names, lanes, strict=True)}
        st.plotly_chart(metrics.cost_figure(summaries, lang), key=f"{P}_cost", width="stretch")
    with timelines:
        for i, (name, events) in enumerate(zip(names, lanes, strict=True)):
            st.markdown(f"**{text.inline(name, 80)}**")
            st.plotly_chart(metrics.timeline_figure(events, lang), key=f"{P}_timeline{i}", width="stretch")
    answer_diff(names, lanes)
    exports(comparison)


def answer_diff(names: Sequence[str], lanes: Sequence[list[ev.Event]]) -> None:
    """Pick two lanes and see how their answers differ, word by word or line by line."""
    state = st.session_state
    st.subheader("How the answers differ", divider="gray")
    options = list(range(len(names)))
    for key, default in ((f"{P}_diff_a", 0), (f"{P}_diff_b", 1)):
        if state.get(key) not in options:
            state[key] = default
    pick_a, pick_b = st.columns(2)
    a = pick_a.selectbox("Lane", options, key=f"{P}_diff_a", format_func=names.__getitem__, persist_state="session")
    b = pick_b.selectbox("against lane", options, key=f"{P}_diff_b", format_func=names.__getitem__,
                         persist_state="session")
    (old, old_from), (new, new_from) = final_text(lanes[a]), final_text(lanes[b])
    with st.container(key=f"{P}_answer_diff"):
        if a == b:
            st.caption("Pick two different lanes.")
            return
        budget = Budget()  # model answers: the same cost bound as a run's drafts (agent_core.diffing)
        stats = diff_stats(old, new, budget)
        st.caption(f"{text.inline(names[a])}: {old_from} · {text.inline(names[b])}: {new_from} · "
                   f"{stats.changed_ratio:.0%} of the text differs "
                   f"(+{stats.added_lines} / −{stats.removed_lines} lines)")
        sides, inline, lines = st.tabs(["Side by side", "Inline", "Lines"])
        with sides:
            left, right = st.columns(2, gap="medium")
            old_md, new_md = text.word_diff_sides(old, new, budget)
            with left.container(border=True):
                st.caption(text.inline(names[a]))
                st.markdown(old_md or "_no answer_")
            with right.container(border=True):
                st.caption(text.inline(names[b]))
                st.markdown(new_md or "_no answer_")
        with inline:
            st.markdown(text.word_diff_inline(old, new, budget) or "_no answer in either lane_")
        with lines:
            diff = line_diff(old, new, budget=budget, names=(names[a], names[b]))
            st.code(diff or "(the answers are the same)", language="diff")
        if budget.exhausted:
            st.caption(":material/speed: These answers were too costly to align word by word (they repeat the same "
                       "text many times), so part of the diff is shown as one replaced block. · "
                       "两个答案重复内容过多，部分差异以整段替换显示。")


# --- export ---------------------------------------------------------------------------------------

EXPORT_KIND = exports_format.EXPORT_KIND


def export_json(comparison: Comparison, secrets: Iterable[str] = ()) -> str:
    """Every lane's trace in one file (agent_core.exports); Replay opens any lane of it. Keys in
    `secrets` are redacted from every trace."""
    lanes = [(name, record.trace()) for name, record in zip(comparison.names, comparison.lanes, strict=True)]
    return exports_format.comparison_json(comparison.task, lanes, secrets)


def exports(comparison: Comparison) -> None:
    secrets = sidebar.secrets_to_redact()
    subject = comparison.lanes[0].config.get("scenario") or "task"
    st.subheader("Take it with you", divider="gray")
    st.download_button("Download every lane (one JSON file)", lambda: export_json(comparison, secrets),
                       f"compare-{subject}-{comparison.run_id}.json", "application/json", key=f"{P}_export",
                       icon=":material/data_object:", on_click="ignore", type="primary")
    st.caption("Open it on the Replay page to watch any lane again, with no model.")
    with st.expander("Each lane's own trace and report"):
        for i, (name, record) in enumerate(zip(comparison.names, comparison.lanes, strict=True)):
            st.markdown(f"**{text.inline(name, 80)}**")
            summary.downloads(record, key=f"{P}_dl{i}", secrets=secrets)
