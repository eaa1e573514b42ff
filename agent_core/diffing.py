"""Diffs between successive drafts: a unified line diff, word-level segments, stats, side-by-side rows.

Everything runs on difflib. Word diffs first align sentences (and lines) and only tokenise the runs
that changed, so a small edit in a 5,000-line draft, or in one long paragraph of Chinese, costs a
sentence alignment plus a few short token diffs.

Every alignment has a cost bound. difflib's matcher is far worse than linear on text with many
repeated lines (a 13 KB uploaded trace cost 78 CPU seconds), so each diff gets a `Budget` of element
comparisons, counted before they are made. When it runs out, the rest of that diff is aligned the
cheap way (common head and tail kept, the middle shown as replaced) and `budget.exhausted` says so,
for the page to tell the reader.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import accumulate, zip_longest
from typing import Any, Literal

#: difflib's (tag, i1, i2, j1, j2)
Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]

#: Scripts written without spaces between words; each of their characters is one token.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
# A CJK character, a Latin word, a punctuation mark (each with the whitespace after it), or leading
# whitespace. Trailing whitespace rides on its token so common spaces do not anchor spurious matches.
_TOKEN = re.compile(rf"[{_CJK}]\s*|[^\W{_CJK}]+\s*|[^\w\s]\s*|\s+")
#: Sentence ends: after a line break, after ". " and the like, after a CJK full stop.
_SENTENCE_END = re.compile(r"(?<=\n)|(?<=[.!?;:] )|(?<=[。！？；])")

#: Changed runs larger than this (tokens before * tokens after) are shown as one deletion and one
#: insertion: difflib's alignment grows with that product (about 0.1 s at 10 million), and a
#: rewrite that large has no useful word-level story.
_MAX_TOKEN_PRODUCT = 10_000_000
#: Element comparisons one diff may spend (lines, sentences and tokens together): about 0.1 s here
#: (a comparison is ~0.3 µs). Ordinary drafts use a few per element (a 5,000-line draft with
#: scattered edits about 110,000); only text built of repeats comes near it.
MAX_DIFF_WORK = 300_000


@dataclass
class Budget:
    """What one diff may still spend; `exhausted` once a part of it was aligned the cheap way."""

    left: int = MAX_DIFF_WORK
    exhausted: bool = False


class _OutOfBudget(Exception):
    pass


class _Bounded(difflib.SequenceMatcher[Hashable]):
    """difflib's matcher, charged before each longest-match search with the comparisons it will make."""

    # difflib's own attributes, which typeshed leaves out: the sequence a, and b's positions by element
    a: Sequence[Hashable]
    b2j: dict[Hashable, list[int]]

    def __init__(self, a: Sequence[Hashable], b: Sequence[Hashable], budget: Budget) -> None:
        self.budget = budget
        super().__init__(None, a, b, autojunk=False)
        # find_longest_match(alo, ahi, ...) visits every position in b of every element of a[alo:ahi]:
        # the prefix sums of those counts price a search in O(1)
        self._cost = list(accumulate((len(self.b2j.get(x, ())) + 1 for x in a), initial=0))

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> difflib.Match:
        ahi = len(self.a) if ahi is None else ahi
        self.budget.left -= self._cost[ahi] - self._cost[alo]
        if self.budget.left < 0:
            raise _OutOfBudget
        return super().find_longest_match(alo, ahi, blo, bhi)


def opcodes(a: Sequence[Hashable], b: Sequence[Hashable], budget: Budget | None = None) -> list[Opcode]:
    """difflib-style opcodes from `a` to `b`, within `budget` (a fresh one if None)."""
    budget = Budget() if budget is None else budget
    if a == b:  # the common case of an unchanged run of lines costs nothing
        return [("equal", 0, len(a), 0, len(b))] if len(a) else []
    if not budget.exhausted:
        found, budget.left = _bounded(tuple(a), tuple(b), budget.left)
        if found is not None:
            return list(found)
        budget.exhausted = True
    return _cheap_opcodes(a, b)


@functools.lru_cache(maxsize=256)
def _bounded(a: tuple[Hashable, ...], b: tuple[Hashable, ...], left: int) -> tuple[tuple[Opcode, ...] | None, int]:
    """difflib's opcodes within `left` comparisons, and what is left after (None: it ran out). Kept for
    the latest alignments: the result follows from the arguments alone, and a room's forty seats draw the
    same drafts' diffs, so the server aligns them once, not once per seat."""
    budget = Budget(left)
    try:
        return tuple(_Bounded(a, b, budget).get_opcodes()), budget.left
    except _OutOfBudget:
        return None, budget.left


