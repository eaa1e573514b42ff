"""Every pattern, registered by one line in `REGISTERED`: the name of its folder under this package,
whose `__init__.py` exports `SPEC`. Nothing else lists the patterns. `specs()` is in display order.

A list rather than discovery of the subpackages: a folder half-built on a branch (or left behind as
`__pycache__` after a checkout) is never registered by accident, and one place says which patterns exist.
"""

from __future__ import annotations

import importlib

from ..errors import ConfigError
from .spec import EvalEntry, LimitSpec, PatternSpec, Preset, VariantSpec

#: Every pattern, one line each: its folder (agent_core/patterns/<folder>/).
REGISTERED: tuple[str, ...] = (
    "react",
    "plan_execute",
    "reflection",
    "direct",
)

_SPECS: dict[str, PatternSpec] = {}


def _load() -> dict[str, PatternSpec]:
    if not _SPECS:
        found = [importlib.import_module(f"{__package__}.{folder}").SPEC for folder in REGISTERED]
        _SPECS.update((s.name, s) for s in sorted(found, key=lambda s: (s.order, s.name)))
    return _SPECS


def specs() -> dict[str, PatternSpec]:
    """Every pattern's spec, by name, in display order."""
    return _SPECS or _load()


def names() -> tuple[str, ...]:
    return tuple(specs())


def get(name: str) -> PatternSpec:
    """The spec of a pattern; ConfigError naming the choices for an unknown one."""
    found = specs().get(name)
    if found is None:
        raise ConfigError(f"unknown pattern {name!r}; choose one of {', '.join(specs())}")
    return found


def limits() -> dict[str, tuple[LimitSpec, tuple[str, ...]]]:
    """Every pattern limit, with the patterns that have it."""
    out: dict[str, tuple[LimitSpec, tuple[str, ...]]] = {}
    for spec in specs().values():
        for lim in spec.limits:
            known = out.get(lim.name)
            out[lim.name] = (lim, (*known[1], spec.name) if known else (spec.name,))
    return out


def variants() -> dict[str, VariantSpec]:
    """Every variant of every pattern, by id, in display order."""
    return {v.id: v for spec in specs().values() for v in spec.variants}


def pattern_of_variant(variant_id: str) -> PatternSpec:
    return next(s for s in specs().values() if any(v.id == variant_id for v in s.variants))


def variant_of(config: dict) -> str:
    """The variant a run's config belongs to: the last of its pattern's variants whose forced options
    and floors the config meets (variants are listed plain first)."""
    spec = get(config.get("pattern") or names()[0])
    chosen = spec.variants[0].id
    for v in spec.variants:
        forced_ok = all(bool(config.get(k)) == bool(val) for k, val in v.forced.items())
        floors_ok = all((config.get(k) or 0) >= floor for k, floor in v.floors.items())
        if forced_ok and floors_ok:
            chosen = v.id
    return chosen


def eval_entries() -> dict[str, tuple[PatternSpec, EvalEntry]]:
    """Every way Eval can run a pattern, by entry id."""
    return {e.id: (spec, e) for spec in specs().values() for e in spec.eval_entries}


def presets() -> dict[str, Preset]:
    """Compare's one-click comparisons that the patterns define, by id."""
    return {p.id: p for spec in specs().values() for p in spec.presets}


def baseline() -> PatternSpec | None:
    """The pattern the others are compared with (call_bound 1 or 2, no loop), if one is registered."""
    return next((s for s in specs().values() if s.baseline), None)
