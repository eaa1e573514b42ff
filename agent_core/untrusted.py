"""Parsing text that comes from participants, models and endpoints: linear time, bounded depth.

A workshop serves one process to a room, and a parse runs in it with the GIL held, outside any
judge's timeout: a regex that backtracks (a 150 KB run of backticks once held the whole server for
36 s) stalls every session, the health check included. So the shapes read from untrusted text here
are scanned by hand, in one pass, and JSON is parsed with its nesting bounded and every way it can
fail turned into a ValueError.
"""

from __future__ import annotations

import json
from typing import Any

#: Nesting a JSON value parsed from a string inside untrusted data may have (the trace's own limit).
MAX_JSON_DEPTH = 32

_FENCE = "```"
#: The language tag of a fence: what the old pattern's `[\w+.-]*` took.
_TAG_PUNCTUATION = frozenset("_+.-")


def code_blocks(text: str) -> list[tuple[str, str]]:
    """Every fenced block in `text` as (language tag, body), in order.

    A block opens with three backticks, an optional tag (letters, digits, `_+.-`) and the rest of
    that line, and runs to the next three backticks or to the end of the text (a reply cut off mid
    block still has its code). This is what ``re.findall(r"```[ \\t]*([\\w+.-]*)[^\\n]*\\n(.*?)(?:```|\\Z)",
    text, re.DOTALL)`` returns, found in one pass: the pattern re-scanned the rest of a line from
    every backtick on it, so a line of n backticks cost n² steps.
    """
    blocks: list[tuple[str, str]] = []
    at, end = 0, len(text)
    while True:
        start = text.find(_FENCE, at)
        if start < 0:
            return blocks
        newline = text.find("\n", start + 3)
        if newline < 0:
            # no line break after this fence, so none after any later one on this (last) line either
            return blocks
        i = start + 3
        while i < newline and text[i] in " \t":
            i += 1
        tag_start = i
        while i < newline and (text[i].isalnum() or text[i] in _TAG_PUNCTUATION):
            i += 1
        tag = text[tag_start:i]
        close = text.find(_FENCE, newline + 1)
        if close < 0:
            blocks.append((tag, text[newline + 1 :]))
            return blocks
        blocks.append((tag, text[newline + 1 : close]))
        at = close + 3
        if at >= end:
            return blocks


def defines(code: str, name: str) -> bool:
    """True when a line of `code` starts (after indentation) with `def name(`.

    Line by line: the pattern `^\\s*def\\s+name\\s*\\(` let `\\s*` run across line breaks, so a text of
    n blank lines cost n² steps.
    """
    for line in code.splitlines():
        rest = line.lstrip()
        if not rest.startswith("def") or not rest[3:4].isspace():
            continue
        rest = rest[3:].lstrip()
        if rest.startswith(name) and rest[len(name) :].lstrip().startswith("("):
            return True
    return False


class JSONTooDeep(ValueError):
    """JSON nested deeper than its reader allows."""


def loads(text: str | bytes, *, max_depth: int | None = MAX_JSON_DEPTH) -> Any:
    """`json.loads`, but every failure is a ValueError: nesting past `max_depth` (or past the
    interpreter's recursion limit, which json's C scanner turns into RecursionError), numbers of more
    than 4,300 digits, bytes that are not UTF-8. `max_depth=None` checks only what json itself does."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTooDeep("the JSON is nested too deeply") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if max_depth is not None and too_deep(value, max_depth):
        raise JSONTooDeep(f"the JSON is nested more than {max_depth} levels deep")
    return value


def too_deep(value: Any, limit: int) -> bool:
    """True when JSON data nests more than `limit` levels (a scalar is level 1); no recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return False


def dumps(value: Any) -> str | None:
    """`json.dumps(value, ensure_ascii=False)`, or None for a value json cannot write (nested past
    the recursion limit, or holding an object of another type)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None
