"""What a run may cost before it starts, and what it did cost: a per-model price table and the
worst case of a configuration.

Prices are data: input and output USD per million tokens for the presets' common models, each line
with the date it was taken and its source, so a reader can check it and a user can correct it. A
user adds or overrides lines in settings (`[prices]` in .streamlit/secrets.toml, or the environment
variable AGENT_PRICES holding JSON), or for one session in the sidebar. A model the table does not
know has an unknown price: costs then show "unknown", never 0. The offline model costs 0 because
it calls no model at all.

`worst_case()` bounds the tokens of a run from the prompts' size, the output cap and the call
bound; see its docstring for the formula and what it assumes.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import events as ev
from . import untrusted
from .config import RunConfig
from .errors import ConfigError
from .messages import estimate_tokens
from .offline import MODEL_NAME as OFFLINE_MODEL

#: the environment variable that may hold user prices as JSON: {"model": [input, output], ...}
PRICES_ENV = "AGENT_PRICES"


@dataclass(frozen=True)
class Price:
    """One model's list price: USD per million input (prompt) and output (completion) tokens."""

    model: str
    input_per_mtok: float
    output_per_mtok: float
    #: when this price was taken from its source (YYYY-MM-DD), or "user" for a user's own line
    as_of: str
    source: str
    note: str = ""

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """USD for this many tokens."""
        return (prompt_tokens * self.input_per_mtok + completion_tokens * self.output_per_mtok) / 1e6


_OPENAI = "https://openai.com/api/pricing/"
_DEEPSEEK = "https://api-docs.deepseek.com/quick_start/pricing"
_QWEN = "https://www.alibabacloud.com/help/en/model-studio/models"
_QWEN_NOTE = (
    "international (Singapore) list price in USD; the mainland endpoint (dashscope.aliyuncs.com) "
    "bills in CNY at its own rates"
)
_DEEPSEEK_NOTE = "cache-miss input price; deepseek-chat and deepseek-reasoner are both DeepSeek-V3.2"

#: The built-in table. Standard (not batch, not cached-input) prices; check the source before you
#: rely on a figure, and override it in settings when it changed.
PRICES: tuple[Price, ...] = (
    Price("gpt-4o", 2.50, 10.00, "2024-08-06", _OPENAI),
    Price("gpt-4o-mini", 0.15, 0.60, "2024-07-18", _OPENAI),
    Price("gpt-4.1", 2.00, 8.00, "2025-04-14", _OPENAI),
    Price("gpt-4.1-mini", 0.40, 1.60, "2025-04-14", _OPENAI),
    Price("gpt-4.1-nano", 0.10, 0.40, "2025-04-14", _OPENAI),
    Price("deepseek-chat", 0.28, 0.42, "2025-09-29", _DEEPSEEK, _DEEPSEEK_NOTE),
    Price("deepseek-reasoner", 0.28, 0.42, "2025-09-29", _DEEPSEEK, _DEEPSEEK_NOTE),
    Price("qwen-max", 1.60, 6.40, "2025-01-25", _QWEN, _QWEN_NOTE),
    Price("qwen-plus", 0.40, 1.20, "2025-01-25", _QWEN, _QWEN_NOTE + "; non-thinking mode"),
    Price("qwen-turbo", 0.05, 0.20, "2025-01-25", _QWEN, _QWEN_NOTE + "; non-thinking mode"),
)

#: The offline model calls nothing and costs nothing.
OFFLINE_PRICE = Price(OFFLINE_MODEL, 0.0, 0.0, "-", "offline: no model is called", "the scripted offline model")

#: Dated snapshots and aliases of a listed model cost what it costs: gpt-4o-2024-08-06, qwen-plus-latest...
_SNAPSHOT = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest)$")


class PriceTable:
    """The built-in prices, with a user's lines on top; look a model up by the name the run used."""

    def __init__(self, prices: Iterable[Price] = PRICES, user: Iterable[Price] = ()) -> None:
        self._prices = {p.model.lower(): p for p in prices}
        self._prices[OFFLINE_PRICE.model.lower()] = OFFLINE_PRICE
        self.user = tuple(user)
        self._prices.update({p.model.lower(): p for p in self.user})

    def lines(self) -> list[Price]:
        """Every line, in table order (built-in first, then the user's additions)."""
        return list(self._prices.values())

    def find(self, model: str) -> Price | None:
        """The price of `model`, or None when it is unknown."""
        name = (model or "").strip().lower()
        if name in self._prices:
            return self._prices[name]
        base = _SNAPSHOT.sub("", name)
        return self._prices.get(base) if base != name else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """USD for these tokens on `model`, or None when its price is unknown."""
        price = self.find(model)
        return None if price is None else price.cost(prompt_tokens, completion_tokens)

    def with_user(self, user: Iterable[Price]) -> PriceTable:
        """This table with more user lines on top (a later line for a model replaces an earlier one)."""
        return PriceTable(self._prices.values(), user)


