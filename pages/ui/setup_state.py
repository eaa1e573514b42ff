"""The setup scheme in session_state: a page's pattern, scenario, prompts, limits and switches under
its own key prefix (so Compare can hold several), and `read_setup`, which turns those values into a
validated RunConfig without drawing anything (the Run button's callback uses it before the page draws).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

import agent_core as ac
from agent_core.config import RunConfig
from agent_core.diffing import tokens
from agent_core.errors import AgentError, TemplateError
from agent_core.patterns import registry
from agent_core.patterns.registry import LIMITS, configure, specs_for
from agent_core.patterns.registry import validate as validate_config
from agent_core.prompts import PromptSpec, validate
from agent_core.scenarios import SCENARIOS

from .catalogue import SWITCHES, VARIANTS, Variant
from .i18n import t

FREE = "__free__"


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
    return registry.variant_of(dict(config))


# --- keys -----------------------------------------------------------------------------------------


def k(prefix: str, name: str) -> str:
    return f"{prefix}_{name}"


def prompt_key(prefix: str, pattern: str, key: str) -> str:
    return f"{prefix}_prompt_{pattern.replace('-', '_')}_{key}"


def limits_of(variant: Variant) -> list[str]:
    return [n for n, lim in LIMITS.items() if variant.pattern in lim.patterns and n not in variant.hidden]


def switches_of(variant: Variant) -> list[str]:
    return [n for n, (_, pats) in SWITCHES.items() if variant.pattern in pats and n not in variant.hidden]


def scenarios_of(variant: Variant) -> list[str]:
    # its pattern's own scenarios, and those whose scripts play it too (a scenario's `also`)
    return [s.id for s in SCENARIOS.values() if variant.pattern in s.patterns]


def scenario_id(prefix: str) -> str:
    """The chosen scenario's id. The scenario box shows titles in the run language; when the language
    changes under it, the browser can send back the old title instead of the id, so map it home."""
    state = st.session_state
    value = state.get(k(prefix, "scenario"), FREE)
    if value != FREE and value not in SCENARIOS:
        value = next((s.id for s in SCENARIOS.values() if value in (s.title.en, s.title.zh)), FREE)
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
    state[k(prefix, "variant_was")] = variant_key(prefix)
    _sync_prompts(prefix, lang)
    _clamp(prefix)


def apply_scenario(prefix: str, lang: str | None = None) -> None:
    """Load the chosen scenario's options into the limit and switch widgets (for_scenario)."""
    state = st.session_state
    lang = lang or state.get("sb_lang", "en")
    variant = VARIANTS[state[k(prefix, "variant")]]
    sid = scenario_id(prefix)
    state.pop(k(prefix, "free_from"), None)
    if sid == FREE:
        base = configure(pattern=variant.pattern)
    else:  # as the variant's pattern runs it (a scenario may be another pattern's, played by its `also`)
        base, _task = ac.for_scenario(sid, lang, pattern=variant.pattern)
    for name in LIMITS:
        state[k(prefix, f"limit_{name}")] = base.value(name, LIMITS[name].default)
    _apply_options(prefix, base)
    for name, floor in variant.floors.items():
        if state[k(prefix, f"limit_{name}")] < floor:
            # e.g. the advisor on a scenario written without it: seed 01's two judge rounds
            state[k(prefix, f"limit_{name}")] = max(floor, 2)


def _apply_options(prefix: str, base: RunConfig) -> None:
    """The switches and free-text options (code task, unit tests, criteria...) of `base`: they belong
    to a scenario, so they follow it."""
    state = st.session_state
    for name in SWITCHES:
        state[k(prefix, f"opt_{name}")] = bool(base.value(name, False))
    for spec in registry.specs().values():
        for name in spec.fields:
            state[k(prefix, name)] = base.value(name, "")


#: how much of the copied scenario task a free task must keep to still be "that task, edited"
_KEPT = 0.5


def free_task_changed(prefix: str) -> None:
    """A free task copied from a scenario ("Edit as a free task") keeps the scenario's switches while
    it is that task, edited; once it is replaced by another task, they go back to the pattern's
    defaults (else a typed task was drawn as Python, because primes' Code-task switch stayed on)."""
    state = st.session_state
    origin = state.get(k(prefix, "free_from"))
    if origin not in SCENARIOS:
        return
    # compared word by word (CJK character by character), a few hundred tokens at most: any two
    # English texts share most of their letters, not most of their words
    typed = tokens((state.get(k(prefix, "free_task")) or "")[:3000])[:600]
    kept = max(
        difflib.SequenceMatcher(None, typed, tokens(task[:3000])[:600], autojunk=False).ratio()
        for task in (SCENARIOS[origin].task.en, SCENARIOS[origin].task.zh)
    )
    if kept < _KEPT:
        state.pop(k(prefix, "free_from"), None)
        _apply_options(prefix, configure(pattern=VARIANTS[variant_key(prefix)].pattern))


