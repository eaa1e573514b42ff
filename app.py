"""Agent Patterns Playground — the Streamlit entry point: `streamlit run app.py`.

Pages are listed here (st.navigation does not scan pages/ once it is used); adding a page is one
line in PAGES. The model sidebar is drawn once, here, for every page.
"""

import streamlit as st

from pages.ui import presenter, room_session, runs, shell, sidebar, turns, uploads
from pages.ui.i18n import t

# Before anything can be uploaded through this session: bound what uploads the server holds, per file,
# per session and per server (the first script run of the server does it; later ones find it done).
uploads.install()

# An emoji favicon is drawn inline by the browser; a :material/…: one is fetched from
# fonts.gstatic.com, which an offline workshop room cannot reach (tests/browser/test_offline_browser.py).
st.set_page_config(page_title=t("app.title"), page_icon="🧭", layout="wide")

# Titles are read on every rerun, so the navigation follows the sidebar's language; the url paths
# stay the same in every language (they come from the file names).
PAGES = [
    st.Page(page="pages/home.py", title=t("app.home"), icon=":material/home:", default=True),
    st.Page(page="pages/playground.py", title=t("app.playground"), icon=":material/play_circle:"),
    st.Page(page="pages/compare.py", title=t("app.compare"), icon=":material/view_week:"),
    st.Page(page="pages/replay.py", title=t("app.replay"), icon=":material/history:"),
    st.Page(page="pages/eval.py", title=t("app.eval"), icon=":material/fact_check:"),
    st.Page(page="pages/learn.py", title=t("app.learn"), icon=":material/school:"),
    st.Page(page="pages/room.py", title=t("app.room"), icon=":material/groups:"),
]

page = st.navigation(PAGES)
# one page drawn at a time on this server (pages/ui/turns.py); a page that follows a run gives its turn back
with turns.page():
    shell.mark()
    presenter.bar()  # the presenter switch, in the header bar of every page
    runs.settle_stale()
    room_session.from_link()  # ?room=CODE joins that room, on whatever page the link opens
    sidebar.render(locked=runs.any_active())
    with st.sidebar:
        room_session.badge(sidebar.current_lang())  # "Room ABC123 · trainer", on every page
    uploads.notice(sidebar.current_lang())  # why this session's last upload was refused, on whatever page
    page.run()
