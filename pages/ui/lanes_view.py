"""Compare's lane widgets: the shared task with the presets and the lane count, one card per lane
(the Playground's own controls under the lane's prefix), Run and Stop, and a column per lane for its
run; lane_state.py holds the state scheme and drives the runs, lane_results.py compares them after.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from agent_core.mock_tools import TOOLS
from agent_core.offline import placeholder
from agent_core.patterns.registry import specs_for
from agent_core.scenarios import SCENARIOS

from . import controls, setup_state, sidebar, text
from .catalogue import SWITCHES, VARIANTS
from .i18n import lang as i18n_lang
from .i18n import role_labels, t, words
from .lane_presets import PRESETS, offline_note
from .lane_state import (
    K_COUNT,
    K_FREE_TASK,
    K_SCENARIO,
    K_TOOLS,
    LETTERS,
    Comparison,
    P,
    _scenario_changed,
    _variant_changed,
    apply_preset,
    auto_name,
    lane_prefix,
    start,
    stop,
    view_key,
)
from .setup_state import FREE, k, prompt_key

# --- drawing the setup ----------------------------------------------------------------------------


def task_picker(lang: str, *, disabled: bool) -> None:
    """The shared task (any scenario, or a free task with tools), the presets and the lane count."""
    state = st.session_state
    left, right = st.columns([3, 2], gap="large")
    with left:
        titles = {s: SCENARIOS[s].title(lang) for s in SCENARIOS} | {FREE: t("lanes_view.free", lang)}
        st.selectbox(
            t("lanes_view.task", lang),
            [*SCENARIOS, FREE],
            key=K_SCENARIO,
            disabled=disabled,
            persist_state="session",
            on_change=_scenario_changed,
            format_func=titles.__getitem__,
        )
        sid = state[K_SCENARIO]
        if sid == FREE:
            st.text_area(
                t("lanes_view.task", lang),
                key=K_FREE_TASK,
                height=90,
                disabled=disabled,
                persist_state="session",
                placeholder=t("lanes_view.free_placeholder", lang),
                label_visibility="collapsed",
            )
            st.multiselect(
                t("lanes_view.tools", lang),
                list(TOOLS),
                key=K_TOOLS,
                disabled=disabled,
                persist_state="session",
                help=t("lanes_view.tools_help", lang),
                placeholder=t("choose.tools", lang),
            )
        else:
            scenario = SCENARIOS[sid]
            with st.container(border=True, key=f"{P}_task_box"):
                st.markdown(t("lanes_view.task_line", lang, task=text.escape(scenario.task_text(lang))))
                if scenario.tools:
                    st.caption(
                        t(
                            "lanes_view.tools_line",
                            lang,
                            tools=", ".join(text.code_span(tool) for tool in scenario.tools),
                        )
                    )
                st.caption(f":material/visibility: {text.escape(scenario.watch(lang))}")
    with right:
        st.markdown(t("lanes_view.presets", lang))
        for name, preset in PRESETS.items():
            # offline, a comparison is offered only where the scripts play every lane: a lane no
            # script covers on this task would play placeholder text, so the button says why it is off
            note = offline_note(preset, state[K_SCENARIO], lang) if sidebar.is_offline() else ""
            st.button(
                preset.label(lang),
                key=f"{P}_preset_{name}",
                icon=preset.icon,
                disabled=disabled or bool(note),
                help=f"{preset.help(lang)}\n\n{note}" if note else preset.help(lang),
                on_click=apply_preset,
                args=(name,),
                width="stretch",
            )
            if note:
                with st.container(key=f"{P}_preset_{name}_offline"):
                    st.caption(f":material/smart_toy: {note}")
        st.segmented_control(
            t("lanes_view.count", lang),
            [2, 3, 4],
            key=K_COUNT,
            required=True,
            disabled=disabled,
            persist_state="session",
            help=t("lanes_view.count_help", lang),
        )


def lane_cards(setups: Sequence[setup_state.Setup], lang: str, *, disabled: bool) -> None:
    """One card per lane: name, pattern, model, and the Playground's limit and prompt editors."""
    for i, (column, setup) in enumerate(zip(st.columns(len(setups), gap="small"), setups, strict=True)):
        with column.container(border=True, key=f"{P}_card{i}"):
            _lane_card(i, setup, lang, disabled=disabled)