def parse_user_prices(raw: Mapping[str, Any] | str | None, *, where: str = "prices") -> list[Price]:
    """User lines from `{"model": {"input": 1.0, "output": 2.0}}` or `{"model": [1.0, 2.0]}` (USD per
    million tokens), as a mapping or JSON text; raises ConfigError naming the bad entry."""
    if raw is None or raw == "":
        return []
    if isinstance(raw, str):
        try:
            raw = untrusted.loads(raw, max_depth=None)  # nested too deeply is a ValueError too
        except ValueError as exc:
            raise ConfigError(f"{where} is not valid JSON ({getattr(exc, 'msg', exc)})") from None
    if not isinstance(raw, Mapping):
        raise ConfigError(f'{where} must map model names to prices, e.g. {{"my-model": [0.5, 1.5]}}')
    out = []
    for model, value in raw.items():
        if isinstance(value, Mapping):
            pair = (value.get("input"), value.get("output"))
            source = str(value.get("source") or "user setting")
        elif isinstance(value, (list, tuple)) and len(value) == 2:
            pair, source = tuple(value), "user setting"
        else:
            raise ConfigError(
                f"{where}[{model!r}] must be [input, output] or {{input = ..., output = ...}} in USD per million tokens"
            )
        prices = [_price_value(v, f"{where}[{model!r}]") for v in pair]
        if not str(model).strip():
            raise ConfigError(f"{where}: a model name is empty")
        out.append(Price(str(model).strip(), prices[0], prices[1], "user", source))
    return out


def _price_value(value: Any, where: str) -> float:
    # (an int past a float's range, 10**400, is refused before math.isfinite would raise OverflowError)
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or abs(value) > 1e12
        or not math.isfinite(value)
        or value < 0
    ):
        raise ConfigError(f"{where}: prices must be numbers of USD per million tokens, 0 or more; got {value!r}")
    return float(value)


def configured_table(secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> PriceTable:
    """The built-in table with the user's lines from settings: `[prices]` in secrets, then AGENT_PRICES.

    A broken setting raises ConfigError naming it, so a typo is never a silent zero.
    """
    from .settings import _streamlit_secrets

    sec = _streamlit_secrets() if secrets is None else secrets
    env = os.environ if environ is None else environ
    user = parse_user_prices(env.get(PRICES_ENV), where=PRICES_ENV)
    user += parse_user_prices(sec.get("prices"), where="secrets [prices]")  # secrets outrank the environment
    return PriceTable(PRICES, user)


# --- what a run cost ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spend:
    """What some calls cost: USD for the calls whose model has a price, and which models have none."""

    usd: float
    unknown_models: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        return not self.unknown_models


def spend(events: Iterable[ev.Event], table: PriceTable) -> Spend:
    """The cost of every LLM call in `events`, priced by the model that answered it."""
    usd, unknown = 0.0, []
    for e in events:
        if isinstance(e, ev.LlmCall):
            cost = table.cost(e.model, e.prompt_tokens, e.completion_tokens)
            if cost is None:
                if e.model not in unknown:
                    unknown.append(e.model)
            else:
                usd += cost
    return Spend(usd, tuple(unknown))


# --- the worst case before a run ------------------------------------------------------------------

#: Chat formatting a server counts per message (role markers and separators), generously.
MESSAGE_OVERHEAD = 8


@dataclass(frozen=True)
class WorstCase:
    """The most tokens a run can use: prompt and completion tokens summed over its calls.

    `None` counts mean there is no bound: an output cap of 0 sends no `max_tokens`.
    """

    calls: int
    prompt_tokens: int | None
    completion_tokens: int | None

    @property
    def total_tokens(self) -> int | None:
        if self.prompt_tokens is None or self.completion_tokens is None:
            return None
        return self.prompt_tokens + self.completion_tokens

    def cost(self, price: Price | None) -> float | None:
        """USD at `price`; None when the price or the bound is unknown."""
        if price is None or self.prompt_tokens is None or self.completion_tokens is None:
            return None
        return price.cost(self.prompt_tokens, self.completion_tokens)


def worst_case(config: RunConfig, task: str, bound: int | None = None) -> WorstCase:
    """The most tokens a run of `config` on `task` can use, when it makes `bound` calls (default: its
    call bound, agent_core.call_bound).

    With P the fixed text of a call (every prompt template of the pattern, each with the task, the
    criteria and the tests filled in, plus message overhead), O the largest output cap of any role
    and R the largest tool result one call can add to the context (tools.MAX_OUTPUT_CHARS, when the
    run has tools), call i carries at most P + (i - 1)(O + R + overhead) prompt tokens: everything
    earlier calls wrote and every result they got. So, over B calls,

        prompt tokens     <= B * P + B(B - 1)/2 * (O + R + overhead)
        completion tokens <= B * O

    It assumes at most one tool result per call (the scenarios' tools are called one at a time) and
    counts tokens as agent_core.messages.estimate_tokens does (~4 characters, or 1 CJK character, a
    token); a real tokenizer may count differently, so it is an estimate of the worst case.
    """
    from . import runner
    from .patterns import registry
    from .tools import MAX_OUTPUT_CHARS

    calls = runner.call_bound(config) if bound is None else bound
    caps = [config.max_output_tokens, *config.max_output_tokens_by_role.values()]
    if calls and not all(caps):
        return WorstCase(calls, None, None)  # a role without a cap: a reply can be as long as the model likes
    output = max(caps) if caps else 0
    pattern = registry.get(config.pattern)
    # the task and the pattern's free-text options (criteria, tests...) may be filled into every prompt
    texts = [task, *(getattr(config.options, f.name) for f in pattern.text_fields)]
    filled = sum(estimate_tokens(text) for text in texts)
    fixed = (
        sum(
            estimate_tokens(config.prompts.get(key) or spec.default(config.lang)) + filled
            for key, spec in pattern.prompt_specs().items()
        )
        + 2 * MESSAGE_OVERHEAD
    )
    result = MAX_OUTPUT_CHARS if config.tools else 0  # a result is at most this many characters: <= as many tokens
    growth = output + result + 2 * MESSAGE_OVERHEAD
    prompt = calls * fixed + calls * (calls - 1) // 2 * growth
    return WorstCase(calls, prompt, calls * output)
