"""The built-in scenarios, gathered from the patterns' folders (each pattern's `scenarios.py`), in
display order; each from a seed article (or, for the baseline, a one-call question), in English and
Chinese."""

from __future__ import annotations

from typing import Any

from .config import RunConfig
from .errors import ConfigError
from .patterns import registry
from .patterns.spec import Scenario

__all__ = ["SCENARIOS", "Scenario", "find_by_task", "for_scenario", "get"]

SCENARIOS: dict[str, Scenario] = {s.id: s for spec in registry.specs().values() for s in spec.scenarios}


def get(scenario_id: str) -> Scenario:
    try:
        return SCENARIOS[scenario_id]
    except KeyError:
        raise ConfigError(f"unknown scenario {scenario_id!r}; known: {', '.join(SCENARIOS)}") from None


def find_by_task(text: str) -> Scenario | None:
    """The scenario whose task text (in any language) is `text`, if any."""
    text = " ".join(text.split())
    for s in SCENARIOS.values():
        if any(" ".join(t.split()) == text for t in (s.task.en, s.task.zh)):
            return s
    return None


def for_scenario(scenario_id: str, lang: str = "en", **overrides: Any) -> tuple[RunConfig, str]:
    """The config a scenario runs with (its options, then `overrides`), and its task text."""
    sc = get(scenario_id)
    options = {**sc.options, **overrides}
    options.setdefault("pattern", sc.pattern)
    return registry.configure(lang=lang, scenario=sc.id, tools=sc.tools, **options), sc.task_text(lang)
