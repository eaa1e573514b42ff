"""Running from a page: the Run and Stop buttons, and the loop that feeds the core's events to the
renderer while the session stores them.

Run's callback registers a pending run before the page draws, so that very script run draws every
input locked and then drives the run. Stop's callback ends the run at once (the old script run is
cut at its next st.* call, and `contextlib.closing` closes the core's generator and its HTTP
stream). Any other end — finished, failed, the toolbar's Stop, a page switch — unlocks the page too.
"""

from __future__ import annotations

from contextlib import closing

import streamlit as st

import agent_core as ac
from agent_core import events as ev
from agent_core.errors import AgentError
from agent_core.models import ModelRouter

from agent_core.pricing import worst_case

from . import costs, runs, setup_state, sidebar, step_view
from .render import RunView


def _start(prefix: str) -> None:
    setup = setup_state.read_setup(prefix, sidebar.current_lang(), sidebar.temperature())
    if setup.problems or setup.config is None or setup.bound is None or sidebar.model_problem():
        return  # the page shows why; the button is disabled then anyway
    router = sidebar.model_router()
    runs.begin(prefix, setup.task, setup.config.to_dict(), router.names(), setup.bound,
               step=step_view.requested(prefix, setup.config.pattern))


def run_buttons(prefix: str, setup: setup_state.Setup, *, running: bool) -> None:
    """Run and Stop, the call bound, and why Run is disabled when it is."""
    blocked = setup.problems or ([p] if (p := sidebar.model_problem()) else [])
    # one container whatever is in it, so the widgets below keep their place (and their state)
    with st.container():
        _buttons(prefix, setup, running, blocked)


def _buttons(prefix: str, setup: setup_state.Setup, running: bool, blocked: list[str]) -> None:
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    row.button("Run", key=f"{prefix}_run", type="primary", icon=":material/play_arrow:", on_click=_start,
               args=(prefix,), disabled=running or bool(blocked))
    row.button("Stop", key=f"{prefix}_stop", icon=":material/stop_circle:", on_click=runs.stop, args=(prefix,),
               disabled=not running)
    if setup.bound is not None:
        worst = ""
        if setup.config is not None:
            worst = " · " + costs.worst_case_text(worst_case(setup.config, setup.task, setup.bound),
                                                  sidebar.model_router(), sidebar.current_lang())
        row.caption(f"≤ **{setup.bound}** LLM calls{worst}")
    for problem in blocked:
        st.error(problem, icon=":material/block:")


def drive(record: runs.RunRecord, view: RunView, router: ModelRouter) -> None:
    """Iterate the core for a claimed run, storing and drawing every event, until it ends or is stopped."""
    try:
        try:
            stream = run_stream(record, router)
        except AgentError as exc:  # refused before any call (the page checks first; a race may still land here)
            for event in (ev.RunFailed(error_type=exc.code, message=str(exc)), ev.RunFinished(reason="error")):
                if runs.append(record, event):
                    view.add(event)
        else:
            gauge = st.empty()  # what the run has cost so far, against its worst case
            worst, calls = worst_case(record.run_config(), record.task, record.bound), []
            with closing(stream) as events:
                for event in events:
                    if not runs.append(record, event):
                        break  # stopped from another script run
                    view.add(event)
                    if isinstance(event, ev.LlmCall):
                        calls.append(event)
                        costs.spend_gauge(gauge, calls, worst, router, sidebar.current_lang())
        view.close()
        runs.finish(record)
    finally:
        runs.settle(record)  # cut short (toolbar Stop, page switch): unlock on the next script run


def run_stream(record: runs.RunRecord, router: ModelRouter):
    """The run's events: a fresh run, or a fork served from its parent's record up to the fork call."""
    if not record.fork:
        return ac.stream(record.task, record.run_config(), router)
    from agent_core.fork import Reply, fork
    from agent_core.messages import ToolCall

    data = record.fork.get("reply")
    reply = None if data is None else Reply(data.get("text", ""), tuple(
        ToolCall(c["id"], c["name"], c["arguments"]) for c in data.get("tool_calls", ())))
    parent = [ev.event_from_dict(e) for e in record.parent or ()]
    stream, _recorded = fork(parent, record.fork["at"], record.run_config(), router, reply=reply)
    return stream
