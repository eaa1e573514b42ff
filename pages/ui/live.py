"""Running from a page: the Run and Stop buttons, and the loop that follows a run to the renderer
while the session stores its events.

Run's callback registers a pending run before the page draws; that script run gives it a RunHandle
(agent_core.stepping), whose thread runs the core, and follows it. The run outlives the script run:
a click anywhere starts a new script run that follows on from the stored events. Stop's callback
ends it at once (the handle closes the core's generator and its HTTP stream); a pause ends only the
script run. Every kind of end unlocks the page.
"""

from __future__ import annotations

import threading
from dataclasses import replace

import streamlit as st

import agent_core as ac
from agent_core import events as ev
from agent_core.models import ModelRouter
from agent_core.patterns import registry
from agent_core.pricing import worst_case
from agent_core.stepping import RunHandle

from . import costs, room_cast, runs, setup_state, sidebar, step_view, tools_view, turns
from .i18n import t
from .render import RunView

#: the longest a script run following a run waits before it looks again (the run wakes it sooner)
POLL_S = 0.05
#: the longest a fork's first script run waits for its recorded prefix, to draw it in one go
PREFIX_WAIT_S = 2.0


def _start(prefix: str) -> None:
    setup = setup_state.read_setup(prefix, sidebar.current_lang(), sidebar.temperature())
    if setup.problems or setup.config is None or setup.bound is None or sidebar.model_problem():
        return  # the page shows why; the button is disabled then anyway
    router = sidebar.model_router()
    record = runs.begin(
        prefix,
        setup.task,
        tools_view.with_tools(prefix, setup.config.to_dict()),
        router.names(),
        setup.bound,
        step=step_view.requested(prefix, setup.config.pattern),
    )
    # the run starts now, in the click's callback, and the page that follows it is drawn meanwhile: when
    # forty sessions press Run at once, drawing each page first held every run back by a second or two
    _start_handle(record, router)
    # a person who pressed Run from the prompt editor's tab is taken to the run they started
    st.session_state[tabs_key(prefix)] = t("fits.run_tab")


def tabs_key(prefix: str) -> str:
    """The key of the page's tabs beside the setup (the run, the prompt editor): Run selects the run's."""
    return f"{prefix}_tabs"


def run_buttons(prefix: str, setup: setup_state.Setup, *, running: bool) -> None:
    """Run and Stop, the call bound, and why Run is disabled when it is."""
    blocked = setup.problems or ([p] if (p := sidebar.model_problem()) else [])
    # one container whatever is in it, so the widgets below keep their place (and their state)
    with st.container():
        _buttons(prefix, setup, running, blocked)


def _buttons(prefix: str, setup: setup_state.Setup, running: bool, blocked: list[str]) -> None:
    # keyed: presenter mode moves this row into the header bar (presenter._STYLE)
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", key=f"{prefix}_run_row")
    row.button(
        t("live.run"),
        key=f"{prefix}_run",
        type="primary",
        icon=":material/play_arrow:",
        on_click=_start,
        args=(prefix,),
        disabled=running or bool(blocked),
    )
    row.button(
        t("live.stop"),
        key=f"{prefix}_stop",
        icon=":material/stop_circle:",
        on_click=runs.stop,
        args=(prefix,),
        disabled=not running,
    )
    if setup.bound is not None:
        # the bound said plainly; the token worst case (a ceiling of ceilings: every call at its largest
        # prompt and full output cap) only on hover, where it cannot read as what the run will use
        worst = None
        if setup.config is not None:
            worst = costs.worst_case_text(
                worst_case(setup.config, setup.task, setup.bound), sidebar.model_router(), sidebar.current_lang()
            )
        record = runs.current(prefix)
        if record is not None and record.active and record.handle is not None and record.handle.paused:
            made = sum(1 for e in record.typed_events() if isinstance(e, ev.LlmCall))
            line = t("bound_plain.so_far_one" if made == 1 else "bound_plain.so_far", calls=made, bound=record.bound)
        else:
            line = t("live.bound", bound=setup.bound)
        row.caption(line, help=t("bound_plain.help", worst=worst) if worst else None)
    for problem in blocked:
        st.error(problem, icon=":material/block:")


