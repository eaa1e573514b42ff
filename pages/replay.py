"""Replay: open a saved run — a bundled example or a trace file — and step through it, or play it at
1×, 2× or 4×, drawn exactly as it was live; fork it at any call, run in place of the trace
(pages/ui/replay_fork.py), or open its configuration in the Playground. Only a fork calls a model."""

import streamlit as st

from pages.ui import fork_view, handoff, player, replay_fork, runs, shell, sidebar
from pages.ui.i18n import t

shell.require("replay")
handoff.go_if_requested()

st.title(t("replay.title"))
st.caption(t("replay.intro"))
# 5:7, not 4:8: an example's title and language fit its box at 1280×720
source_col, run_col = st.columns([5, 7], gap="large")

with source_col:
    loaded = player.pick_trace(sidebar.current_lang())
    if loaded is not None:
        player.trace_card(loaded)
        busy = runs.any_active()
        st.button(
            t("replay.fork"),
            key="rp_fork",
            icon=":material/call_split:",
            width="stretch",
            on_click=handoff.load_into_playground,
            args=(dict(loaded.config), loaded.task),
            disabled=busy,
            help=t("replay.fork_busy") if busy else t("replay.fork_help"),
        )

with run_col:
    if loaded is None:
        with st.container(border=True, key="rp_empty"):
            st.markdown(t("replay.empty"))
    else:
        fork_view.open_editor(sidebar.current_lang())
        fork = replay_fork.shown(loaded)
        if fork is not None:  # a fork of this trace, run here: drawn where the trace was
            replay_fork.area(fork, sidebar.current_lang())
        else:
            player.player(loaded)
