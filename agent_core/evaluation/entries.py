"""Named entries: an Eval row's "pattern" that is a label and a whole run config, not a pattern's name.

A workshop room's submissions are prompt variants: a pattern with its prompts, limits and switches as a
participant set them. Eval runs each as an `Entry` beside (or instead of) the patterns by name; its
rows carry the entry's label where a pattern's rows carry the pattern's name, so the summary, the
intervals, the paired comparison and the cost per solved task read entries unchanged, and carry the
pattern the entry runs besides (`ResultRow.runs`).

Everything here is parsed at the border, before anything runs: a label is participant text, so it is
cut to MAX_LABEL_CHARS with its control and format characters dropped, and labels that repeat (or
name a pattern Eval runs by name) are made unique with " (2)", " (3)"...; a config must parse, be of a
pattern Eval can run, keep its prompts under MAX_PROMPT_CHARS and pass the pattern's own checks.
What does not is an EntryError, in English and Chinese.

An entry keeps its own prompts, limits, switches and language (its prompts were written in it). What
Eval sets for every run of a pattern it sets for an entry too: no scenario and no tools (the task is
the task set's), the options Eval runs the pattern with on code tasks (its `eval_defaults`, e.g.
Reflection's code mode) and none of the harness's own (the unit tests stay hidden: they judge).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..config import RunConfig
from ..errors import AgentError, ConfigError
from ..patterns import registry
from ..text import Text

#: the longest label kept (a participant's name, cut)
MAX_LABEL_CHARS = 40
#: the most entries one evaluation runs
MAX_ENTRIES = 8
#: the most prompt text one entry carries, all its prompts together
MAX_PROMPT_CHARS = 32_000


class EntryError(ConfigError):
    """An entry Eval cannot run; `text` says why in English and Chinese."""

    def __init__(self, text: Text) -> None:
        super().__init__(text.en)
        self.text = text

    def message(self, lang: str = "en") -> str:
        return self.text(lang)


@dataclass(frozen=True)
class Entry:
    """A label and the run config Eval runs under it."""

    label: str
    config: RunConfig

    @property
    def pattern(self) -> str:
        return self.config.pattern


def clean_label(value: object) -> str:
    """A label from participant text: control and format characters out (an escape sequence, a
    right-to-left override), whitespace runs as one space, cut at MAX_LABEL_CHARS."""
    raw = value if isinstance(value, str) else ""
    kept = "".join(" " if ch.isspace() else ch for ch in raw[: MAX_LABEL_CHARS * 4] if not _control(ch))
    return " ".join(kept.split())[:MAX_LABEL_CHARS].strip()


def _control(ch: str) -> bool:
    return unicodedata.category(ch).startswith("C") and not ch.isspace()


def _unique(label: str, taken: set[str]) -> str:
    if label not in taken:
        return label
    n = 2
    while True:
        tail = f" ({n})"
        candidate = label[: MAX_LABEL_CHARS - len(tail)] + tail
        if candidate not in taken:
            return candidate
        n += 1


def run_config(config: RunConfig | Mapping[str, Any]) -> RunConfig:
    """A submission's config as Eval runs it, checked; EntryError naming what is wrong."""
    try:
        parsed = config if isinstance(config, RunConfig) else registry.config_from_dict(_mapping(config))
    except (AgentError, TypeError, ValueError) as exc:
        raise EntryError(Text(f"the entry's config does not parse: {exc}", f"条目的配置无法解析：{exc}")) from None
    spec = registry.get(parsed.pattern)
    if not spec.eval_entries:
        raise EntryError(Text(f"Eval does not run the {parsed.pattern} pattern", f"评测不运行 {parsed.pattern} 模式"))
    size = sum(len(body) for body in parsed.prompts.values())
    if size > MAX_PROMPT_CHARS:
        raise EntryError(
            Text(
                f"the entry's prompts hold {size:,} characters; the limit is {MAX_PROMPT_CHARS:,}",
                f"条目的提示词共 {size:,} 个字符，上限为 {MAX_PROMPT_CHARS:,}",
            )
        )
    plain = spec.options().to_dict()
    owned = {name: plain[name] for name in spec.eval_owned if name in plain}
    try:
        ran = parsed.replace(scenario=None, tools=(), **{**owned, **spec.eval_defaults})
        registry.validate(ran, spec)
    except AgentError as exc:
        raise EntryError(Text(f"the entry cannot run in Eval: {exc}", f"该条目无法在评测中运行：{exc}")) from None
    return ran


def _mapping(config: object) -> Mapping[str, Any]:
    if not isinstance(config, Mapping):
        raise TypeError(f"expected a mapping of run options, got {type(config).__name__}")
    return config


def parse(
    items: Iterable[Entry | tuple[object, RunConfig | Mapping[str, Any]]], taken: Iterable[str] = ()
) -> tuple[Entry, ...]:
    """Entries from (label, config) pairs (or Entries): labels cleaned and made unique against each
    other and `taken` (the patterns run by name beside them), configs checked. An empty label is
    refused, as are more than MAX_ENTRIES entries."""
    items = list(items)
    if len(items) > MAX_ENTRIES:
        raise EntryError(
            Text(
                f"{len(items)} entries; one evaluation runs at most {MAX_ENTRIES}",
                f"共 {len(items)} 个条目；一次评测最多运行 {MAX_ENTRIES} 个",
            )
        )
    used = set(taken)
    out = []
    for item in items:
        label, config = (item.label, item.config) if isinstance(item, Entry) else item
        cleaned = clean_label(label)
        if not cleaned:
            raise EntryError(Text("an entry needs a label", "每个条目都需要一个名称"))
        cleaned = _unique(cleaned, used)
        used.add(cleaned)
        out.append(Entry(cleaned, run_config(config)))
    return tuple(out)


def drafts_scored(pattern: str) -> bool:
    """Whether Eval scores every draft of a run of `pattern` (the rounds view), as it does for the
    pattern's own entries."""
    return any(e.rounds for e in registry.get(pattern).eval_entries)
