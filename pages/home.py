"""Home: what the app is for, the three patterns in one line each, and where to start."""

import streamlit as st

from pages.ui import shell, graphs, sidebar

shell.require("home")

st.title("Agent Patterns Playground")
st.markdown("Pick an LLM agent pattern, edit every prompt and limit, press **Run**, and watch each step "
            "arrive: thoughts, tool calls, the plan, every verdict and the diff between drafts. Then look at "
            "what it cost.")

PATTERNS = (
    ("ReAct", "react", {"pattern": "react", "max_reflection_rounds": 1},
     "Reason → act with a tool → observe, in a loop, until it can answer. An optional judge reviews each "
     "final answer and sends it back with feedback.", "Weather report, dentist booking"),
    ("Plan-and-Execute", "plan-execute", {"pattern": "plan-execute", "reflector": True},
     "A planner splits the request into steps; a goal-blind executor runs them; a Reflector says PASS, "
     "RETRY or REPLAN after each step; a synthesizer answers.", "Order 99999, waybill SF0000000, vacuums for cats"),
    ("Reflection", "reflection", {"pattern": "reflection"},
     "Write a draft, critique it, refine it — until the critic has nothing left to improve or the rounds "
     "run out.", "Primes up to n, code review, a report against criteria"),
)

for column, (title, _pattern, config, what, scenarios) in zip(st.columns(3, gap="medium"), PATTERNS):
    with column.container(border=True, height="stretch"):
        st.subheader(title)
        st.graphviz_chart(graphs.dot(config), width="stretch")
        st.markdown(what)
        st.caption(f"Scenarios: {scenarios}")

links = st.container(horizontal=True, gap="medium")
links.page_link("pages/playground.py", label="Open the Playground", icon=":material/play_circle:")
links.page_link("pages/compare.py", label="Compare patterns side by side", icon=":material/view_week:")
links.page_link("pages/replay.py", label="Replay a recorded run", icon=":material/history:")
links.page_link("pages/learn.py", label="Learn when to use which", icon=":material/school:")
if sidebar.is_offline():
    st.info("You are on the scripted offline model: no key and no network needed, and every run replays the "
            "articles' documented behaviour. Choose a provider in the sidebar to use a real model.",
            icon=":material/smart_toy:")