def _cheap_opcodes(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[Opcode]:
    """A linear-time diff: the common head and tail are equal, the rest is replaced."""
    n, m = len(a), len(b)
    head = 0
    while head < min(n, m) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(n, m) - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    out: list[Opcode] = []
    if head:
        out.append(("equal", 0, head, 0, head))
    if head < n - tail or head < m - tail:
        tag: Literal["replace", "delete", "insert"] = (
            "replace" if head < n - tail and head < m - tail else "delete" if head < n - tail else "insert"
        )
        out.append((tag, head, n - tail, head, m - tail))
    if tail:
        out.append(("equal", n - tail, n, m - tail, m))
    return out


@dataclass(frozen=True)
class DiffStats:
    """How much a draft changed. `changed_ratio` is the share of both texts' characters outside
    unchanged segments: 0.0 for identical drafts, 1.0 for drafts with nothing in common."""

    added_lines: int
    removed_lines: int
    changed_ratio: float
    #: False when the diff ran out of its budget and part of it was aligned the cheap way
    exact: bool = True


def tokens(text: str) -> list[str]:
    """Split text into diff tokens: CJK per character, other words with their trailing whitespace."""
    return _TOKEN.findall(text)


def sentences(text: str) -> list[str]:
    """Split text into sentences and lines that join back to `text` exactly."""
    return [part for part in _SENTENCE_END.split(text) if part]


def line_diff(
    a: str,
    b: str,
    version: int = 1,
    context: int = 3,
    budget: Budget | None = None,
    names: tuple[str, str] | None = None,
) -> str:
    """A unified diff from draft `version` to draft `version + 1` ("" when they are equal); `names`
    replaces the two "draft N" headers."""
    la, lb = a.splitlines(), b.splitlines()
    matcher = difflib.SequenceMatcher[str](None, (), ())
    # get_grouped_opcodes reads difflib's cache of opcodes (an attribute typeshed leaves out) instead of aligning
    matcher.opcodes = opcodes(la, lb, budget)  # type: ignore[attr-defined]
    old, new = names or (f"draft {version}", f"draft {version + 1}")
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(context):
        if not out:
            out += [f"--- {old}", f"+++ {new}"]
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in la[i1:i2]]
                continue
            out += ["-" + line for line in la[i1:i2]]
            out += ["+" + line for line in lb[j1:j2]]
    return "\n".join(out)


def _range(start: int, stop: int) -> str:
    """A unified diff's line range, as difflib writes it."""
    length = stop - start
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def word_diff(a: str, b: str, budget: Budget | None = None) -> list[tuple[str, str]]:
    """Segments (tag, text) with tag "equal", "delete" or "insert"; the equal and deleted segments
    spell `a`, the equal and inserted ones spell `b`."""
    budget = Budget() if budget is None else budget
    out: list[tuple[str, str]] = []
    # lines first: a long draft repeats sentences ("the report says 7 things.") far more than lines
    _aligned(out, a.splitlines(keepends=True), b.splitlines(keepends=True), budget, sentences)
    return out


def _aligned(out: list[tuple[str, str]], la: list[str], lb: list[str], budget: Budget, finer: Any) -> None:
    """Align `la` with `lb`; replaced runs are aligned again split by `finer` (sentences), then by tokens."""
    for tag, i1, i2, j1, j2 in opcodes(la, lb, budget):
        old, new = "".join(la[i1:i2]), "".join(lb[j1:j2])
        if tag == "equal":
            _append(out, "equal", old)
        elif tag == "replace" and finer is not None:
            _aligned(out, finer(old), finer(new), budget, None)
        elif tag == "replace":
            _token_diff(out, old, new, budget)
        else:
            _append(out, "delete", old)
            _append(out, "insert", new)


def _token_diff(out: list[tuple[str, str]], a: str, b: str, budget: Budget) -> None:
    ta, tb = tokens(a), tokens(b)
    if len(ta) * len(tb) > _MAX_TOKEN_PRODUCT:
        _append(out, "delete", a)
        _append(out, "insert", b)
        return
    for tag, i1, i2, j1, j2 in opcodes(ta, tb, budget):
        if tag == "equal":
            _append(out, "equal", "".join(ta[i1:i2]))
        else:
            _append(out, "delete", "".join(ta[i1:i2]))
            _append(out, "insert", "".join(tb[j1:j2]))


def _append(out: list[tuple[str, str]], tag: str, text: str) -> None:
    """Add a segment, merging it into the previous one when the tags match."""
    if not text:
        return
    if out and out[-1][0] == tag:
        out[-1] = (tag, out[-1][1] + text)
    elif tag == "delete" and out and out[-1][0] == "insert":
        # Keep "delete before insert" inside a changed run, whatever order the blocks came in.
        ins = out.pop()
        _append(out, "delete", text)
        out.append(ins)
    else:
        out.append((tag, text))


def diff_stats(a: str, b: str, budget: Budget | None = None) -> DiffStats:
    """Lines added and removed, and the share of characters that changed."""
    budget = Budget() if budget is None else budget
    la, lb = a.splitlines(), b.splitlines()
    added = removed = 0
    for tag, i1, i2, j1, j2 in opcodes(la, lb, budget):
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    total = len(a) + len(b)
    changed = sum(len(text) for tag, text in word_diff(a, b, budget) if tag != "equal")
    return DiffStats(added, removed, round(changed / total, 4) if total else 0.0, exact=not budget.exhausted)


def side_by_side(a: str, b: str, budget: Budget | None = None) -> list[tuple[str, str, str]]:
    """Rows (left line, right line, tag) for a two-column view; tag is "equal", "replace", "delete"
    (left only) or "insert" (right only), and the missing side is ""."""
    la, lb = a.splitlines(), b.splitlines()
    rows: list[tuple[str, str, str]] = []
    for tag, i1, i2, j1, j2 in opcodes(la, lb, budget):
        if tag == "equal":
            rows += [(line, line, "equal") for line in la[i1:i2]]
            continue
        for left, right in zip_longest(la[i1:i2], lb[j1:j2]):
            if left is None:
                rows.append(("", right, "insert"))
            elif right is None:
                rows.append((left, "", "delete"))
            else:
                rows.append((left, right, "replace"))
    return rows
