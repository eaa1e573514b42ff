"""What to run: pattern, scenario or free task, every prompt, every limit and switch — widgets a page
draws under its own key prefix (so a Compare page can hold several sets), and `read_setup`, which
turns the values in session_state into a validated RunConfig without drawing anything (the Run
button's callback uses it before the page draws).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

import agent_core as ac
from agent_core.config import LIMITS, RunConfig
from agent_core.errors import AgentError, TemplateError
from agent_core.mock_tools import TOOLS
from agent_core.models import ModelRouter
from agent_core.prompts import specs_for, validate
from agent_core.scenarios import SCENARIOS

from . import text

FREE = "__free__"


@dataclass(frozen=True)
class Variant:
    """A pattern as the user picks it: the core pattern plus the options that define the variant."""

    id: str
    label: str
    pattern: str
    forced: Mapping[str, Any] = field(default_factory=dict)
    #: limits and switches that do nothing in this variant
    hidden: frozenset[str] = frozenset()
    #: lowest allowed value of a limit in this variant (above LIMITS' own)
    floors: Mapping[str, int] = field(default_factory=dict)
    blurb: str = ""
    scenario: str = ""


VARIANTS: dict[str, Variant] = {v.id: v for v in (
    Variant("react", "ReAct", "react", {"max_reflection_rounds": 0}, frozenset({"max_reflection_rounds"}),
            blurb="Reason, call a tool, read the observation, repeat until it can answer (seeds 01, 05).",
            scenario="dentist-booking"),
    Variant("react-advisor", "ReAct + reflection advisor", "react", {}, floors={"max_reflection_rounds": 1},
            blurb="ReAct, and a judge reviews every final answer; its feedback sends the agent back to work "
                  "(seed 01).", scenario="weather-report"),
    Variant("plan-execute", "Plan-and-Execute", "plan-execute", {"reflector": False},
            frozenset({"max_step_retries", "selective_reflection"}),
            blurb="A planner writes the steps; a goal-blind executor runs each one; a synthesizer answers "
                  "(seeds 03, 05).", scenario="order-99999"),
    Variant("plan-execute-reflector", "Plan-and-Execute + Reflector", "plan-execute", {"reflector": True},
            blurb="Plan-and-Execute with a Reflector judging every step: PASS, RETRY or REPLAN (seed 03).",
            scenario="order-99999"),
    Variant("reflection", "Reflection", "reflection",
            blurb="Draft, critique, refine — until the critic finds nothing to improve (seeds 02, 04, 05).",
            scenario="primes"),
)}

#: switch -> (label, help, patterns)
SWITCHES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "text_protocol": ("Text protocol", "Thought / Action / Action Input lines instead of native tool calls, "
                      "for models without tool calling.", ("react",)),
    "goal_aware_executor": ("Goal-aware executor", "Show the user's goal to the executor too (seed 03 argues "
                            "it should stay goal-blind; try both).", ("plan-execute",)),
    "rule_precheck": ("Rule pre-check", "A tool result with an error field means REPLAN at once, without "
                      "asking the Reflector (also works without it).", ("plan-execute",)),
    "selective_reflection": ("Selective reflection", "Reflect only on steps that used a tool.", ("plan-execute",)),
    "code_task": ("Code task", "Drafts are code: fences and prose around them are dropped.", ("reflection",)),
    "use_trajectory": ("Trajectory memory", "The refiner sees every earlier draft and critique.", ("reflection",)),
    "graph_style": ("Graph style", "A generator and a reviewer take turns on one conversation (seed 02).",
                    ("reflection",)),
    "test_evaluator": ("Unit-test evaluator", "Run every draft against the unit tests below; failures force "
                       "a revision.", ("reflection",)),
}

LIMIT_LABELS = {
    "max_rounds": "Max rounds", "max_reflection_rounds": "Max judge rounds", "memory_window": "Memory window",
    "max_plan_steps": "Max plan steps", "max_step_rounds": "Max rounds per step",
    "max_step_retries": "Max retries per step",
    "max_replans": "Max re-plans", "max_iterations": "Max critique rounds", "max_llm_calls": "Budget · LLM calls",
    "max_total_tokens": "Budget · tokens",
}


@dataclass
class Setup:
    """Everything a Run needs, read from session_state, with what is wrong with it."""

    variant: Variant
    scenario: str | None
    task: str
    config: RunConfig | None
    bound: int | None
    problems: list[str]
    prompt_errors: dict[str, str]


def variant_of(config: Mapping[str, Any]) -> str:
    """The variant a run's config dict belongs to."""
    pattern = config.get("pattern", "react")
    if pattern == "react":
        return "react-advisor" if config.get("max_reflection_rounds") else "react"
    if pattern == "plan-execute":
        return "plan-execute-reflector" if config.get("reflector") else "plan-execute"
    return "reflection"


