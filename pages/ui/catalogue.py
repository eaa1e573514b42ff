"""The Playground's catalogue of patterns as a person picks them — variants, switches and limit labels —
read from the pattern registry (agent_core/patterns/registry.py); nothing here names a pattern."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_core.patterns import registry
from agent_core.patterns.registry import LIMITS
from agent_core.patterns.spec import PatternSpec, SwitchSpec, VariantSpec


@dataclass(frozen=True)
class Variant:
    """A variant of a pattern, with the pattern's spec at hand."""

    spec: VariantSpec
    pattern_spec: PatternSpec

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def pattern(self) -> str:
        return self.pattern_spec.name

    def label_in(self, lang: str) -> str:
        return self.spec.label(lang)

    def blurb_in(self, lang: str) -> str:
        return self.spec.blurb(lang)

    @property
    def forced(self) -> Mapping[str, Any]:
        return self.spec.forced

    @property
    def hidden(self) -> frozenset[str]:
        return self.spec.hidden

    @property
    def floors(self) -> Mapping[str, int]:
        return self.spec.floors

    @property
    def scenario(self) -> str:
        return self.spec.scenario


VARIANTS: dict[str, Variant] = {
    v.id: Variant(v, registry.pattern_of_variant(v.id)) for v in registry.variants().values()
}

#: switch name -> its spec (the first pattern that declares it) and every pattern that has it
SWITCHES: dict[str, tuple[SwitchSpec, tuple[str, ...]]] = {}
for _spec in registry.specs().values():
    for _switch in _spec.switches:
        _known = SWITCHES.get(_switch.name)
        SWITCHES[_switch.name] = (_known[0] if _known else _switch, (*(_known[1] if _known else ()), _spec.name))


def limit_label(name: str, lang: str) -> str:
    """A limit's label in the run language."""
    return LIMITS[name].spec.label(lang) or name


def limit_help(name: str, lang: str) -> str:
    return LIMITS[name].spec.help(lang)
