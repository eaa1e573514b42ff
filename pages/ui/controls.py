"""The setup widgets: pattern and scenario (or free task with its tools), every prompt, every limit and
switch — drawn under a page's key prefix; the state they edit is setup_state.py's scheme."""

from __future__ import annotations

import difflib
import re

import streamlit as st

from agent_core.mock_tools import TOOLS
from agent_core.patterns.registry import LIMITS, specs_for
from agent_core.scenarios import SCENARIOS

from . import call_views, text
from .catalogue import SWITCHES, VARIANTS, limit_help, limit_label
from .i18n import lang as page_lang
from .i18n import t
from .setup_state import (
    FREE,
    Setup,
    _as_free_task,
    _reset_prompt,
    _variant_changed,
    apply_scenario,
    free_task_changed,
    k,
    limits_of,
    prompt_key,
    scenario_id,
    scenarios_of,
    switches_of,
)

# --- drawing --------------------------------------------------------------------------------------


def pattern_picker(prefix: str, lang: str, *, disabled: bool) -> None:
    """Pattern, scenario (or free task with its tools), and what to watch for."""
    # one container whatever it holds, so the widgets drawn after it keep their place (and state)
    with st.container():
        _pattern_picker(prefix, lang, disabled)


def _pattern_picker(prefix: str, lang: str, disabled: bool) -> None:
    state = st.session_state
    st.selectbox(
        t("controls.pattern", lang),
        list(VARIANTS),
        format_func=lambda v: VARIANTS[v].label_in(lang),
        key=k(prefix, "variant"),
        disabled=disabled,
        on_change=_variant_changed,
        args=(prefix,),
        persist_state="session",
    )
    variant = VARIANTS[state[k(prefix, "variant")]]
    st.caption(variant.blurb_in(lang))
    options = [*scenarios_of(variant), FREE]
    free = t("controls.free", lang)
    st.selectbox(
        t("controls.scenario", lang),
        options,
        key=k(prefix, "scenario"),
        disabled=disabled,
        persist_state="session",
        on_change=apply_scenario,
        args=(prefix,),
        format_func=lambda s: free if s == FREE else short_title(s, lang),
    )
    sid = scenario_id(prefix)
    if sid == FREE:
        st.text_area(
            t("controls.task", lang),
            key=k(prefix, "free_task"),
            height=110,
            disabled=disabled,
            persist_state="session",
            placeholder=t("controls.task_placeholder", lang),
            on_change=free_task_changed,
            args=(prefix,),
        )
        if variant.pattern_spec.uses_tools:
            st.multiselect(
                t("controls.tools", lang),
                list(TOOLS),
                key=k(prefix, "tools"),
                disabled=disabled,
                persist_state="session",
                help=t("controls.tools_help", lang),
                placeholder=t("choose.tools", lang),
            )
        return
    scenario = SCENARIOS[sid]
    with st.container(border=True, key=k(prefix, "task_box")):
        st.markdown(t("controls.task_line", lang, task=text.escape(scenario.task_text(lang))))
        if scenario.tools:
            st.caption(t("controls.tools_line", lang, tools=", ".join(text.code_span(name) for name in scenario.tools)))
        st.caption(f":material/visibility: {text.escape(scenario.watch(lang))}")
    st.button(
        t("controls.to_free", lang),
        key=k(prefix, "to_free"),
        icon=":material/edit:",
        disabled=disabled,
        on_click=_as_free_task,
        args=(prefix,),
        type="tertiary",
    )


def short_title(scenario_id: str, lang: str) -> str:
    """A scenario's title without its parenthesised pattern note, which the pattern box above already
    says: the full title is cut off in the narrow setup column at 1280×720."""
    title = SCENARIOS[scenario_id].title(lang)
    return re.split(r" \(|（", title, maxsplit=1)[0]


def prompt_editor(prefix: str, setup: Setup, lang: str, *, disabled: bool) -> None:
    """Every prompt of the pattern, editable in place, with reset, a diff against the default and
    the placeholder problem, if any."""
    pattern = setup.variant.pattern
    specs = specs_for(pattern)
    edited = sum(
        1 for key, spec in specs.items() if st.session_state.get(prompt_key(prefix, pattern, key)) != spec.default(lang)
    )
    st.caption(t("controls.prompts_line", lang, n=len(specs), edited=edited))
    for key, spec in specs.items():
        name = prompt_key(prefix, pattern, key)
        default = spec.default(lang)
        body = st.session_state.get(name, default)
        error = setup.prompt_errors.get(key)
        icon = ":material/error:" if error else ":material/edit_note:" if body != default else ":material/description:"
        # the prompt's key is an identifier: shown as code, beside its role in words
        with st.expander(f"{text.code_span(key)} · {call_views.role_name(spec.role, lang)}", icon=icon):
            st.caption(spec.purpose(lang))
            holders = [t("controls.required", lang, name=f"`{{{p}}}`") for p in sorted(spec.required)]
            holders += [f"`{{{p}}}`" for p in sorted(spec.optional)]
            if holders:
                st.caption(t("controls.placeholders", lang, names=" · ".join(holders)))
            st.text_area(
                t("controls.template", lang),
                key=name,
                height=240,
                disabled=disabled,
                label_visibility="collapsed",
                persist_state="session",
            )
            if error:
                st.error(text.escape(error), icon=":material/error:")
            if body != default:
                st.button(
                    t("controls.reset", lang),
                    key=f"{name}__reset",
                    icon=":material/restart_alt:",
                    on_click=_reset_prompt,
                    args=(name, default),
                    disabled=disabled,
                )
                diff = "\n".join(
                    difflib.unified_diff(
                        default.splitlines(),
                        body.splitlines(),
                        t("controls.default", lang),
                        t("controls.edited", lang),
                        lineterm="",
                    )
                )
                st.code(diff, language="diff", wrap_lines=True)  # an edited long line wraps, never cut off


def limit_controls(prefix: str, setup: Setup, *, disabled: bool) -> None:
    """Every limit of the pattern (ranges enforced by the inputs) and its switches, with the bound."""
    variant = setup.variant
    lang = page_lang()
    if setup.bound is not None:  # a worst case, said in plain words
        st.metric(t("fits.bound_label", lang), setup.bound, help=t("controls.bound_help", lang))
        st.caption(t("fits.bound_line", lang))
    names = limits_of(variant)
    cols = st.columns(2)
    for i, name in enumerate(names):
        lim = LIMITS[name]
        low = max(lim.low, variant.floors.get(name, lim.low))
        step = 1000 if name == "max_total_tokens" else 1
        cols[i % 2].number_input(
            limit_label(name, lang),
            min_value=low,
            max_value=lim.high,
            step=step,
            key=k(prefix, f"limit_{name}"),
            help=f"`{name}` · {limit_help(name, lang)} ({low}–{lim.high})",
            disabled=disabled,
            persist_state="session",
        )
    for name in switches_of(variant):
        switch = SWITCHES[name][0]
        st.toggle(
            switch.label(lang),
            key=k(prefix, f"opt_{name}"),
            help=switch.help(lang),
            disabled=disabled,
            persist_state="session",
        )
    for field in variant.pattern_spec.text_fields:
        if field.when is None or st.session_state.get(k(prefix, f"opt_{field.when}")):
            st.text_area(
                field.label(lang),
                key=k(prefix, field.name),
                height=field.height,
                disabled=disabled,
                persist_state="session",
                help=field.help(lang),
            )
