"""Run configuration: the fields every pattern reads, and one typed `options` for the pattern's own.

Models are not part of the config (they hold clients and keys); a trace records only their names.
This module knows no pattern: a config is built from a pattern's name and flat fields at the border
(`patterns.registry.configure`, `config_from_dict`), where the name becomes the pattern's options type.
`to_dict()` writes the shared fields and the options side by side, flat, as traces always held them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from .errors import ConfigError
from .events import ROLE_NAME
from .text import Text


@dataclass(frozen=True)
class LimitSpec:
    """A numeric limit: its range, and the label and help a person reads beside its input."""

    name: str
    low: int
    high: int
    label: Text
    help: Text
    #: the CLI's flag, without its dashes, when it is not the name with dashes
    flag: str = ""

    @property
    def cli_flag(self) -> str:
        return "--" + (self.flag or self.name.replace("_", "-"))

    def check(self, value: Any) -> None:
        """Raise ConfigError unless `value` is an integer in range."""
        if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
            raise ConfigError(f"{self.name} must be an integer from {self.low} to {self.high}, got {value!r}")


@dataclass(frozen=True)
class Options:
    """The base of a pattern's typed options (its `options.py`): the fields only that pattern reads.

    A subclass is a frozen dataclass with a docstring under every field; its `LIMITS` give the numeric
    fields their ranges, checked on construction.
    """

    LIMITS: ClassVar[tuple[LimitSpec, ...]] = ()

    def __post_init__(self) -> None:
        for lim in self.LIMITS:
            lim.check(getattr(self, lim.name))

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


#: Run-wide limits every pattern has; each pattern's own are in its options.
SHARED_LIMITS: tuple[LimitSpec, ...] = (
    LimitSpec(
        "max_llm_calls",
        0,
        500,
        Text("Budget · LLM calls", "预算 · 大模型调用次数"),
        Text(
            "run-wide budget of LLM calls (0 = only the pattern's bound)",
            "整次运行的大模型调用预算（0 = 只受模式自身上限约束）",
        ),
        flag="max-calls",
    ),
    LimitSpec(
        "max_total_tokens",
        0,
        2_000_000,
        Text("Budget · tokens", "预算 · token 数"),
        Text("run-wide budget of tokens (0 = unlimited)", "整次运行的 token 预算（0 = 不限）"),
        flag="max-tokens",
    ),
    # A bound on every call: without one a small local model can stream for minutes.
    LimitSpec(
        "max_output_tokens",
        0,
        32_768,
        Text("Max tokens per reply", "单次回复 token 上限"),
        Text(
            "most tokens one reply may have, sent as the request's max_tokens (0 = not sent)",
            "单次回复最多的 token 数，作为请求的 max_tokens 发送（0 = 不发送）",
        ),
    ),
    LimitSpec(
        "max_seconds",
        0,
        86_400,
        Text("Time limit · seconds", "时间上限 · 秒"),
        Text("run-wide wall-clock limit in seconds (0 = off)", "整次运行的时间上限，单位秒（0 = 关闭）"),
    ),
)


#: a pattern's options type: a loop takes `RunConfig[ItsOptions]` and reads its own fields typed, while code
#: that serves every pattern takes a bare `RunConfig`
OptionsT = TypeVar("OptionsT", bound=Options, covariant=True)


@dataclass(frozen=True)
class RunConfig(Generic[OptionsT]):
    """Everything that shapes a run except the models: the shared fields, and the pattern's `options`."""

    #: the pattern's name (a name in patterns/registry.py)
    pattern: str
    #: the pattern's typed options (its options.py)
    options: OptionsT
    lang: str = "en"
    scenario: str | None = None
    tools: tuple[str, ...] = ()
    #: prompt overrides, prompt key -> template text (defaults come from the pattern's prompts.py)
    prompts: dict[str, str] = field(default_factory=dict)
    repair_reask: bool = True
    max_llm_calls: int = 0
    max_total_tokens: int = 0
    max_output_tokens: int = 1024
    #: per-role caps over `max_output_tokens`, role name -> tokens
    max_output_tokens_by_role: dict[str, int] = field(default_factory=dict)
    max_seconds: int = 0
    temperature: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.options, Options):
            raise ConfigError(f"options must be a pattern's options, got {type(self.options).__name__}")
        if self.lang not in ("en", "zh"):
            raise ConfigError(f"unknown language {self.lang!r}; choose en or zh")
        for lim in SHARED_LIMITS:
            lim.check(getattr(self, lim.name))
        _check_role_caps(self.max_output_tokens_by_role)

    def output_cap(self, role: str) -> int | None:
        """The `max_tokens` a call in `role` is sent with, or None to send none."""
        cap = self.max_output_tokens_by_role.get(role, self.max_output_tokens)
        return cap or None

    def value(self, name: str, default: Any = None) -> Any:
        """A shared field or one of the options, by name (for code that edits options by name, as the
        Playground's widgets do); `default` for a name this config does not have."""
        if name in SHARED_FIELDS:
            return getattr(self, name)
        return getattr(self.options, name, default)

    def replace(self, **changes: Any) -> RunConfig[OptionsT]:
        """A copy with `changes`: shared fields by name, and the options' fields by theirs."""
        own = {k: changes.pop(k) for k in list(changes) if k in type(self.options).names()}
        unknown = sorted(set(changes) - set(SHARED_FIELDS) - {"options"})
        if unknown:
            raise ConfigError(f"{self.pattern} has no option {unknown[0]!r}")
        options = dataclasses.replace(changes.pop("options", self.options), **own)
        return dataclasses.replace(self, options=options, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The shared fields and the options, flat, for traces."""
        # in the order traces always held them: what the run is, the pattern's options, then the rest
        head = SHARED_FIELDS[: SHARED_FIELDS.index("prompts") + 1]
        out = {name: getattr(self, name) for name in head}
        out.update(self.options.to_dict())
        out.update((name, getattr(self, name)) for name in SHARED_FIELDS[len(head) :])
        out["tools"] = list(self.tools)
        out["prompts"] = dict(self.prompts)
        out["max_output_tokens_by_role"] = dict(self.max_output_tokens_by_role)
        return out


#: The fields every pattern reads (everything on RunConfig but `options`).
SHARED_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RunConfig) if f.name != "options")


def _check_role_caps(caps: Any) -> None:
    lim = next(lim for lim in SHARED_LIMITS if lim.name == "max_output_tokens")
    if not isinstance(caps, dict):
        raise ConfigError(f"max_output_tokens_by_role must map roles to token caps, got {type(caps).__name__}")
    for role, value in caps.items():
        if not isinstance(role, str) or not ROLE_NAME.fullmatch(role):
            raise ConfigError(f"max_output_tokens_by_role: {role!r} is not a role's name")
        if isinstance(value, bool) or not isinstance(value, int) or not lim.low <= value <= lim.high:
            raise ConfigError(
                f"max_output_tokens_by_role[{role!r}] must be an integer from {lim.low} to {lim.high}, got {value!r}"
            )