def variant_key(prefix: str) -> str:
    """The chosen variant's key. Like the scenario box, the pattern box shows labels in the run language,
    and when the language changes under it the browser can send back the old label: map it home."""
    state = st.session_state
    value = state.get(k(prefix, "variant"))
    if value not in VARIANTS:
        value = next(
            (key for key, v in VARIANTS.items() if value in (v.label_in("en"), v.label_in("zh"))),
            state.get(k(prefix, "variant_was"), "react-advisor"),
        )
        state[k(prefix, "variant")] = value
    return value


def _variant_changed(prefix: str) -> None:
    """A new pattern opens on its own scenario; a free task stays a free task."""
    state = st.session_state
    if variant_key(prefix) == state.get(k(prefix, "variant_was")):
        return  # only the language changed under the box
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
        state[k(prefix, "free_from")] = sid  # its switches stay while the task is this one (free_task_changed)


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
        value = state.get(key, lim.default)
        state[key] = min(max(int(value), low), lim.high)


def _reset_prompt(name: str, default: str) -> None:
    st.session_state[name] = default


# --- reading --------------------------------------------------------------------------------------


def template_problem(exc: TemplateError, spec: PromptSpec, lang: str) -> str:
    """What is wrong with a prompt template and how to fix it, in `lang` (the core's words for a kind of
    problem this page does not know)."""
    if exc.kind not in ("missing", "unknown", "invalid", "stray", "format"):
        return str(exc)
    allowed = ", ".join("{" + n + "}" for n in sorted(spec.required | spec.optional)) or "—"
    holder = exc.placeholder if exc.kind in ("invalid", "stray", "format") else "{" + exc.placeholder + "}"
    return t(
        f"setup_state.template.{exc.kind}",
        lang,
        prompt=spec.key,
        placeholder=holder,
        allowed=allowed,
        double=exc.placeholder * 2,
    )


def read_setup(prefix: str, lang: str, temperature: float | None = None) -> Setup:
    """Build and check the run the page's widgets describe, without drawing anything."""
    state = st.session_state
    variant = VARIANTS[state[k(prefix, "variant")]]
    sid = scenario_id(prefix)
    problems: list[str] = []
    if sid == FREE:
        task = (state.get(k(prefix, "free_task")) or "").strip()
        base = configure(pattern=variant.pattern, lang=lang, tools=tuple(state.get(k(prefix, "tools")) or ()))
        if not task:
            problems.append(t("setup_state.no_task", lang))
    else:
        base, task = ac.for_scenario(sid, lang, pattern=variant.pattern)

    prompts: dict[str, str] = {}
    prompt_errors: dict[str, str] = {}
    for key, spec in specs_for(variant.pattern).items():
        body = state.get(prompt_key(prefix, variant.pattern, key), spec.default(lang))
        if body != spec.default(lang):
            prompts[key] = body
        try:
            validate(body, spec)
        except TemplateError as exc:
            prompt_errors[key] = template_problem(exc, spec, lang)
    problems += [t("setup_state.bad_prompt", lang, problem=msg) for msg in prompt_errors.values()]

    values: dict[str, Any] = {name: int(state[k(prefix, f"limit_{name}")]) for name in limits_of(variant)}
    values.update({name: bool(state[k(prefix, f"opt_{name}")]) for name in switches_of(variant)})
    for name in variant.pattern_spec.fields:  # the free-text options (criteria, tests)
        values[name] = state.get(k(prefix, name), base.value(name, ""))
    values.update(variant.forced)
    for name, floor in variant.floors.items():
        values[name] = max(values.get(name, floor), floor)
    config: RunConfig | None = None
    bound: int | None = None
    try:
        config = base.replace(prompts=prompts, temperature=temperature, **values)
        bound = ac.call_bound(config)
        if not prompt_errors:
            validate_config(config)  # what the core would refuse before calling any model
    except AgentError as exc:
        problems.append(str(exc))
    return Setup(variant, None if sid == FREE else sid, task, config, bound, problems, prompt_errors)
