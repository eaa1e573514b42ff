"""Presenter mode: one switch (or `?present=1` in the URL) that turns a page into what a projector needs.

It hides the sidebar and the Playground's setup (all but Run and Stop, which move into the header bar
so they stay in reach while the page follows a run, as Compare's do) and Replay's source column, gives the run the
whole width, enlarges the text, draws graph labels at least 14 px high, and keeps the head of a run
view (verdicts, feedback, the latest diff) on screen while the steps scroll under it, in at most
HEAD_VH % of the screen's height. Following the newest step is pages.ui.follow's work, on in every mode.
Out of presenter mode, a live run's Stop (the Playground's, Compare's, a Replay fork's) floats at the
bottom of the screen while it can be pressed: the page follows the newest step, and Stop, drawn above
the run, would be far off screen (1-5 screens up after a few steps), reached only by scrolling against
the page's own following.

Everything is one fixed style block of our own: no run text or user text goes near st.html.
"""

from __future__ import annotations

import streamlit as st

from .i18n import t

#: the switch's session key, and the URL parameter that turns it on (`?present=1`)
K_ON, PARAM = "presenter_on", "present"
_YES = ("1", "true", "yes", "on")

#: Page font size in presenter mode: Streamlit sizes its text in rem, so this scales every label.
FONT_PX = 18
#: The most of the screen's height the stuck head of a run view takes, in percent: the run has the rest.
HEAD_VH = 40

_STYLE = """
html { font-size: %(font)dpx; }
[data-testid=stSidebar], [data-testid=stSidebarCollapsedControl], [data-testid=stExpandSidebarButton] {
  display: none !important; }
[data-testid=stMainBlockContainer] { max-width: 100%% !important; padding: 3.25rem 1.5rem 6rem !important; }
[data-testid=stMain] [data-testid=stHeading]:has(h1) { display: none; }
/* Playground: the columns stack, and of the setup only Run and Stop stay */
[data-testid=stHorizontalBlock]:has(> [data-testid=stColumn] .st-key-pg_run_area) { flex-direction: column;
  gap: 0.75rem; }
[data-testid=stHorizontalBlock]:has(> [data-testid=stColumn] .st-key-pg_run_area) > [data-testid=stColumn] {
  width: 100%% !important; flex: 1 1 auto !important; min-width: 100%%; }
[data-testid=stHorizontalBlock]:has(> [data-testid=stColumn] .st-key-pg_run_area)
  > [data-testid=stColumn]:first-child > [data-testid=stVerticalBlock] > :not(:has(.st-key-pg_run)) {
  display: none; }
/* Replay: the source column goes, the player takes the width */
[data-testid=stHorizontalBlock]:has(.st-key-rp_play, .st-key-rp_pause) > [data-testid=stColumn]:first-child {
  display: none; }
[data-testid=stHorizontalBlock]:has(.st-key-rp_play, .st-key-rp_pause) > [data-testid=stColumn] {
  width: 100%% !important; flex: 1 1 auto !important; }
/* the head of a run view stays in sight while the steps scroll under it, in at most %(head)d %% of the
   screen: the newest feedback and the latest diff side by side, each scrolling in its own box */
[data-testid=stLayoutWrapper]:has(> [class*="st-key-"][class*="_view-headline"]) { position: sticky; top: 3.5rem; z-index: 5;
  background: #fff; box-shadow: 0 8px 8px -8px rgba(0, 0, 0, 0.3); max-height: %(head)dvh; overflow: hidden; }
[class*="st-key-"][class*="_view-headline"] { gap: 0.5rem; }
[class*="st-key-"][class*="_view-head-body"] { flex-direction: row; align-items: flex-start; }
[class*="st-key-"][class*="_view-head-body"] > * { flex: 1 1 0; min-width: 0; max-height: calc(%(head)dvh - 4.5rem);
  overflow-y: auto; }
[class*="st-key-"][class*="_view-latest-diff"] { max-height: calc(%(head)dvh - 4.5rem) !important; }
/* Run and Stop (the Playground's, Compare's) ride in the header bar, left of this switch: in reach while
   the page follows a run */
.st-key-pg_run_row, .st-key-cmp_run_row { position: fixed; top: 0.45rem; left: 1.5rem; z-index: 999991; width: auto;
  max-width: calc(100vw - 26rem); flex-wrap: nowrap; }
.st-key-pg_run_row [data-testid=stCaptionContainer], .st-key-cmp_run_row [data-testid=stCaptionContainer] {
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
[data-testid=stLayoutWrapper]:has(> .st-key-pg_run_row, > .st-key-cmp_run_row) { height: 0; margin: 0; }
[data-testid=stTabs] [role=tabpanel], [data-testid=stMainBlockContainer] { overflow: visible !important; }
/* graphs at their drawn size (labels >= 14 px), never wider than the page */
[data-testid=stGraphVizChart] svg { width: auto !important; height: auto !important; max-width: 100%%; }
"""

#: where the switch sits: in the header bar, left of the running indicator and the app menu, so it takes
#: no room on the page
_BAR = """
.st-key-presenter_bar { position: fixed; top: 0.55rem; right: 10rem; z-index: 999991; width: auto; }
[data-testid=stElementContainer]:has(> .st-key-presenter_bar),
[data-testid=stLayoutWrapper]:has(> .st-key-presenter_bar) { height: 0; margin: 0; }
"""


#: a live run's Stop, out of presenter mode: at the bottom of the screen while it can be pressed (enabled),
#: except at a step-mode pause, whose bar (stuck to the bottom of the screen) has a Stop of its own
_REACH = """
.stApp:not(:has(.st-key-pg_pause)) .st-key-pg_stop:has(button:enabled), .st-key-cmp_stop:has(button:enabled),
.st-key-rp_fork_stop:has(button:enabled) { position: fixed; bottom: 1.25rem; left: 50%; transform: translateX(-50%);
  z-index: 999992; width: auto; }
.stApp:not(:has(.st-key-pg_pause)) .st-key-pg_stop button:enabled, .st-key-cmp_stop button:enabled,
.st-key-rp_fork_stop button:enabled { background: #fff; box-shadow: 0 4px 14px rgba(0, 0, 0, 0.25); }
"""


def _from_url() -> bool:
    return str(st.query_params.get(PARAM, "")).lower() in _YES


def _sync_url() -> None:
    """The URL says what the switch says, so a presenter can bookmark or share `?present=1`."""
    if st.session_state.get(K_ON):
        st.query_params[PARAM] = "1"
    elif PARAM in st.query_params:
        del st.query_params[PARAM]


def active() -> bool:
    """Whether presenter mode is on for this session (the switch, first set from the URL)."""
    if K_ON not in st.session_state:
        st.session_state[K_ON] = _from_url()
    return bool(st.session_state[K_ON])


def is_on() -> bool:
    """Whether presenter mode is on, without setting anything (False outside a script run)."""
    try:
        return bool(st.session_state.get(K_ON))
    except Exception:  # no session: a core test, the CLI
        return False


def bar() -> bool:
    """The presenter switch, in the header bar of every page, and presenter mode's style when on."""
    on = active()
    with st.container(key="presenter_bar"):
        st.toggle(t("presenter.switch"), key=K_ON, on_change=_sync_url, help=t("presenter.help"))
    st.html(f"<style>{_BAR}{_STYLE % {'font': FONT_PX, 'head': HEAD_VH} if on else _REACH}</style>")
    return on
