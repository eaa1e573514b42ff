"""Playground: pick a pattern and a scenario, edit its prompts and limits, run it, and watch every
step live; afterwards, its costs and downloads. A rerun redraws the stored run the same way."""

import streamlit as st

from agent_core import events as ev
from agent_core.offline import placeholder
from pages.ui import (
    call_views,
    controls,
    follow,
    fork_view,
    graphs,
    handoff,
    honesty,
    live,
    runs,
    setup_state,
    shell,
    sidebar,
    step_view,
    summary,
    text,
    tools_view,
)
from pages.ui.catalogue import VARIANTS
from pages.ui.i18n import t
from pages.ui.render import RunView, draw_run, hide_stale

shell.require("playground")

P = "pg"
lang = sidebar.current_lang()
setup_state.init_state(P, lang)
#: how draft diffs are laid out (labels: the catalogue's [playground.layout])
LAYOUTS = ("inline", "side by side")
st.session_state.setdefault(f"{P}_diff_layout", LAYOUTS[0])
record = runs.current(P)
running = record is not None and record.active
setup = setup_state.read_setup(P, lang, sidebar.temperature())

st.title(t("playground.title"))
setup_col, run_col = st.columns([4, 8], gap="large")
# the prompt editor gets the wide column, beside the run, so a template and its diff are not cut off
# keyed (a tab click reruns the page) so that Run can bring the run's tab forward (live._start)
run_tab, prompts_tab = run_col.tabs(
    [t("fits.run_tab"), t("playground.prompts_tab")], key=live.tabs_key(P), on_change="rerun"
)

with setup_col:
    # Run and Stop first: below the pattern, the scenario and its task box they fell under the fold of
    # a 1280×720 screen (the first visit opens on a runnable setup, so Run is the first thing to press)
    live.run_buttons(P, setup, running=running)
    honesty.run_note(len(setup.config.prompts) if setup.config else 0, lang)
    controls.pattern_picker(P, lang, disabled=running)
    step_view.controls(P, setup.variant.pattern, lang, disabled=running)
    with st.expander(t("playground.limits_tab"), icon=":material/tune:", expanded=True):
        controls.limit_controls(P, setup, disabled=running)
    tools_view.section(P, lang, disabled=running)  # MCP servers and their tools

with prompts_tab:
    honesty.prompts_note(lang)
    controls.prompt_editor(P, setup, lang, disabled=running)
with run_tab:
    handoff.arrived()  # a fork started here needs no page switch
    fork_view.open_editor(lang)
with run_tab, st.container(key=f"{P}_run_area"):
    claimed = runs.claim(P)
    hide_stale(f"{P}_run_area", live=claimed is not None)
    # the page follows the newest step while the run is drawn live (pages/ui/follow.py)
    follow.mark(f"{P}_run_area", live=claimed is not None or (running and record.handle is not None))
    # keyed, so it never inherits the children of another element drawn at this place before
    head = st.container(horizontal=True, vertical_alignment="center", key=f"{P}_head")
    if record is None:
        head.markdown(t("playground.press_run"))
        preview = setup.config.to_dict() if setup.config else {"pattern": setup.variant.pattern}
        st.graphviz_chart(graphs.dot(preview, vertical=graphs.vertical_in_run(preview)), width="content")
    else:
        head.caption(
            t(
                "playground.head",
                run=text.code_span(record.run_id, 20),
                variant=VARIANTS[setup_state.variant_of(record.config)].label_in(lang),
                models=", ".join(
                    f"{call_views.role_name(role, lang)}: {text.code_span(name)}"
                    for role, name in record.models.items()
                ),
            )
        )
        with head:
            fork_view.banner(record, lang)
        tools_view.fork_note(record, lang)  # a fork's MCP servers that are not connected here
        if placeholder(record.config.get("scenario"), record.config.get("pattern", ""), record.models.values()):
            st.caption(t("fits.placeholder_run"))  # offline, no script covers it: its verdicts mean nothing
        if sum(1 for e in record.events if isinstance(e, ev.Draft)) > 1:  # there are diffs to lay out
            head.segmented_control(
                t("playground.diffs"),
                list(LAYOUTS),
                key=f"{P}_diff_layout",
                format_func=lambda layout: t(f"playground.layout.{layout}"),
                required=True,
                disabled=running,
                label_visibility="collapsed",
                persist_state="session",
            )
        layout = st.session_state[f"{P}_diff_layout"]
        driven = claimed if claimed is not None else record if record.active and record.handle is not None else None
        if driven is not None:
            # the run lives in its handle's thread; this script run follows it until it pauses or ends
            view = RunView(
                driven.config,
                bound=driven.bound,
                key=f"{P}_view",
                task=driven.task,
                diff_layout=layout,
                recorded=fork_view.prefix_calls(driven),
            )
            view.catch_up(driven.typed_events())
            if live.drive(driven, view, sidebar.model_router()):
                view.point_at(step_view.about_to_run(driven))
                # last in the run area, after all the live drawing made: it sticks to the bottom of the
                # screen, the newest step stays in view above it, and nothing drawn before it moves
                step_view.banner(P, driven, lang)
                st.stop()  # paused: this script run ends here, and the pause costs the server nothing
            st.rerun()  # the run is over: unlock the inputs and add the costs and downloads
        events = record.typed_events()
        actions = fork_view.run_actions(record, events, lang, key=f"{P}_view", home=P)
        draw_run(
            record.config,
            events,
            bound=record.bound,
            key=f"{P}_view",
            task=record.task,
            diff_layout=layout,
            recorded=fork_view.prefix_calls(record),
            call_actions=actions,
        )
        live.spent(record, events, sidebar.model_router())  # where the live run's gauge was
        fork_view.compare_button(record, lang, key=f"{P}_fork_compare")
        st.divider()
        summary.downloads(record, key=f"{P}_dl", secrets=sidebar.secrets_to_redact())
        summary.costs(events, key=f"{P}_costs", lang=lang)  # in the page's language, like the run view
