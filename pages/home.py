"""Home: what the app is for, every pattern (and the baseline) in one line each, and where to start."""

import streamlit as st

from agent_core.patterns import registry
from agent_core.scenarios import SCENARIOS
from pages.ui import graphs, shell, sidebar
from pages.ui.i18n import t

shell.require("home")

st.title(t("app.title"))
st.markdown(t("home.intro"))

SPECS = list(registry.specs().values())
lang = sidebar.current_lang()

# two cards a row: four in a row left each graph 150 px wide at 1280×720, its labels 3-8 px; with an odd
# number of patterns the last row's second column stays empty
columns = [column for _ in range(0, len(SPECS), 2) for column in st.columns(2, gap="medium")]
for column, spec in zip(columns, SPECS, strict=False):
    variant = next((v for v in spec.variants if v.id == spec.compare_variant), spec.variants[0])
    scenarios = [s.title(lang) for s in SCENARIOS.values() if s.pattern == spec.name]
    with column.container(border=True, height="stretch"):
        st.subheader(spec.label(lang))
        st.graphviz_chart(
            graphs.dot({"pattern": spec.name, **variant.forced, **variant.floors}, lang=lang, vertical=True),
            width="content",
        )
        st.markdown(variant.blurb(lang))
        if scenarios:
            st.caption(t("home.scenarios", names=t("home.list_sep").join(scenarios)))

links = st.container(horizontal=True, gap="medium")
links.page_link(page="pages/playground.py", label=t("home.open_playground"), icon=":material/play_circle:")
links.page_link(page="pages/compare.py", label=t("home.open_compare"), icon=":material/view_week:")
links.page_link(page="pages/replay.py", label=t("home.open_replay"), icon=":material/history:")
links.page_link(page="pages/learn.py", label=t("home.open_learn"), icon=":material/school:")
if sidebar.is_offline():
    st.info(t("home.offline"), icon=":material/smart_toy:")
