"""Word and line diffs as a room reads them: lines wrap, deletions struck through, insertions underlined.

Colour alone does not tell a deletion from an insertion on a projector or to a colour-blind reader,
so each change also has its own line: `<del>` strikes through, `<ins>` underlines. Markdown cannot
underline without raw HTML, so the word diff is drawn with `st.html` from `diff_html`, which escapes
every piece of text (html.escape) before it goes between the tags: model text stays text. Code keeps
its monospace font and indentation (`white-space: pre-wrap` also wraps long lines instead of cutting
them off at the right edge).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

import streamlit as st

from agent_core.diffing import Budget, line_diff, word_diff

from .i18n import t

#: the class every word diff carries, for the browser tests and nothing else
CSS_CLASS = "apg-diff"
_BOX = (
    "white-space: pre-wrap; overflow-wrap: anywhere; word-break: normal; line-height: 1.6; margin: 0; max-width: 100%;"
)
_CODE = (
    "font-family: 'Source Code Pro', ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; "
    "font-size: 0.875em; tab-size: 4; padding: 0.75rem 1rem; border-radius: 0.5rem; "
    "background: rgba(128, 128, 128, 0.08);"
)
#: the line itself tells the change (struck / underlined), the tint only helps
_TAGS = {
    "delete": (
        "del",
        "text-decoration: line-through; text-decoration-thickness: 2px; "
        "background: rgba(255, 75, 75, 0.22); border-radius: 2px;",
    ),
    "insert": (
        "ins",
        "text-decoration: underline; text-decoration-thickness: 2px; text-underline-offset: 3px; "
        "background: rgba(33, 195, 84, 0.22); border-radius: 2px;",
    ),
}


def diff_html(segments: Iterable[tuple[str, str]], code: bool = False) -> str:
    """Word-diff segments (tag, text) as one HTML block, every text escaped; `code` keeps monospace."""
    pieces = []
    for tag, text in segments:
        body = html.escape(text, quote=True)
        if tag in _TAGS:
            name, style = _TAGS[tag]
            pieces.append(f'<{name} style="{style}">{body}</{name}>')
        else:
            pieces.append(body)
    style = _BOX + (_CODE if code else "")
    return f'<div class="{CSS_CLASS}" style="{style}">{"".join(pieces)}</div>'


_CODE_LINE = re.compile(r"^(?:def |class |import |from \S+ import |\s{4}\S|\t\S|```)", re.MULTILINE)


def looks_like_code(*texts: str) -> bool:
    """Whether answers of unknown kind read as code (two or more code-shaped lines in one of them):
    Compare and a fork's pair view do not know whether their lanes ran a code task."""
    return any(len(_CODE_LINE.findall(body[:20_000])) >= 2 for body in texts)


def sides(segments: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The old text's segments (equal and deleted) and the new text's (equal and inserted)."""
    return [s for s in segments if s[0] != "insert"], [s for s in segments if s[0] != "delete"]


def legend() -> None:
    """One line saying how changes are marked, so nobody has to guess from the colours."""
    st.html(
        f'<div style="font-size: 0.8rem; opacity: 0.75;">{html.escape(t("diffs.legend_before"))} '
        f'<del style="{_TAGS["delete"][1]}">{html.escape(t("diffs.deleted"))}</del> · '
        f'<ins style="{_TAGS["insert"][1]}">{html.escape(t("diffs.inserted"))}</ins></div>'
    )


def word_diff_block(
    old: str,
    new: str,
    *,
    code: bool = False,
    layout: str = "inline",
    names: tuple[str, str] | None = None,
    budget: Budget | None = None,
) -> None:
    """Draw a word diff, inline or side by side, with its legend; `names` caption the two sides."""
    segments = word_diff(old, new, budget)
    legend()
    if layout == "side by side":
        left, right = st.columns(2, gap="medium")
        for column, part, name in zip((left, right), sides(segments), names or ("", ""), strict=True):
            with column.container(border=True):
                if name:
                    st.caption(name)
                if part:
                    st.html(diff_html(part, code))
                else:
                    st.caption(t("diffs.empty"))
        return
    if segments:
        st.html(diff_html(segments, code))
    else:
        st.caption(t("diffs.empty"))


def line_diff_block(
    old: str, new: str, *, names: tuple[str, str] | None = None, version: int = 1, budget: Budget | None = None
) -> None:
    """A unified line diff whose long lines wrap instead of running off the right edge."""
    st.code(
        line_diff(old, new, version, budget=budget, names=names) or t("diffs.no_line_changed"),
        language="diff",
        wrap_lines=True,
    )
