"""Every pattern, registered by one line in `REGISTERED`: the name of its folder under this package,
whose `__init__.py` exports `SPEC`. Nothing else lists the patterns. `specs()` is in display order.
A list rather than discovery of the subpackages: a folder half-built on a branch (or left behind as
`__pycache__` after a checkout) is never registered by accident, and one place says which patterns exist.

Here, too, is the border where a pattern's name and flat fields become a `RunConfig` (`configure`,
`config_from_dict`): the name picks the pattern's options type, and traces that hold flat fields (every
trace ever saved) load into it.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..config import SHARED_FIELDS, SHARED_LIMITS, RunConfig
from ..errors import ConfigError
from ..prompts import PromptSet, PromptSpec
from ..roles import Role
from .spec import EvalEntry, LimitSpec, PatternSpec, Preset, VariantSpec

#: Every pattern, one line each: its folder (agent_core/patterns/<folder>/).
REGISTERED: tuple[str, ...] = (
    "react",
    "plan_execute",
    "orchestrator",
    "reflection",
    "self_consistency",
    "lats",
    "direct",
)

_SPECS: dict[str, PatternSpec] = {}
_ROLES: dict[str, Role] = {}


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


@dataclass(frozen=True)
class Limit:
    """A numeric limit as the pages and the CLI see it: its spec, the patterns that have it, its default."""

    spec: LimitSpec
    patterns: tuple[str, ...]
    default: int

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def low(self) -> int:
        return self.spec.low

    @property
    def high(self) -> int:
        return self.spec.high


def limits() -> dict[str, Limit]:
    """Every numeric limit: each pattern's own (with the patterns that have it), then the run-wide ones."""
    out: dict[str, Limit] = {}
    for spec in specs().values():
        defaults = spec.options().to_dict()
        for lim in spec.limits:
            known = out.get(lim.name)
            out[lim.name] = Limit(lim, (*known.patterns, spec.name) if known else (spec.name,), defaults[lim.name])
    shared: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(RunConfig)}  # every limit has a default
    out.update((lim.name, Limit(lim, names(), shared[lim.name])) for lim in SHARED_LIMITS)
    return out


# --- the border: a name and flat fields -> RunConfig ----------------------------------------------


def configure(pattern: str = "", **fields: Any) -> RunConfig:
    """The config of a run of `pattern` ("" = the first pattern) from flat fields, shared and the
    pattern's own alike: `configure("react", max_rounds=3, lang="zh")`. Another pattern's option is
    ignored, as a config always ignored what its pattern does not read; a name nobody knows is refused."""
    spec = get(pattern or names()[0])
    own = {k: fields.pop(k) for k in list(fields) if k in spec.option_names()}
    unknown = sorted(set(fields) - set(SHARED_FIELDS) - _all_options())
    if unknown:
        raise ConfigError(f"bad run configuration: no field {unknown[0]!r}")
    shared = {k: v for k, v in fields.items() if k in SHARED_FIELDS and k != "pattern"}
    caps = shared.get("max_output_tokens_by_role")
    stray = [r for r in caps if r not in role_names()] if isinstance(caps, dict) else []
    if stray:
        raise ConfigError(
            f"max_output_tokens_by_role: unknown role {stray[0]!r}; choose from {', '.join(role_names())}"
        )
    if "tools" in shared:
        shared["tools"] = tuple(shared["tools"])
    try:
        return RunConfig(pattern=spec.name, options=spec.options(**own), **shared)
    except TypeError as exc:
        raise ConfigError(f"bad run configuration: {exc}") from exc


def config_from_dict(data: Mapping[str, Any]) -> RunConfig:
    """A config from a trace's flat dict (`RunConfig.to_dict()`, or any trace saved before options had
    a type): the pattern's fields are read, anything else is left out."""
    known = set(SHARED_FIELDS) | _all_options()
    return configure(**{k: v for k, v in data.items() if k in known})


def specs_for(pattern: str) -> dict[str, PromptSpec]:
    """Every prompt of a pattern, keyed by prompt key."""
    return get(pattern).prompt_specs()


def check_overrides(pattern: str, lang: str, overrides: Mapping[str, str]) -> None:
    """Validate user-edited prompts for a pattern; raises TemplateError naming the problem."""
    PromptSet(specs_for(pattern), lang, overrides)


def _all_options() -> set[str]:
    return {name for spec in specs().values() for name in spec.option_names()}


def validate(config: RunConfig, spec: PatternSpec | None = None) -> None:
    """Check a config as a run would, before any model is called: its ranges (checked on construction),
    its prompts' placeholders, and what its pattern needs (e.g. parseable unit tests); raises a typed
    AgentError (ConfigError, TemplateError) naming the problem."""
    spec = spec or get(config.pattern)
    PromptSet(spec.prompt_specs(), config.lang, config.prompts)
    if spec.check is not None:
        spec.check(config)


def role_names() -> tuple[str, ...]:
    """Every role a registered pattern calls a model in, once each, in display order: the roles a
    person may bind a model to, answer as, or cap."""
    return tuple(dict.fromkeys(name for spec in specs().values() for name in spec.role_names()))


def roles() -> dict[str, Role]:
    """Every role a registered pattern declares, by name, the first pattern's when names repeat: those
    a model is called in and those only the pattern's own code speaks in (a vote), for their labels.
    Built once (a page asks for labels per drawn call); callers read it, never write it."""
    if not _ROLES:
        for spec in specs().values():
            for r in spec.roles:
                _ROLES.setdefault(r.name, r)
    return _ROLES


def role(name: str) -> Role | None:
    """The role called `name` (same-named roles of different patterns share their grammar), or None;
    for a role that arrives as a name, from a trace or a widget."""
    return roles().get(name)


def variants() -> dict[str, VariantSpec]:
    """Every variant of every pattern, by id, in display order."""
    return {v.id: v for spec in specs().values() for v in spec.variants}


def pattern_of_variant(variant_id: str) -> PatternSpec:
    return next(s for s in specs().values() if any(v.id == variant_id for v in s.variants))


def variant_of(config: dict) -> str:
    """The variant a run's config belongs to: the last of its pattern's variants whose forced options
    and floors the config meets (variants are listed plain first)."""
    spec = get(config.get("pattern") or names()[0])
    config = {**spec.options().to_dict(), **config}  # an option the dict leaves out has its default
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


#: Every pattern, in display order.
PATTERNS: tuple[str, ...] = names()
#: Every numeric limit: each pattern's own, then the run-wide ones.
LIMITS: dict[str, Limit] = limits()
