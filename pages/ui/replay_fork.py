"""Replay's fork of an opened trace, run in place of the trace.

"Fork from here" on a call of the trace Replay shows opens the fork editor; Run starts the fork on
this page and draws it where the trace was drawn, by the same run view under the same key
(`rp_view`). The recorded prefix is the trace's own blocks, so the browser keeps them and only marks
them "recorded" — a switch to the Playground made it unmount the trace and build every block again
(1.3-1.4 s for a 300-event prefix). The rest streams live below them.

The fork is kept under `rp_runs` (runs.py). Its head says what it forks and offers Stop while it
runs; once it has ended: Compare with the original, Open in the Playground (its configuration, edited
prompts and limits included) and Back to the trace. A finished fork has Fork buttons of its own.
"""

from __future__ import annotations

import streamlit as st

from . import follow, fork_view, handoff, live, runs, sidebar, summary
from .i18n import t
from .player import AREA, K_LOADED, VIEW, Loaded, P, view_area
from .render import RunView, draw_run, hide_stale


def shown(loaded: Loaded) -> runs.RunRecord | None:
    """The fork drawn in place of `loaded`, if one was started from it; a fork of a trace that is no
    longer open is let go (stopped, if it still runs)."""
    state = st.session_state
    record = runs.current(P)
    if record is None or state.get(fork_view.SHOWN) != record.run_id:
        return None
    if state.get(K_LOADED) != loaded.ident:  # another trace was opened since
        if record.active:
            runs.stop(P)
        state.pop(fork_view.SHOWN, None)
        return None
    return record


def area(record: runs.RunRecord, lang: str) -> None:
    """The fork's head, then its run: followed live while its thread runs, redrawn once it has ended."""
    claimed = runs.claim(P)
    driven = claimed if claimed is not None else record if record.active and record.handle is not None else None
    # the place the player draws the trace in (not a live run's own place, see render.fresh_area): the
    # prefix is that drawing, and a live run here only ever adds to it
    with view_area(False) as head:
        with head:
            _head(record, lang, running=driven is not None)
            follow.mark(f"{VIEW}-flow", live=driven is not None)
        if driven is not None:
            view = RunView(
                driven.config, bound=driven.bound, key=VIEW, task=driven.task, recorded=fork_view.prefix_calls(driven)
            )
            view.catch_up(driven.typed_events())
            with head:  # the prefix is drawn: what is left of the trace below it is hidden while the rest streams
                hide_stale(AREA, live=True)
            if live.drive(driven, view, sidebar.model_router()):
                st.stop()  # paused (a fork started here has no breakpoints): this script run ends here
            st.rerun()  # over: the redraw below, with the buttons of a finished fork
        with head:
            hide_stale(AREA, live=False)  # its place held, so the live view and the redraw are the same tree
        events = record.typed_events()
        actions = fork_view.run_actions(record, events, lang, key=VIEW, home=P)
        draw_run(
            record.config,
            events,
            bound=record.bound,
            key=VIEW,
            task=record.task,
            recorded=fork_view.prefix_calls(record),
            call_actions=actions,
        )
    summary.downloads(record, key=f"{P}_fork_dl", secrets=sidebar.secrets_to_redact())


def _head(record: runs.RunRecord, lang: str, *, running: bool) -> None:
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", key=f"{P}_fork_head")
    with row:
        fork_view.banner(record, lang)
        if running:
            st.button(
                t("replay_fork.stop"),
                key=f"{P}_fork_stop",
                icon=":material/stop_circle:",
                on_click=runs.stop,
                args=(P,),
            )
            return
        fork_view.compare_button(record, lang, key=f"{P}_fork_compare")
        st.button(
            t("replay_fork.open"),
            key=f"{P}_fork_open",
            icon=":material/science:",
            on_click=handoff.load_into_playground,
            args=(record.config, record.task),
            help=t("replay_fork.open_help"),
            disabled=runs.any_active(),
        )
        st.button(
            t("replay_fork.back"),
            key=f"{P}_fork_back",
            icon=":material/arrow_back:",
            on_click=st.session_state.pop,
            args=(fork_view.SHOWN, None),
            help=t("replay_fork.back_help"),
        )