# --- keys -----------------------------------------------------------------------------------------

def k(prefix: str, name: str) -> str:
    return f"{prefix}_{name}"


def prompt_key(prefix: str, pattern: str, key: str) -> str:
    return f"{prefix}_prompt_{pattern.replace('-', '_')}_{key}"


def limits_of(variant: Variant) -> list[str]:
    return [n for n, lim in LIMITS.items() if variant.pattern in lim.patterns and n not in variant.hidden]


def switches_of(variant: Variant) -> list[str]:
    return [n for n, (_, _, pats) in SWITCHES.items() if variant.pattern in pats and n not in variant.hidden]


def scenarios_of(variant: Variant) -> list[str]:
    return [s.id for s in SCENARIOS.values() if s.pattern == variant.pattern]


def scenario_id(prefix: str) -> str:
    """The chosen scenario's id. The scenario box shows titles in the run language; when the language
    changes under it, the browser can send back the old title instead of the id, so map it home."""
    state = st.session_state
    value = state.get(k(prefix, "scenario"), FREE)
    if value != FREE and value not in SCENARIOS:
        value = next((s.id for s in SCENARIOS.values() if value in s.title.values()), FREE)
        state[k(prefix, "scenario")] = value
    return value


def default_scenario(variant: Variant) -> str:
    """The scenario a variant opens with: the one that shows its mechanism best."""
    return variant.scenario if variant.scenario in SCENARIOS else (scenarios_of(variant) or [FREE])[0]


# --- state ----------------------------------------------------------------------------------------

def init_state(prefix: str, lang: str, variant: str = "react-advisor") -> None:
    """Seed the page's setup keys once, and keep them consistent with the language."""
    state = st.session_state
    if k(prefix, "variant") not in state:
        state[k(prefix, "variant")] = variant
        state[k(prefix, "scenario")] = default_scenario(VARIANTS[variant])
        state.setdefault(k(prefix, "free_task"), "")
        state.setdefault(k(prefix, "tools"), [])
        apply_scenario(prefix, lang)
    _sync_prompts(prefix, lang)
    _clamp(prefix)


def apply_scenario(prefix: str, lang: str | None = None) -> None:
    """Load the chosen scenario's options into the limit and switch widgets (for_scenario)."""
    state = st.session_state
    lang = lang or state.get("sb_lang", "en")
    variant = VARIANTS[state[k(prefix, "variant")]]
    sid = scenario_id(prefix)
    if sid == FREE:
        base = RunConfig(pattern=variant.pattern)
    else:
        base, _task = ac.for_scenario(sid, lang)
    for name in LIMITS:
        state[k(prefix, f"limit_{name}")] = getattr(base, name)
    for name in SWITCHES:
        state[k(prefix, f"opt_{name}")] = bool(getattr(base, name))
    state[k(prefix, "criteria")] = base.criteria
    state[k(prefix, "tests")] = base.tests
    for name, floor in variant.floors.items():
        if state[k(prefix, f"limit_{name}")] < floor:
            # e.g. the advisor on a scenario written without it: seed 01's two judge rounds
            state[k(prefix, f"limit_{name}")] = max(floor, 2)


def _variant_changed(prefix: str) -> None:
    """A new pattern opens on its own scenario; a free task stays a free task."""
    state = st.session_state
    if state.get(k(prefix, "scenario")) != FREE:
        state[k(prefix, "scenario")] = default_scenario(VARIANTS[state[k(prefix, "variant")]])
    apply_scenario(prefix)


def _as_free_task(prefix: str) -> None:
    """Copy the scenario's task and tools into the free task, to edit them."""
    state = st.session_state
    sid = scenario_id(prefix)
    if sid != FREE:
        state[k(prefix, "free_task")] = SCENARIOS[sid].task_text(state.get("sb_lang", "en"))
        state[k(prefix, "tools")] = list(SCENARIOS[sid].tools)
        state[k(prefix, "scenario")] = FREE