def drive(record: runs.RunRecord, view: RunView, router: ModelRouter) -> bool:
    """Follow a Playground run as its RunHandle's thread makes events — starting the handle when the
    run is new — storing and drawing each, until the run pauses (True) or ends (False).

    The run lives in that thread, not in this script run: a click anywhere reruns the page and the
    next script run follows on from the stored events; only Stop (or a pause left idle) ends it. A
    paused run makes this script run end, so it costs the server nothing.
    """
    if record.handle is None:
        _start_handle(record, router)
    turns.done()  # the page is drawn: following the run takes no turn
    handle = record.handle
    if record.fork and not record.events:
        # a fork's recorded prefix comes at once: draw it the quick way a redraw does, not event by event
        record.prefix_ready.wait(PREFIX_WAIT_S)
        view.catch_up(runs.absorb(record))
    gauge = st.empty()  # what the run has cost so far, against its worst case
    worst = worst_case(record.run_config(), record.task, record.bound)
    calls = [e for e in record.typed_events() if isinstance(e, ev.LlmCall)]
    while True:
        fresh = runs.absorb(record)  # stored first, drawn after: a click that cuts this run loses nothing
        for event in fresh:
            view.add(event)
            if isinstance(event, ev.LlmCall):
                calls.append(event)
                costs.spend_gauge(gauge, calls, worst, router, sidebar.current_lang())
        if handle.paused and handle.events.empty():
            view.clock(handle.now())  # Elapsed is the run's time so far, the pause included
            view.flush()
            return True
        if not record.active:
            view.close()
            return False
        handle.changed.wait(POLL_S)  # woken at once by the next event or pause
        handle.changed.clear()


def spent(record: runs.RunRecord, events: list[ev.Event], router: ModelRouter) -> None:
    """A finished run's spend gauge (`events`: its typed events), in the place `drive` drew it live: the
    redraw keeps the live view's element tree, so the end of a run shrinks nothing."""
    calls = [e for e in events if isinstance(e, ev.LlmCall)]
    gauge = st.empty()
    if calls:
        costs.spend_gauge(
            gauge, calls, worst_case(record.run_config(), record.task, record.bound), router, sidebar.current_lang()
        )


def _start_handle(record: runs.RunRecord, router: ModelRouter) -> None:
    """Give a claimed run its RunHandle (with the breakpoints step mode asked for) and start it."""
    prefix = record.fork["at"] - 1 if record.fork else 0
    calls = [0]
    cast = room_cast.for_run(record)  # a room's trainer: the run on every seat, and the room's poll on it
    record.prefix_ready = threading.Event()
    if not prefix:
        record.prefix_ready.set()

    def on_event(event: ev.Event) -> None:  # in the run's thread
        if cast is not None:  # every event, every end (finished, failed, stopped, idle, its tab gone)
            cast.in_run(event)
        if isinstance(event, ev.LlmCall):
            calls[0] += 1
            if calls[0] >= prefix:
                record.prefix_ready.set()
        if isinstance(event, ev.RunFinished):
            record.prefix_ready.set()

    spec = registry.get(record.run_config().pattern)  # its roles' grammar goes with every pause
    # the MCP tools are looked up here, in the session's script thread, not in the run's
    tools = tools_view.registry_for(record.config, record.parent or [], (record.fork or {}).get("parent_config"))
    record.handle = RunHandle(
        lambda gate: run_stream(record, replace(router, gate=gate), tools),
        step_view.breakpoints(record.step or {}),
        on_event=on_event,
        owner_alive=session_alive(),
        roles={r.name: r for r in spec.roles},
    ).start()


def session_alive():  # noqa: ANN202 - a () -> bool, or None
    """Whether this browser session is still connected: a run goes on through clicks and page switches,
    but stops when its tab closes. None where there is no server session to ask (AppTest)."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return None
    runtime, session = Runtime.instance(), ctx.session_id
    if runtime.is_active_session(session) is not True:
        return None  # (AppTest's runtime is a mock, whose every answer is a truthy mock)
    return lambda: runtime.is_active_session(session)


def take_clicks() -> None:
    """Let this script run take a click now. A script run takes a rerun request (a click, a vote) only
    when it draws an element or reads its session state, and one that waits for news (a seat following
    the room) does neither: reading a key lets the click through without drawing anything. When a click
    came, this raises Streamlit's rerun exception, and the page's next script run starts."""
    _ = "_" in st.session_state


def run_stream(record: runs.RunRecord, router: ModelRouter, tools=None):  # noqa: ANN001 - a ToolRegistry or None
    """The run's events: a fresh run, or a fork served from its parent's record up to the fork call."""
    if not record.fork:
        return ac.stream(record.task, record.run_config(), router, tools)
    from agent_core.fork import Reply, fork
    from agent_core.messages import ToolCall

    data = record.fork.get("reply")
    reply = (
        None
        if data is None
        else Reply(
            data.get("text", ""),
            tuple(ToolCall(c["id"], c["name"], c["arguments"]) for c in data.get("tool_calls", ())),
        )
    )
    parent = record.parent or []
    stream, _recorded = fork(parent, record.fork["at"], record.run_config(), router, tools, reply=reply)
    return stream
