"""Diffs between successive drafts: a unified line diff, word-level segments, stats, side-by-side rows.

Everything runs on difflib. Word diffs first align sentences (and lines) and only tokenise the runs
that changed, so a small edit in a 5,000-line draft, or in one long paragraph of Chinese, costs a
sentence alignment plus a few short token diffs.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from itertools import zip_longest

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


@dataclass(frozen=True)
class DiffStats:
    """How much a draft changed. `changed_ratio` is the share of both texts' characters outside
    unchanged segments: 0.0 for identical drafts, 1.0 for drafts with nothing in common."""

    added_lines: int
    removed_lines: int
    changed_ratio: float


def tokens(text: str) -> list[str]:
    """Split text into diff tokens: CJK per character, other words with their trailing whitespace."""
    return _TOKEN.findall(text)


def sentences(text: str) -> list[str]:
    """Split text into sentences and lines that join back to `text` exactly."""
    return [part for part in _SENTENCE_END.split(text) if part]


def line_diff(a: str, b: str, version: int = 1, context: int = 3) -> str:
    """A unified diff from draft `version` to draft `version + 1` ("" when they are equal)."""
    return "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), f"draft {version}",
                                          f"draft {version + 1}", n=context, lineterm=""))


def word_diff(a: str, b: str) -> list[tuple[str, str]]:
    """Segments (tag, text) with tag "equal", "delete" or "insert"; the equal and deleted segments
    spell `a`, the equal and inserted ones spell `b`."""
    la, lb = sentences(a), sentences(b)
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, la, lb, autojunk=False).get_opcodes():
        old, new = "".join(la[i1:i2]), "".join(lb[j1:j2])
        if tag == "equal":
            _append(out, "equal", old)
        elif tag == "replace":
            _token_diff(out, old, new)
        else:
            _append(out, "delete", old)
            _append(out, "insert", new)
    return out


def _token_diff(out: list[tuple[str, str]], a: str, b: str) -> None:
    ta, tb = tokens(a), tokens(b)
    if len(ta) * len(tb) > _MAX_TOKEN_PRODUCT:
        _append(out, "delete", a)
        _append(out, "insert", b)
        return
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
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


def diff_stats(a: str, b: str) -> DiffStats:
    """Lines added and removed, and the share of characters that changed."""
    la, lb = a.splitlines(), b.splitlines()
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, la, lb, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    total = len(a) + len(b)
    changed = sum(len(text) for tag, text in word_diff(a, b) if tag != "equal")
    return DiffStats(added, removed, round(changed / total, 4) if total else 0.0)


def side_by_side(a: str, b: str) -> list[tuple[str, str, str]]:
    """Rows (left line, right line, tag) for a two-column view; tag is "equal", "replace", "delete"
    (left only) or "insert" (right only), and the missing side is ""."""
    la, lb = a.splitlines(), b.splitlines()
    rows: list[tuple[str, str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, la, lb, autojunk=False).get_opcodes():
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
