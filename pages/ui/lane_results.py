"""After Compare's lanes have ended: one table row per lane, cost and time charts, a diff between two
lanes' answers, and the export of every lane in one file (which Replay opens lane by lane)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
import streamlit as st

from agent_core import event_views, metrics
from agent_core import events as ev
from agent_core import exports as exports_format
from agent_core.diffing import Budget, diff_stats
from agent_core.offline import placeholder
from agent_core.pricing import PriceTable, spend

from . import costs, diff_view, sidebar, summary, text
from .i18n import lang as page_lang
from .i18n import role_labels, t, words
from .lane_state import Comparison, P
from .render import ENDING_COLORS, ending
from .render import words as run_words

# --- the table, the charts, the diff --------------------------------------------------------------


def final_text(events: Iterable[ev.Event], lang: str | None = None) -> tuple[str, str]:
    """A lane's answer to compare, and where it came from: its final answer, else its latest draft."""
    w = words("lane_results", lang)
    events = list(events)
    answer = next((e for e in reversed(events) if isinstance(e, ev.FinalAnswer)), None)
    if answer is not None:
        return answer.text, w["from_final"]
    draft = next((e for e in reversed(events) if isinstance(e, ev.Draft)), None)
    if draft is not None:
        return draft.text, w["from_draft"].format(version=draft.version)
    return "", w["from_none"]


def results_table(
    names: Sequence[str],
    lanes: Sequence[list[ev.Event]],
    prices: PriceTable | None = None,
    lang: str | None = None,
    placeholders: Sequence[bool] = (),
) -> pd.DataFrame:
    """One row per lane: how it ended, LLM calls (in all and by role), tokens, cost, time, verdicts;
    a lane in `placeholders` (offline, no script for it) ends as a placeholder, never as passed."""
    lang = lang or page_lang()
    roles = role_labels(lang)
    summaries = {name: metrics.summary(events) for name, events in zip(names, lanes, strict=True)}
    table = metrics.compare_table(summaries)
    spent = [spend(events, prices or PriceTable()) for events in lanes]
    table["cost_usd"] = [s.usd if s.known else None for s in spent]  # None: a model without a price
    table["ended"] = [
        ending(s.end_reason, lang)[0] if s.end_reason else run_words(lang)["running"] for s in summaries.values()
    ]
    for i, stand_in in enumerate(placeholders):
        # a placeholder lane that "answered" or "passed" did neither; stopped, failed or capped it did
        if stand_in and ENDING_COLORS.get(summaries[names[i]].end_reason) == "green":
            table.loc[i, "ended"] = t("lane_presets.placeholder_end", lang)
    table["by_role"] = [
        ", ".join(f"{roles.get(u.role, u.role)} {u.calls}" for u in metrics.role_usage(events)) or "—"
        for events in lanes
    ]
    table["verdict_counts"] = [" · ".join(f"{v} {n}" for v, n in s.verdicts.items()) or "—" for s in summaries.values()]
    table["limits"] = table["limits"].replace("", "—")
    # what the patterns' own event kinds count (a search tree's nodes...), in their views' words
    table["own_counts"] = [
        " · ".join(f"{event_views.count_label(name, lang)} {n}" for name, n in s.counts.items()) or "—"
        for s in summaries.values()
    ]
    return table[
        [
            "lane",
            "ended",
            "llm_calls",
            "max_llm_calls",
            "by_role",
            "prompt_tokens",
            "completion_tokens",
            "total_tokens",
            "cost_usd",
            "latency_ms",
            "elapsed_s",
            "tool_calls",
            "tool_errors",
            "verdict_counts",
            "drafts",
            "own_counts",
            "limits",
        ]
    ]


