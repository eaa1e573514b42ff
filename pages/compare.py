"""Compare: two to four lanes on one task — patterns, prompts, limits or models — running at the same
time, each drawn live in its own column; then a table, cost charts, a diff of two answers and one
export file. A rerun redraws the finished lanes from their stored events."""

import streamlit as st

from pages.ui import follow, fork_view, lane_results, shell, sidebar
from pages.ui import lane_state as ls
from pages.ui import lanes_view as lv
from pages.ui.i18n import t
from pages.ui.render import RunView, draw_run, fresh_area

shell.require("compare")

lang = sidebar.current_lang()
ls.init_state(lang)
comparison = ls.current()
running = comparison is not None and comparison.active
setups = ls.read_setups(lang)

st.title(t("compare.title"))
st.caption(t("compare.intro"))
fork_view.pair_view(lang)
lv.task_picker(lang, disabled=running)
lv.lane_cards(setups, lang, disabled=running)
lv.run_buttons(setups, running=running)

if comparison is None:
    st.info(t("compare.empty"), icon=":material/view_week:")
else:
    live = ls.claim(comparison)
    with fresh_area(live):
        st.divider()
        holders = lv.lane_columns(comparison, lang)
        if live:
            views = []
            for i, (holder, record) in enumerate(zip(holders, comparison.lanes, strict=True)):
                with holder:
                    follow.mark(f"{ls.view_key(i)}-flow", live=True)  # the page follows the lowest lane
                    views.append(RunView(record.config, bound=record.bound, key=ls.view_key(i), compact=True))
            ls.drive(comparison, views, holders)
            st.rerun()  # unlock the inputs and add the results
        for i, (holder, record) in enumerate(zip(holders, comparison.lanes, strict=True)):
            with holder:
                follow.mark(f"{ls.view_key(i)}-flow", live=False)
                draw_run(record.config, record.typed_events(), bound=record.bound, key=ls.view_key(i), compact=True)
        if not comparison.active:
            lane_results.results(comparison, lang=lang)
