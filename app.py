"""Agent Patterns Playground — the Streamlit entry point: `streamlit run app.py`.

Pages are listed here (st.navigation does not scan pages/ once it is used); adding a page is one
line in PAGES. The model sidebar is drawn once, here, for every page.
"""

import streamlit as st

from pages.ui import poll, runs, shell, sidebar

# An emoji favicon is drawn inline by the browser; a :material/…: one is fetched from
# fonts.gstatic.com, which an offline workshop room cannot reach (tests/browser/test_offline_browser.py).
st.set_page_config(page_title="Agent Patterns Playground", page_icon="🧭", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/playground.py", title="Playground", icon=":material/play_circle:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/view_week:"),
    st.Page("pages/replay.py", title="Replay", icon=":material/history:"),
    st.Page("pages/eval.py", title="Eval", icon=":material/fact_check:"),
    st.Page("pages/learn.py", title="Learn", icon=":material/school:"),
]

page = st.navigation(PAGES)
shell.mark()
runs.settle_stale()
sidebar.render(locked=runs.any_active())
with st.sidebar:
    poll.room_box(sidebar.current_lang())  # the room's prediction polls, on every page
page.run()
