"""Model and user text made safe for Streamlit markdown, and highlighted spans as coloured markdown
(word diffs are drawn by diff_view.py).

Model output is never trusted as markup: every markdown character is backslash-escaped (so a `$`
is not LaTeX, a `:red[` is not a directive, `![x](url)` fetches nothing, `<b>` is text), and line
breaks and indentation are kept.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Every ASCII punctuation mark Streamlit's markdown could read as syntax (CommonMark lets any of
# them be backslash-escaped), plus ":" for emoji shortcodes and colour directives.
# (a translation table, not a pattern: str.translate escapes a megabyte of punctuation in a tenth of
# the time re.sub took, and a redraw escapes every label and body it draws)
_SPECIALS = "\\`*_{}[]()#+-.!|<>~$:^=&\"'"
_SPECIAL = str.maketrans({c: "\\" + c for c in _SPECIALS})
_SPECIAL_NO_BRACKETS = str.maketrans({c: "\\" + c for c in _SPECIALS if c not in "[]"})
_LEADING = re.compile(r"^[ \t]+", re.MULTILINE)
NBSP = "\u00a0"
WORD_JOINER = "\u2060"
# what GFM's autolink literals start with: a scheme before "://", "www" before a dot, an "@"
_AUTOLINK = re.compile(r"(?i)(?:https?|ftp|www)(?=://|\.)|@")


def unlinked(text: str) -> str:
    """Bare URLs and e-mail addresses that no longer turn into links: GFM's autolinking runs after
    backslash escapes are resolved, so an invisible word joiner goes inside "http://", "www." and "@"."""
    return _AUTOLINK.sub(lambda m: m.group(0) + WORD_JOINER, text)


def escape(text: str) -> str:
    """Text shown verbatim by st.markdown: markup escaped, no autolinks, line breaks and indentation kept."""
    text = unlinked(text.replace("\r\n", "\n")).translate(_SPECIAL)
    text = _LEADING.sub(lambda m: NBSP * len(m.group(0).expandtabs(4)), text)
    return text.replace("\n", "  \n")


def flat(text: object, limit: int) -> str:
    """`text` on one line, whitespace collapsed, cut at `limit` characters (an ellipsis marks the cut).
    Only the words that can show are split off: a label of a 5 MB field costs what a short one does."""
    words = str(text).split(maxsplit=limit)
    cut = len(words) > limit
    if cut:
        del words[limit:]  # the unsplit rest: `limit` words and their spaces already fill the line
    line = " ".join(words)
    return line if len(line) <= limit and not cut else line[: limit - 1] + "…"


def inline(text: str, limit: int = 120) -> str:
    """One escaped line for labels: whitespace collapsed, cut at `limit` characters."""
    flat_ = flat(text, limit)
    # letters, digits and spaces need no escape (a 20,000-event redraw makes 10,000 labels)
    return flat_ if flat_.replace(" ", "").isalnum() else escape(flat_)


def badge(text: str, limit: int = 60) -> str:
    """One escaped line for st.badge, which escapes the brackets itself (escaping them twice would
    leave a bare `]` that closes the badge)."""
    return unlinked(flat(text, limit)).translate(_SPECIAL_NO_BRACKETS)


def clip(text: str, limit: int) -> str:
    """Cut `text` at `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    from .i18n import t  # here, not at the top: the rest of this module needs no Streamlit

    return f"{text[:limit]}\n… " + t("text.more", n=f"{len(text) - limit:,}")


def code_span(text: str, limit: int | None = None) -> str:
    """An inline code span holding `text` whatever backticks it contains, on one line (cut at `limit`).
    Nothing inside a code span is markdown, so its text is never escaped: a name shown as code is
    passed here raw (an escaped `initial_code` would show as `initial\\_code`)."""
    line = " ".join(text.split()) if limit is None else flat(text, limit)
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", line)), default=0) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") else ""
    return f"{ticks}{pad}{line}{pad}{ticks}"


def arguments(value: Any, limit: int = 200) -> str:
    """Tool-call arguments as compact JSON for one line."""
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def looks_like_json(text: str) -> bool:
    stripped = text.lstrip()
    return stripped[:1] in ("{", "[")


# --- highlighted spans ----------------------------------------------------------------------------------

_MARK = {"fill": "blue-background"}


def _mark(tag: str, text: str) -> str:
    """One highlighted segment: escaped, coloured line by line (a directive cannot span a line break)."""
    if tag == "equal":
        return escape(text)
    pieces = []
    # escaped once, then cut where escape() put the line breaks: a long changed run costs one pass
    for i, line in enumerate(escape(text).split("  \n")):
        body = _edges_kept(line) if line.strip() else ""
        pieces.append(("  \n" if i else "") + (f":{_MARK[tag]}[{body}]" if body else ""))
    return "".join(pieces)


def _edges_kept(text: str) -> str:
    # A directive drops the spaces at its edges; non-breaking ones survive (inner spaces stay
    # ordinary, so long insertions still wrap).
    if not text.startswith(" ") and not text.endswith(" "):
        return text  # the usual line, at the cost of two checks
    core = text.strip(" ")
    head, tail = len(text) - len(text.lstrip(" ")), len(text) - len(text.rstrip(" "))
    return NBSP * head + core + NBSP * tail


def highlighted(body: str, spans: list[tuple[str, int, int]]) -> str:
    """`body` escaped, with the (name, start, end) spans on blue: a prompt's filled-in placeholder values."""
    pieces, at = [], 0
    for _name, start, end in spans:
        pieces += [_mark("equal", body[at:start]), _mark("fill", body[start:end])]
        at = end
    pieces.append(_mark("equal", body[at:]))
    return "".join(pieces)
