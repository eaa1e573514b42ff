"""Home: what the app is for, every pattern (and the baseline) in one line each, and where to start."""

import streamlit as st

from agent_core.patterns import registry
from agent_core.scenarios import SCENARIOS
from pages.ui import graphs, shell, sidebar

shell.require("home")

st.title("Agent Patterns Playground")
st.markdown("Pick an LLM agent pattern, edit every prompt and limit, press **Run**, and watch each step "
            "arrive: thoughts, tool calls, the plan, every verdict and the diff between drafts. Then look at "
            "what it cost.")

SPECS = list(registry.specs().values())
lang = sidebar.current_lang()

for column, spec in zip(st.columns(len(SPECS), gap="medium"), SPECS, strict=True):
    variant = next((v for v in spec.variants if v.id == spec.compare_variant), spec.variants[0])
    scenarios = [s.title.get(lang, s.title["en"]) for s in SCENARIOS.values() if s.pattern == spec.name]
    with column.container(border=True, height="stretch"):
        st.subheader(spec.label(lang))
        st.graphviz_chart(graphs.dot({"pattern": spec.name, **variant.forced, **variant.floors}, lang=lang),
                         width="stretch")
        st.markdown(variant.blurb(lang))
        if scenarios:
            st.caption(f"Scenarios: {', '.join(scenarios)}")

links = st.container(horizontal=True, gap="medium")
links.page_link("pages/playground.py", label="Open the Playground", icon=":material/play_circle:")
links.page_link("pages/compare.py", label="Compare patterns side by side", icon=":material/view_week:")
links.page_link("pages/replay.py", label="Replay a recorded run", icon=":material/history:")
links.page_link("pages/learn.py", label="Learn when to use which", icon=":material/school:")
if sidebar.is_offline():
    st.info("You are on the scripted offline model: no key and no network needed, and every run replays the "
            "articles' documented behaviour. Choose a provider in the sidebar to use a real model.",
            icon=":material/smart_toy:")