def results(comparison: Comparison, *, lang: str) -> None:
    """After every lane ended: the table, the cost charts, a diff of two answers, the exports."""
    lanes = comparison.events()
    names = comparison.names
    w = words("lane_results", lang)
    col = words("lane_results.col", lang)
    st.subheader(w["table"], divider="gray")
    stand_ins = [
        placeholder(r.config.get("scenario"), r.config.get("pattern", ""), r.models.values()) for r in comparison.lanes
    ]
    st.dataframe(
        results_table(names, lanes, costs.price_table()[0], lang, stand_ins),
        hide_index=True,
        width="stretch",
        key=f"{P}_table",
        column_config={
            "lane": st.column_config.TextColumn(col["lane"], pinned=True),
            "ended": st.column_config.TextColumn(col["ended"]),
            "llm_calls": st.column_config.NumberColumn(col["llm_calls"]),
            "max_llm_calls": st.column_config.NumberColumn(col["bound"], help=col["bound_help"]),
            "by_role": st.column_config.TextColumn(col["by_role"]),
            "prompt_tokens": st.column_config.NumberColumn(col["prompt"]),
            "completion_tokens": st.column_config.NumberColumn(col["completion"]),
            "total_tokens": st.column_config.NumberColumn(col["total"]),
            "latency_ms": st.column_config.NumberColumn(col["model_ms"], format="%.0f", help=col["model_ms_help"]),
            "elapsed_s": st.column_config.NumberColumn(col["seconds"], format="%.1f", help=col["seconds_help"]),
            "tool_calls": st.column_config.NumberColumn(col["tool_calls"]),
            "tool_errors": st.column_config.NumberColumn(col["tool_errors"]),
            "verdict_counts": st.column_config.TextColumn(col["verdicts"]),
            "drafts": st.column_config.NumberColumn(col["drafts"]),
            "own_counts": st.column_config.TextColumn(t("figures.counts", lang), help=t("figures.counts_help", lang)),
            "limits": st.column_config.TextColumn(col["limits"]),
            "cost_usd": st.column_config.NumberColumn(
                costs.words(lang)["cost"], format="$%.4f", help=costs.words(lang)["cost_help"]
            ),
        },
    )
    if any(c.usage_estimated for events in lanes for c in events if isinstance(c, ev.LlmCall)):
        st.caption(w["estimated"])
    if any(stand_ins):
        st.caption(t("lane_presets.placeholder_table", lang))
    cost, timelines = st.tabs([w["cost_tab"], w["timelines_tab"]])
    with cost:
        summaries = {name: metrics.summary(events) for name, events in zip(names, lanes, strict=True)}
        st.plotly_chart(metrics.cost_figure(summaries, lang), key=f"{P}_cost", width="stretch")
    with timelines:
        for i, (name, events) in enumerate(zip(names, lanes, strict=True)):
            st.markdown(f"**{text.inline(name, 80)}**")
            st.plotly_chart(summary.timeline(events, lang), key=f"{P}_timeline{i}", width="stretch")
    answer_diff(names, lanes, lang)
    exports(comparison, lang)


def answer_diff(names: Sequence[str], lanes: Sequence[list[ev.Event]], lang: str | None = None) -> None:
    """Pick two lanes and see how their answers differ, word by word or line by line."""
    state = st.session_state
    w = words("lane_results", lang)
    st.subheader(w["diff"], divider="gray")
    options = list(range(len(names)))
    for key, default in ((f"{P}_diff_a", 0), (f"{P}_diff_b", 1)):
        if state.get(key) not in options:
            state[key] = default
    pick_a, pick_b = st.columns(2)
    a = pick_a.selectbox(
        w["lane_a"], options, key=f"{P}_diff_a", format_func=names.__getitem__, persist_state="session"
    )
    b = pick_b.selectbox(
        w["lane_b"], options, key=f"{P}_diff_b", format_func=names.__getitem__, persist_state="session"
    )
    (old, old_from), (new, new_from) = final_text(lanes[a], lang), final_text(lanes[b], lang)
    with st.container(key=f"{P}_answer_diff"):
        if a == b:
            st.caption(w["same_lane"])
            return
        budget = Budget()  # model answers: the same cost bound as a run's drafts (agent_core.diffing)
        stats = diff_stats(old, new, budget)
        st.caption(
            w["diff_line"].format(
                a=text.inline(names[a]),
                a_from=old_from,
                b=text.inline(names[b]),
                b_from=new_from,
                ratio=f"{stats.changed_ratio:.0%}",
                added=stats.added_lines,
                removed=stats.removed_lines,
            )
        )
        sides, inline, lines = st.tabs([w["sides"], w["inline"], w["lines"]])
        code = diff_view.looks_like_code(old, new)  # struck / underlined, wrapped (diff_view)
        with sides:
            diff_view.word_diff_block(
                old,
                new,
                code=code,
                layout="side by side",
                budget=budget,
                names=(text.inline(names[a]), text.inline(names[b])),
            )
        with inline:
            diff_view.word_diff_block(old, new, code=code, budget=budget)
        with lines:
            if old != new:
                diff_view.line_diff_block(old, new, budget=budget, names=(names[a], names[b]))
            else:
                st.caption(w["same_answers"])
        if budget.exhausted:
            st.caption(w["too_costly"])


# --- export ---------------------------------------------------------------------------------------

EXPORT_KIND = exports_format.EXPORT_KIND


def export_json(comparison: Comparison, secrets: Iterable[str] = ()) -> str:
    """Every lane's trace in one file (agent_core.exports); Replay opens any lane of it. Keys in
    `secrets` are redacted from every trace."""
    lanes = [(name, record.trace()) for name, record in zip(comparison.names, comparison.lanes, strict=True)]
    return exports_format.comparison_json(comparison.task, lanes, secrets)


def exports(comparison: Comparison, lang: str | None = None) -> None:
    w = words("lane_results", lang)
    secrets = sidebar.secrets_to_redact()
    subject = comparison.lanes[0].config.get("scenario") or "task"
    st.subheader(w["take"], divider="gray")
    st.download_button(
        w["export"],
        lambda: export_json(comparison, secrets),
        file_name=f"compare-{subject}-{comparison.run_id}.json",
        mime="application/json",
        key=f"{P}_export",
        icon=":material/data_object:",
        on_click="ignore",
        type="primary",
    )
    st.caption(w["export_note"])
    with st.expander(w["each"]):
        for i, (name, record) in enumerate(zip(comparison.names, comparison.lanes, strict=True)):
            st.markdown(f"**{text.inline(name, 80)}**")
            summary.downloads(record, key=f"{P}_dl{i}", secrets=secrets)
