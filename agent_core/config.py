"""Run configuration: the pattern, its limits and toggles, prompts and language — all serialisable.

Models are not part of the config (they hold clients and keys); a trace records only their names.
`LIMITS` gives every numeric limit its range, so the UI and CLI can refuse values outside it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError

PATTERNS = ("react", "plan-execute", "reflection")


@dataclass(frozen=True)
class Limit:
    name: str
    low: int
    high: int
    patterns: tuple[str, ...]
    help: str


LIMITS: dict[str, Limit] = {lim.name: lim for lim in (
    Limit("max_rounds", 1, 30, ("react",), "ReAct rounds before one forced final answer with tools disabled"),
    Limit("max_reflection_rounds", 0, 5, ("react",), "judge evaluations of a final answer (0 = advisor off)"),
    Limit("memory_window", 2, 200, ("react",), "messages kept from earlier turns in multi-turn use"),
    Limit("max_plan_steps", 1, 12, ("plan-execute",), "steps kept from a plan (longer plans are cut)"),
    Limit("max_step_rounds", 1, 8, ("plan-execute",), "tool-loop rounds per step; the last one has tools disabled"),
    Limit("max_step_retries", 0, 3, ("plan-execute",), "RETRY re-runs of one step before its result is accepted"),
    Limit("max_replans", 0, 5, ("plan-execute",), "REPLANs before the run skips to synthesis"),
    Limit("max_iterations", 1, 8, ("reflection",), "critique rounds (each may be followed by a refinement)"),
    Limit("max_llm_calls", 0, 500, PATTERNS, "run-wide budget of LLM calls (0 = only the pattern's bound)"),
    Limit("max_total_tokens", 0, 2_000_000, PATTERNS, "run-wide budget of tokens (0 = unlimited)"),
    # A bound on every call: without one a small local model can stream for minutes (issue 13).
    Limit("max_output_tokens", 0, 32_768, PATTERNS,
          "most tokens one reply may have, sent as the request's max_tokens (0 = not sent)"),
    Limit("max_seconds", 0, 86_400, PATTERNS, "run-wide wall-clock limit in seconds (0 = off)"),
)}


@dataclass(frozen=True)
class RunConfig:
    """Everything that shapes a run except the models. Fields a pattern does not use are ignored by it."""

    pattern: str = "react"
    lang: str = "en"
    scenario: str | None = None
    tools: tuple[str, ...] = ()
    #: prompt overrides, role -> template text (defaults come from agent_core.prompts)
    prompts: dict[str, str] = field(default_factory=dict)

    # ReAct
    max_rounds: int = 8
    max_reflection_rounds: int = 0
    text_protocol: bool = False
    memory_window: int = 20
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


_PATTERN_ONLY_FIELDS: dict[str, tuple[str, ...]] = {
    "max_rounds": ("react",), "max_reflection_rounds": ("react",), "text_protocol": ("react",),
    "memory_window": ("react",), "observation_check": ("react",),
    "reflector": ("plan-execute",), "max_plan_steps": ("plan-execute",), "max_step_rounds": ("plan-execute",),
    "max_step_retries": ("plan-execute",), "max_replans": ("plan-execute",),
    "goal_aware_executor": ("plan-execute",), "rule_precheck": ("plan-execute",),
    "selective_reflection": ("plan-execute",),
    "max_iterations": ("reflection",), "criteria": ("reflection",), "use_trajectory": ("reflection",),
    "test_evaluator": ("reflection",), "tests": ("reflection",), "graph_style": ("reflection",),
    "code_task": ("reflection",),
}


def for_scenario(scenario_id: str, lang: str = "en", **overrides: Any) -> tuple[RunConfig, str]:
    """The config a scenario runs with, and its task text."""
    from . import scenarios

    sc = scenarios.get(scenario_id)
    options = dict(sc.options)
    options.update(overrides)
    options.setdefault("pattern", sc.pattern)
    config = RunConfig(lang=lang, scenario=sc.id, tools=sc.tools, **options)
    return config, sc.task_text(lang)
