"""The orchestrator's replies, parsed at the border: a split into subtasks, and a review of a round.

A split is `{"subtasks": [{"id": 1, "instruction": "...", "tool": "..."}]}`, a bare list, or seed 05's
numbered object; an entry may be an object or a plain instruction. A review is
`{"decision": "DONE" | "REDISPATCH", "reason": "...", "subtasks": [{"id": 2, "instruction": "..."}]}`,
or a reply whose first word is the decision ("REDISPATCH: the booking failed"). Entries of a review
that name a subtask's id redo it; entries without one add a subtask. The loop never sees the JSON:
only `SplitItem`, `Review` and `Redo`, or None when a reply holds nothing usable.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from ...verdicts import extract_json, json_items, strip_think

#: The review's decisions (the verdicts a person may give), and the words models use for them.
DONE, REDISPATCH = "DONE", "REDISPATCH"
DECISIONS = (DONE, REDISPATCH)
_SYNONYMS = {
    "DONE": DONE,
    "PASS": DONE,
    "ACCEPT": DONE,
    "FINISH": DONE,
    "FINISHED": DONE,
    "COMPLETE": DONE,
    "REDISPATCH": REDISPATCH,
    "RE-DISPATCH": REDISPATCH,
    "DISPATCH": REDISPATCH,
    "REDO": REDISPATCH,
    "RETRY": REDISPATCH,
    "REVISE": REDISPATCH,
}
#: the words that say a decision as a reply's first word: a bare "Complete the booking" is no decision
_BARE = frozenset({"DONE", "PASS", "REDISPATCH", "RE-DISPATCH", "REDO"})

_INSTRUCTION_KEYS = ("instruction", "description", "subtask", "task", "goal", "step", "title", "content")
_TOOL_KEYS = ("tool", "tool_hint", "toolHint", "tool_name", "toolName")
_NO_TOOL = ("", "null", "none", "n/a", "无", "不需要")
#: the longest first word a bare decision may have (a reply is model output: scanned, never backtracked)
_WORD = 16


@dataclass(frozen=True)
class SplitItem:
    """One subtask as the orchestrator wrote it: what the worker is to do, and the tool it suggests."""

    instruction: str
    tool: str | None = None


@dataclass(frozen=True)
class Redo:
    """One entry of a REDISPATCH: a subtask to run again (`id`) with a new instruction ("" keeps its
    own), or a new subtask (`id` None)."""

    id: int | None
    instruction: str = ""
    tool: str | None = None


@dataclass(frozen=True)
class Review:
    """The orchestrator's decision after a round: DONE, or REDISPATCH with what to run again and why."""

    decision: str
    reason: str = ""
    subtasks: tuple[Redo, ...] = ()
    #: False when the reply could not be read and this is the fallback
    parsed: bool = True
    #: why the fallback was taken (shown as the verdict's analysis)
    note: str = ""


def parse_split(text: str, tools: Collection[str] = ()) -> list[SplitItem] | None:
    """The subtasks of a split, in order; None when the reply holds none. A tool hint that names no
    known tool becomes None (matched loosely: "queryOrder" is "query_order")."""
    entries = json_items(text, ("subtasks", "tasks", "steps", "plan"))
    if entries is None:
        return None
    items = [item for item in (_item(e, tools) for e in entries) if item is not None]
    return items or None


def parse_review(text: str, tools: Collection[str] = ()) -> Review | None:
    """The decision of a review; None when the reply holds none."""
    data = extract_json(text)
    if isinstance(data, dict):
        decision = _decision(next((data[k] for k in ("decision", "verdict", "action") if k in data), None))
        if decision is not None:
            reason = next((_text(data[k]) for k in ("reason", "analysis", "feedback") if _text(data.get(k))), "")
            raw = next((data[k] for k in ("subtasks", "redispatch", "redo", "dispatch") if k in data), None)
            redo = tuple(r for r in (_redo(e, tools) for e in _as_list(raw)) if r is not None)
            return Review(decision, reason, redo if decision == REDISPATCH else ())
    body = strip_think(text)
    head, rest = _first_word(body)
    decision = _decision(head) if head.upper() in _BARE else None
    if decision is None:
        return None
    return Review(decision, rest.lstrip(" :：-—,，").strip())


def _first_word(body: str) -> tuple[str, str]:
    """The reply's first word (up to _WORD characters, stars and quotes around it dropped) and the rest."""
    start = 0
    while start < len(body) and body[start] in "*#\"'` ":
        start += 1
    end = start
    while end < len(body) and end - start < _WORD and (body[end].isalpha() or body[end] == "-"):
        end += 1
    rest = body[end:]
    while rest[:1] in ("*", '"', "'", "`"):
        rest = rest[1:]
    return body[start:end], rest


def _decision(value: Any) -> str | None:
    return _SYNONYMS.get(value.strip().upper()) if isinstance(value, str) else None


def _item(raw: Any, tools: Collection[str]) -> SplitItem | None:
    if isinstance(raw, str):
        return SplitItem(raw.strip()) if raw.strip() else None
    if not isinstance(raw, dict):
        return None
    instruction = _instruction(raw)
    return SplitItem(instruction, _tool(raw, tools)) if instruction else None


def _redo(raw: Any, tools: Collection[str]) -> Redo | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return Redo(raw)
    if isinstance(raw, str):
        stripped = raw.strip()
        if stripped.isdigit():
            return Redo(int(stripped))
        return Redo(None, stripped) if stripped else None
    if not isinstance(raw, dict):
        return None
    ident = _id(raw.get("id"))
    instruction = _instruction(raw)
    if ident is None and not instruction:
        return None
    return Redo(ident, instruction, _tool(raw, tools))


def _instruction(raw: dict[str, Any]) -> str:
    return next((v.strip() for k in _INSTRUCTION_KEYS if isinstance(v := raw.get(k), str) and v.strip()), "")


def _tool(raw: dict[str, Any], tools: Collection[str]) -> str | None:
    value = next((raw[k] for k in _TOOL_KEYS if k in raw), None)
    if not isinstance(value, str) or value.strip().lower() in _NO_TOOL:
        return None

    def key(name: str) -> str:
        return name.strip().lower().replace("_", "").replace("-", "")

    return next((t for t in tools if key(t) == key(value)), None)


def _id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _as_list(value: Any) -> Iterable[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [value]
    return [value] if isinstance(value, (int, str)) and not isinstance(value, bool) else []


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (list, tuple)):
        return "; ".join(_text(v) for v in value if _text(v))
    return ""
