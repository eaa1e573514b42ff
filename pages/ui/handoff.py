"""Opening a configuration in the Playground from another page (Learn's "Try it", Replay's Fork).

`load_into_playground` is meant for a button's `on_click`: callbacks run before any widget is drawn,
so they may set the Playground's widget keys and the sidebar's language. The page then calls
`go_if_requested()` to switch to the Playground on that same rerun.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from agent_core.patterns import registry
from agent_core.patterns.registry import LIMITS, specs_for
from agent_core.scenarios import SCENARIOS

from . import setup_state
from .catalogue import SWITCHES, VARIANTS
from .setup_state import FREE, k, prompt_key

PLAYGROUND = "pages/playground.py"
PREFIX = "pg"
_GO = "handoff_go"


def load_into_playground(config: Mapping[str, Any], task: str | None = None) -> None:
    """Put a run configuration — pattern, scenario or task, limits, switches, criteria, tests and
    edited prompts — into the Playground's widgets, and ask the page to switch there."""
    state = st.session_state
    lang = config.get("lang") if config.get("lang") in ("en", "zh") else state.get("sb_lang", "en")
    state["sb_lang"] = lang
    variant = setup_state.variant_of(config)
    state[k(PREFIX, "variant")] = variant
    scenario = config.get("scenario")
    if scenario in SCENARIOS and task in (None, SCENARIOS[scenario].task_text(lang)):
        state[k(PREFIX, "scenario")] = scenario
        state.setdefault(k(PREFIX, "free_task"), "")
        state.setdefault(k(PREFIX, "tools"), [])
    else:
        state[k(PREFIX, "scenario")] = FREE
        state[k(PREFIX, "free_task")] = task or ""
        state[k(PREFIX, "tools")] = [t for t in config.get("tools", []) if isinstance(t, str)]
    setup_state.apply_scenario(PREFIX, lang)
    apply_config(PREFIX, config, lang)
    state[_GO] = True


def apply_config(prefix: str, config: Mapping[str, Any], lang: str) -> None:
    """Put a config's limits, switches, free-text options and edited prompts (the rest at their
    defaults in `lang`) into the setup widgets under `prefix`, whose variant and scenario are set:
    the Playground's, or a Compare lane's."""
    state = st.session_state
    for name in LIMITS:
        if isinstance(config.get(name), int) and not isinstance(config.get(name), bool):
            state[k(prefix, f"limit_{name}")] = config[name]
    for name in SWITCHES:
        if name in config:
            state[k(prefix, f"opt_{name}")] = bool(config[name])
    for name in {n for spec in registry.specs().values() for n in spec.fields}:  # criteria, tests...
        if isinstance(config.get(name), str):
            state[k(prefix, name)] = config[name]

    pattern = VARIANTS[state[k(prefix, "variant")]].pattern
    edited = config.get("prompts") if isinstance(config.get("prompts"), Mapping) else {}
    for key, spec in specs_for(pattern).items():
        body = edited.get(key)
        state[prompt_key(prefix, pattern, key)] = body if isinstance(body, str) else spec.default(lang)
    state[k(prefix, "prompts_lang")] = lang


def arrived() -> None:
    """On the Playground itself: nothing to switch to (a fork started there hands over in place)."""
    st.session_state.pop(_GO, None)


def go_if_requested() -> None:
    """Switch to the Playground if a callback asked for it on this rerun."""
    if st.session_state.pop(_GO, False):
        st.switch_page(PLAYGROUND)