def _lane_card(i: int, setup: setup_state.Setup, lang: str, *, disabled: bool) -> None:
    p = lane_prefix(i)
    state = st.session_state
    w = words("lanes_view", lang)
    st.markdown(w["lane"].format(letter=LETTERS[i]))
    st.text_input(w["name"], key=k(p, "name"), placeholder=auto_name(i), disabled=disabled, persist_state="session")
    variants = {v: VARIANTS[v].label_in(lang) for v in VARIANTS}
    st.selectbox(
        w["pattern"],
        list(VARIANTS),
        format_func=variants.__getitem__,
        key=k(p, "variant"),
        disabled=disabled,
        on_change=_variant_changed,
        args=(i,),
        persist_state="session",
    )
    offered = sidebar.model_choices()  # a locked room: one of the operator's models, never a typed name
    if not sidebar.is_offline() and offered is not None:
        names = {
            "": w["model_placeholder"].format(model=sidebar.model_router().names()["default"]),
            **{m: m for m in offered},
        }
        if state.get(k(p, "model")) not in names:
            state[k(p, "model")] = ""
        st.selectbox(
            w["model"],
            list(names),
            format_func=names.__getitem__,
            key=k(p, "model"),
            disabled=disabled,
            persist_state="session",
            help=w["model_help"],
        )
    elif not sidebar.is_offline():
        st.text_input(
            w["model"],
            key=k(p, "model"),
            disabled=disabled,
            persist_state="session",
            placeholder=w["model_placeholder"].format(model=sidebar.model_router().names()["default"]),
            help=w["model_help"],
        )
    pattern = setup.variant.pattern
    edited = sum(
        1 for key, spec in specs_for(pattern).items() if state.get(prompt_key(p, pattern, key)) != spec.default(lang)
    )
    traits = [SWITCHES[n][0].label(lang) for n in setup_state.switches_of(setup.variant) if state.get(k(p, f"opt_{n}"))]
    if edited:
        traits.append((w["edited_one"] if edited == 1 else w["edited"]).format(n=edited))
    if setup.bound is not None:
        traits.insert(0, w["bound"].format(bound=setup.bound))
    st.caption(" · ".join(traits))
    if edited and sidebar.is_offline():
        st.caption(w["scripted"])
    if setup.config is not None and placeholder(setup.scenario, pattern, sidebar.model_router().names().values()):
        with st.container(key=f"{p}_placeholder"):
            st.caption(t("lane_presets.placeholder_lane", lang))
    with st.expander(w["limits"], icon=":material/tune:"):
        controls.limit_controls(p, setup, disabled=disabled)
    with st.expander(w["prompts"], icon=":material/edit_note:"):
        controls.prompt_editor(p, setup, lang, disabled=disabled)
    for problem in setup.problems:
        st.error(problem, icon=":material/block:")


def run_buttons(setups: Sequence[setup_state.Setup], *, running: bool) -> None:
    """Run (all lanes at once) and Stop (every lane), with why Run is disabled when it is."""
    w = words("lanes_view")
    blocked = [p for s in setups for p in s.problems]
    model = sidebar.model_problem()
    # keyed: presenter mode moves this row into the header bar (presenter._STYLE)
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", key=f"{P}_run_row")
    row.button(
        w["run"],
        key=f"{P}_run",
        type="primary",
        icon=":material/play_arrow:",
        on_click=start,
        disabled=running or bool(blocked) or model is not None,
    )
    row.button(w["stop"], key=f"{P}_stop", icon=":material/stop_circle:", on_click=stop, disabled=not running)
    bounds = [s.bound for s in setups if s.bound is not None]
    row.caption(w["run_line"].format(n=len(setups), calls=sum(bounds)))
    if model:
        st.error(model, icon=":material/block:")
    elif blocked:
        st.caption(w["blocked"])


# --- drawing the runs -----------------------------------------------------------------------------


def lane_columns(comparison: Comparison, lang: str | None = None) -> list[Any]:
    """A column per lane with its name and models; returns the containers the views draw into."""
    lang = lang or i18n_lang()
    holders = []
    for i, column in enumerate(st.columns(len(comparison.lanes), gap="small")):
        record = comparison.lanes[i]
        name = comparison.names[i]
        variant = VARIANTS[setup_state.variant_of(record.config)].label_in(lang)
        roles = role_labels(lang)
        models = ", ".join(
            text.code_span(m) if role == "default" else f"{text.inline(roles.get(role, role))}: {text.code_span(m)}"
            for role, m in record.models.items()
        )
        with column:
            st.markdown(f"##### {text.inline(name, 80)}")
            st.caption(models if name.endswith(f" · {variant}") else f"{text.inline(variant)} · {models}")
            if placeholder(record.config.get("scenario"), record.config.get("pattern", ""), record.models.values()):
                st.caption(t("lane_presets.placeholder_lane", lang))
            holders.append(st.container(key=f"{view_key(i)}-column"))
    return holders
