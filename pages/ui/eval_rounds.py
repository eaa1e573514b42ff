"""Eval's "what self-correction changes": pass rate and transitions by round, the run's own stop beside
an oracle stop, and the baseline — drawn from agent_core.evaluation.rounds, in English and Chinese."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from agent_core.evaluation import EvalRow, round_stats, rounds_figure, rounds_to_csv, stop_stats
from agent_core.evaluation.harness import BASELINE_ENTRIES

WORDS = {
    "en": {"title": "What self-correction changes", "round": "round", "pattern": "pattern",
           "pass": "pass rate", "drafted": "new drafts", "rw": "right→wrong", "wr": "wrong→right",
           "rr": "right→right", "ww": "wrong→wrong",
           "intro": "Every draft of the multi-draft patterns is run against the tests, not only the last. A run "
                    "that stopped before a round keeps its last draft there. Transitions count tasks whose draft "
                    "went from passing (right) or failing (wrong) in the round before to this round.",
           "stops": "The run's own stop vs an oracle stop",
           "stops_note": "**Oracle stop** (labelled \\*) stops at the first passing draft: it needs the answer key, "
                         "so no real run can do it; it only shows how much a perfect stopping rule would add "
                         "(Huang et al. 2024 separate the two the same way). The baseline makes one call.",
           "self": "self stop · pass", "self_calls": "self stop · calls / task", "oracle": "oracle stop* · pass",
           "oracle_calls": "oracle stop* · calls / task", "baseline": " (baseline)",
           "download": "Download rounds (CSV)", "none": "Pick a multi-draft pattern (Reflection) to see its rounds."},
    "zh": {"title": "自我纠错到底改变了什么", "round": "轮次", "pattern": "模式", "pass": "通过率",
           "drafted": "新草稿数", "rw": "对→错", "wr": "错→对", "rr": "对→对", "ww": "错→错",
           "intro": "多草稿模式的每一版草稿都会运行测试，而不只是最后一版。在某轮之前已停止的运行，"
                    "在该轮沿用其最后一版草稿。转移统计的是：任务的草稿从上一轮的通过（对）或失败（错）变为本轮的结果。",
           "stops": "运行自行停止 vs 先知停止",
           "stops_note": "**先知停止**（标 \\*）在第一版通过的草稿处停止：它需要标准答案，真实运行无法做到；"
                         "它只说明一个完美的停止规则能多带来多少（Huang 等 2024 也这样区分二者）。基线只调用一次。",
           "self": "自行停止 · 通过率", "self_calls": "自行停止 · 每任务调用", "oracle": "先知停止* · 通过率",
           "oracle_calls": "先知停止* · 每任务调用", "baseline": "（基线）",
           "download": "下载各轮结果（CSV）", "none": "选择多草稿模式（反思）即可查看各轮结果。"},
}


def show(rows: Sequence[EvalRow], lang: str, key: str) -> None:
    """The rounds section of the Eval page, for the rows of one evaluation."""
    w = WORDS["zh" if lang == "zh" else "en"]
    st.subheader(w["title"])
    stats = round_stats(rows)
    if not stats:
        st.caption(w["none"])
        return
    st.caption(w["intro"])
    stops = stop_stats(rows, BASELINE_ENTRIES)
    st.plotly_chart(rounds_figure(stats, stops, lang), key=f"{key}_rounds_chart")
    st.dataframe(pd.DataFrame([{
        w["pattern"]: s.pattern, w["round"]: s.round, w["pass"]: f"{s.pass_rate:.0%}", w["drafted"]: s.drafted,
        w["rw"]: s.right_to_wrong, w["wr"]: s.wrong_to_right, w["rr"]: s.right_to_right, w["ww"]: s.wrong_to_wrong}
        for s in stats]), hide_index=True, width="stretch", key=f"{key}_rounds_table")
    st.markdown(f"**{w['stops']}**")
    st.dataframe(pd.DataFrame([{
        w["pattern"]: s.pattern + (w["baseline"] if s.baseline else ""), w["self"]: f"{s.self_rate:.0%}",
        w["self_calls"]: s.self_calls, w["oracle"]: f"{s.oracle_rate:.0%}", w["oracle_calls"]: s.oracle_calls}
        for s in stops]), hide_index=True, width="stretch", key=f"{key}_stops_table")
    st.caption(w["stops_note"])
    st.download_button(w["download"], rounds_to_csv(rows), file_name="eval-rounds.csv", mime="text/csv",
                       key=f"{key}_rounds_csv", icon=":material/download:")
