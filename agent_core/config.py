"""Run configuration: the pattern, its limits and toggles, prompts and language — all serialisable.

Models are not part of the config (they hold clients and keys); a trace records only their names.
`LIMITS` gives every numeric limit its range, so the UI and CLI can refuse values outside it; the
patterns, their limits and which options each reads come from the registry (patterns/registry.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError



@dataclass(frozen=True)
class Limit:
    """A numeric limit, its range and who has it; `label` and `help_zh` are what a person reads."""

    name: str
    low: int
    high: int
    patterns: tuple[str, ...]
    help: str
    label: tuple[str, str] = ("", "")
    help_zh: str = ""


#: Run-wide limits every pattern has; each pattern's own limits come from its spec (patterns/registry.py).
SHARED_LIMITS: tuple[Limit, ...] = (
    Limit("max_llm_calls", 0, 500, (), "run-wide budget of LLM calls (0 = only the pattern's bound)",
          ("Budget · LLM calls", "预算 · 大模型调用次数"), "整次运行的大模型调用预算（0 = 只受模式自身上限约束）"),
    Limit("max_total_tokens", 0, 2_000_000, (), "run-wide budget of tokens (0 = unlimited)",
          ("Budget · tokens", "预算 · token 数"), "整次运行的 token 预算（0 = 不限）"),
    # A bound on every call: without one a small local model can stream for minutes (issue 13).
    Limit("max_output_tokens", 0, 32_768, (),
          "most tokens one reply may have, sent as the request's max_tokens (0 = not sent)",
          ("Max tokens per reply", "单次回复 token 上限"), "单次回复最多的 token 数，作为请求的 max_tokens 发送（0 = 不发送）"),
    Limit("max_seconds", 0, 86_400, (), "run-wide wall-clock limit in seconds (0 = off)",
          ("Time limit · seconds", "时间上限 · 秒"), "整次运行的时间上限，单位秒（0 = 关闭）"),
)


@dataclass(frozen=True)
class RunConfig:
    """Everything that shapes a run except the models. Fields a pattern does not use are ignored by it."""

    #: "" means the registry's first pattern
    pattern: str = ""
    lang: str = "en"
    scenario: str | None = None
    tools: tuple[str, ...] = ()
    #: prompt overrides, role -> template text (defaults come from agent_core.prompts)
    prompts: dict[str, str] = field(default_factory=dict)

    # ReAct
    max_rounds: int = 8
    max_reflection_rounds: int = 0
    text_protocol: bool = False
    observation_check: bool = False

    # Plan-and-Execute
    reflector: bool = False
    max_plan_steps: int = 6
    max_step_rounds: int = 3
    max_step_retries: int = 1
    max_replans: int = 2
    goal_aware_executor: bool = False
    rule_precheck: bool = False
    selective_reflection: bool = False

    # Reflection
    max_iterations: int = 3
    criteria: str = ""
    use_trajectory: bool = False
    test_evaluator: bool = False
    tests: str = ""
    graph_style: bool = False
    code_task: bool = False

    # Direct (the baseline): independent samples, majority vote (1 = one call)
    samples: int = 1

    # shared
    repair_reask: bool = True
    max_llm_calls: int = 0
    max_total_tokens: int = 0
    max_output_tokens: int = 1024
    #: per-role caps over `max_output_tokens`, e.g. {"planner": 2048, "judge": 256}
    max_output_tokens_by_role: dict[str, int] = field(default_factory=dict)
    max_seconds: int = 0
    temperature: float | None = None

    def __post_init__(self) -> None:
        if not self.pattern:
            object.__setattr__(self, "pattern", PATTERNS[0])
        if self.pattern not in PATTERNS:
            raise ConfigError(f"unknown pattern {self.pattern!r}; choose one of {', '.join(PATTERNS)}")
        if self.lang not in ("en", "zh"):
            raise ConfigError(f"unknown language {self.lang!r}; choose en or zh")
        for lim in LIMITS.values():
            value = getattr(self, lim.name)
            if isinstance(value, bool) or not isinstance(value, int) or not lim.low <= value <= lim.high:
                raise ConfigError(f"{lim.name} must be an integer from {lim.low} to {lim.high}, got {value!r}")
        _check_role_caps(self.max_output_tokens_by_role)

    def output_cap(self, role: str) -> int | None:
        """The `max_tokens` a call in `role` is sent with, or None to send none."""
        cap = self.max_output_tokens_by_role.get(role, self.max_output_tokens)
        return cap or None

    def replace(self, **changes: Any) -> RunConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The fields that matter for this pattern, for traces."""
        used = {f.name for f in dataclasses.fields(self)} - _PATTERN_ONLY_FIELDS.keys() | {
            name for name, pats in _PATTERN_ONLY_FIELDS.items() if self.pattern in pats}
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name in used}
        out["tools"] = list(self.tools)
        out["prompts"] = dict(self.prompts)
        out["max_output_tokens_by_role"] = dict(self.max_output_tokens_by_role)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in names}
        if "tools" in kwargs:
            kwargs["tools"] = tuple(kwargs["tools"])
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise ConfigError(f"bad run configuration: {exc}") from exc