def _sync_prompts(prefix: str, lang: str) -> None:
    """Prompts still at their default follow the language; edited ones are left alone."""
    state = st.session_state
    filled = state.get(k(prefix, "prompts_lang"))
    for variant_pattern in dict.fromkeys(v.pattern for v in VARIANTS.values()):
        for key, spec in specs_for(variant_pattern).items():
            name = prompt_key(prefix, variant_pattern, key)
            if name not in state or (filled and filled != lang and state[name] == spec.default(filled)):
                state[name] = spec.default(lang)
    state[k(prefix, "prompts_lang")] = lang


def _clamp(prefix: str) -> None:
    """Keep stored limits inside their ranges, so a widget never receives a value it refuses."""
    state = st.session_state
    variant = VARIANTS[state[k(prefix, "variant")]]
    for name, lim in LIMITS.items():
        key = k(prefix, f"limit_{name}")
        low = max(lim.low, variant.floors.get(name, lim.low))
        value = state.get(key, getattr(RunConfig(), name))
        state[key] = min(max(int(value), low), lim.high)


def _reset_prompt(name: str, default: str) -> None:
    st.session_state[name] = default


# --- reading --------------------------------------------------------------------------------------

def read_setup(prefix: str, lang: str, temperature: float | None = None) -> Setup:
    """Build and check the run the page's widgets describe, without drawing anything."""
    state = st.session_state
    variant = VARIANTS[state[k(prefix, "variant")]]
    sid = scenario_id(prefix)
    problems: list[str] = []
    if sid == FREE:
        task = (state.get(k(prefix, "free_task")) or "").strip()
        base = RunConfig(pattern=variant.pattern, lang=lang, tools=tuple(state.get(k(prefix, "tools")) or ()))
        if not task:
            problems.append("Type a task to run.")
    else:
        base, task = ac.for_scenario(sid, lang)

    prompts: dict[str, str] = {}
    prompt_errors: dict[str, str] = {}
    for key, spec in specs_for(variant.pattern).items():
        body = state.get(prompt_key(prefix, variant.pattern, key), spec.default(lang))
        if body != spec.default(lang):
            prompts[key] = body
        try:
            validate(body, spec)
        except TemplateError as exc:
            prompt_errors[key] = str(exc)
    problems += [f"Fix the prompt before running: {msg}" for msg in prompt_errors.values()]

    values: dict[str, Any] = {name: int(state[k(prefix, f"limit_{name}")]) for name in limits_of(variant)}
    values.update({name: bool(state[k(prefix, f"opt_{name}")]) for name in switches_of(variant)})
    if variant.pattern == "reflection":
        values["criteria"] = state.get(k(prefix, "criteria"), base.criteria)
        values["tests"] = state.get(k(prefix, "tests"), base.tests)
    values.update(variant.forced)
    for name, floor in variant.floors.items():
        values[name] = max(values.get(name, floor), floor)
    config: RunConfig | None = None
    bound: int | None = None
    try:
        config = base.replace(prompts=prompts, temperature=temperature, **values)
        bound = ac.call_bound(config)
        if not prompt_errors:
            # the core refuses a bad run before calling any model; ask it now, with nothing to call
            ac.stream(task or "-", config, ModelRouter(ac.OfflineModel())).close()
    except AgentError as exc:
        problems.append(str(exc))
    return Setup(variant, None if sid == FREE else sid, task, config, bound, problems, prompt_errors)


# --- drawing --------------------------------------------------------------------------------------

def pattern_picker(prefix: str, lang: str, *, disabled: bool) -> None:
    """Pattern, scenario (or free task with its tools), and what to watch for."""
    # one container whatever it holds, so the widgets drawn after it keep their place (and state)
    with st.container():
        _pattern_picker(prefix, lang, disabled)