def _check_role_caps(caps: Any) -> None:
    from .models import ROLES

    lim = LIMITS["max_output_tokens"]
    if not isinstance(caps, dict):
        raise ConfigError(f"max_output_tokens_by_role must map roles to token caps, got {type(caps).__name__}")
    for role, value in caps.items():
        if role not in ROLES:
            raise ConfigError(f"max_output_tokens_by_role: unknown role {role!r}; choose from {', '.join(ROLES)}")
        if isinstance(value, bool) or not isinstance(value, int) or not lim.low <= value <= lim.high:
            raise ConfigError(f"max_output_tokens_by_role[{role!r}] must be an integer from {lim.low} to "
                              f"{lim.high}, got {value!r}")


# The pattern modules import RunConfig, so the registry is read once RunConfig exists.
from .patterns import registry as _registry  # noqa: E402

#: Every pattern, in display order (from the registry).
PATTERNS: tuple[str, ...] = _registry.names()
#: Every numeric limit: each pattern's own, then the run-wide ones.
LIMITS: dict[str, Limit] = {
    **{name: Limit(name, lim.low, lim.high, pats, lim.help.en, (lim.label.en, lim.label.zh), lim.help.zh)
       for name, (lim, pats) in _registry.limits().items()},
    **{lim.name: dataclasses.replace(lim, patterns=PATTERNS) for lim in SHARED_LIMITS},
}
#: Options only some patterns read (left out of other patterns' traces).
_PATTERN_ONLY_FIELDS: dict[str, tuple[str, ...]] = {}
for _spec in _registry.specs().values():
    for _name in _spec.options():
        _PATTERN_ONLY_FIELDS[_name] = (*_PATTERN_ONLY_FIELDS.get(_name, ()), _spec.name)


def validate(config: RunConfig) -> None:
    """Check a config as a run would, before any model is called: its ranges (checked on construction),
    its prompts' placeholders, and what its pattern needs (e.g. parseable unit tests); raises a typed
    AgentError (ConfigError, TemplateError) naming the problem."""
    from .prompts import check_overrides

    check_overrides(config.pattern, config.lang, config.prompts)
    check = getattr(_registry.get(config.pattern), "check", None)
    if check is not None:
        check(config)


def for_scenario(scenario_id: str, lang: str = "en", **overrides: Any) -> tuple[RunConfig, str]:
    """The config a scenario runs with, and its task text."""
    from . import scenarios

    sc = scenarios.get(scenario_id)
    options = dict(sc.options)
    options.update(overrides)
    options.setdefault("pattern", sc.pattern)
    config = RunConfig(lang=lang, scenario=sc.id, tools=sc.tools, **options)
    return config, sc.task_text(lang)