def _pattern_picker(prefix: str, lang: str, disabled: bool) -> None:
    state = st.session_state
    st.selectbox("Pattern", list(VARIANTS), format_func=lambda v: VARIANTS[v].label, key=k(prefix, "variant"),
                 disabled=disabled, on_change=_variant_changed, args=(prefix,), persist_state="session")
    variant = VARIANTS[state[k(prefix, "variant")]]
    st.caption(variant.blurb)
    options = [*scenarios_of(variant), FREE]
    st.selectbox("Scenario", options, key=k(prefix, "scenario"), disabled=disabled, persist_state="session",
                 format_func=lambda s: "Free task — type your own" if s == FREE else SCENARIOS[s].title.get(lang, s),
                 on_change=apply_scenario, args=(prefix,))
    sid = scenario_id(prefix)
    if sid == FREE:
        st.text_area("Task", key=k(prefix, "free_task"), height=110, disabled=disabled, persist_state="session",
                     placeholder="What should the agent do?")
        if variant.pattern != "reflection":
            st.multiselect("Tools (mock)", list(TOOLS), key=k(prefix, "tools"), disabled=disabled,
                           persist_state="session", help="Deterministic mock tools from the scenarios.")
        return
    scenario = SCENARIOS[sid]
    with st.container(border=True, key=k(prefix, "task_box")):
        st.markdown(f"**Task** · {text.escape(scenario.task_text(lang))}")
        if scenario.tools:
            st.caption("Tools: " + ", ".join(text.code_span(t) for t in scenario.tools))
        st.caption(f":material/visibility: {text.escape(scenario.watch.get(lang) or scenario.watch.get('en', ''))}")
    st.button("Edit as a free task", key=k(prefix, "to_free"), icon=":material/edit:", disabled=disabled,
              on_click=_as_free_task, args=(prefix,), type="tertiary")


def prompt_editor(prefix: str, setup: Setup, lang: str, *, disabled: bool) -> None:
    """Every prompt of the pattern, editable in place, with reset, a diff against the default and
    the placeholder problem, if any."""
    pattern = setup.variant.pattern
    specs = specs_for(pattern)
    edited = sum(1 for key, spec in specs.items()
                 if st.session_state.get(prompt_key(prefix, pattern, key)) != spec.default(lang))
    st.caption(f"{len(specs)} prompts · {edited} edited. `{{placeholders}}` are filled in by the pattern; "
               "write a literal brace as `{{` or `}}`.")
    for key, spec in specs.items():
        name = prompt_key(prefix, pattern, key)
        default = spec.default(lang)
        body = st.session_state.get(name, default)
        error = setup.prompt_errors.get(key)
        icon = ":material/error:" if error else ":material/edit_note:" if body != default else ":material/description:"
        with st.expander(f"{key} · {spec.role}", icon=icon):
            st.caption(spec.purpose)
            holders = [f"`{{{p}}}` (required)" for p in sorted(spec.required)]
            holders += [f"`{{{p}}}`" for p in sorted(spec.optional)]
            if holders:
                st.caption("Placeholders: " + " · ".join(holders))
            st.text_area("Template", key=name, height=240, disabled=disabled, label_visibility="collapsed",
                         persist_state="session")
            if error:
                st.error(text.escape(error), icon=":material/error:")
            if body != default:
                st.button("Reset to default", key=f"{name}__reset", icon=":material/restart_alt:",
                          on_click=_reset_prompt, args=(name, default), disabled=disabled)
                diff = "\n".join(difflib.unified_diff(default.splitlines(), body.splitlines(), "default", "edited",
                                                      lineterm=""))
                st.code(diff, language="diff")


def limit_controls(prefix: str, setup: Setup, *, disabled: bool) -> None:
    """Every limit of the pattern (ranges enforced by the inputs) and its switches, with the bound."""
    variant = setup.variant
    if setup.bound is not None:
        st.metric("Most LLM calls this configuration can make", setup.bound,
                  help="agent_core.call_bound(config): the pattern's formula of its limits, capped by the budget.")
    names = limits_of(variant)
    cols = st.columns(2)
    for i, name in enumerate(names):
        lim = LIMITS[name]
        low = max(lim.low, variant.floors.get(name, lim.low))
        step = 1000 if name == "max_total_tokens" else 1
        cols[i % 2].number_input(LIMIT_LABELS.get(name, name), min_value=low, max_value=lim.high, step=step,
                                 key=k(prefix, f"limit_{name}"), help=f"`{name}` · {lim.help} ({low}–{lim.high})",
                                 disabled=disabled, persist_state="session")
    for name in switches_of(variant):
        label, helptext, _ = SWITCHES[name]
        st.toggle(label, key=k(prefix, f"opt_{name}"), help=helptext, disabled=disabled, persist_state="session")
    if variant.pattern == "reflection":
        st.text_area("Quality criteria", key=k(prefix, "criteria"), height=90, disabled=disabled,
                     persist_state="session", help="What the critic checks; \"default\" uses the built-in list, "
                     "empty means none.")
        if st.session_state.get(k(prefix, "opt_test_evaluator")):
            st.text_area("Unit tests (assert statements)", key=k(prefix, "tests"), height=110, disabled=disabled,
                         persist_state="session")
