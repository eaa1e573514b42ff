"""Reading what a room is sent: codes as people type them, names, ids and payloads, all untrusted.

Nothing here trusts its input's type or size: a participant's session may send anything a page lets
through, and with a shared store another server's bug may too. Text stays text (Markdown and HTML are
escaped where a page draws them); what is cut here is what no view should ever receive: control and
format characters (a right-to-left override turns a name around), and sizes past the room's bounds.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from ..untrusted import MAX_JSON_DEPTH, too_deep
from . import errors

#: the letters and digits of a room code: none of 0/O, 1/I/L, which read alike on a projector
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
_CODE_CHARS = frozenset(ALPHABET)
#: what a person may type around a code: spaces, dashes, dots (read aloud as "ABC-DEF")
_SEPARATORS = re.compile(r"[\s\-_.·]+")
#: a participant's opaque id, as a session makes it (secrets.token_urlsafe)
_PARTICIPANT = re.compile(r"[A-Za-z0-9_-]{8,64}")
#: a run's id, and so the name of its events stream
_RUN_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
#: the fields a submission's payload may have, and their types
PAYLOAD_FIELDS: dict[str, type] = {"config": dict, "task": str, "note": str}
MAX_CHOICES = 12
CHOICE_CHARS = 40


def normalise(typed: object) -> str | None:
    """A room code from what a person typed or pasted (" ab-c12 ", a join link "…?room=ABC234"), or
    None when it cannot be one."""
    if not isinstance(typed, str) or len(typed) > 2000:
        return None
    if "room=" in typed:
        typed = typed.split("room=", 1)[1].split("&", 1)[0].split("#", 1)[0]
    code = _SEPARATORS.sub("", typed).upper()
    if len(code) != CODE_LENGTH or not _CODE_CHARS.issuperset(code):
        return None
    return code


def clean_name(name: object, limit: int) -> str:
    """A display name: control and format characters out, white space runs made one space, cut to
    `limit` characters. Not a string: ""."""
    if not isinstance(name, str):
        return ""
    kept = []
    for ch in name[: limit * 8]:  # bounded work for a 5 MB "name"; what survives is cut below
        if ch.isspace():
            kept.append(" ")
        elif not unicodedata.category(ch).startswith("C"):
            kept.append(ch)
    return " ".join("".join(kept).split())[:limit]


def participant_id(value: object) -> str:
    if not isinstance(value, str) or not _PARTICIPANT.fullmatch(value):
        raise errors.invalid(
            "A participant is named by the id their session keeps (8-64 letters, digits, - or _).",
            "参与者以其会话保存的编号标识（8-64 个字母、数字、- 或 _）。",
        )
    return value


def run_id(value: object) -> str:
    if not isinstance(value, str) or not _RUN_ID.fullmatch(value):
        raise errors.invalid(
            "A run id is 1-64 letters, digits or . _ : -.",
            "运行编号为 1-64 个字母、数字或 . _ : -。",
        )
    return value


def json_text(value: Any) -> str | None:
    """`value` as strict JSON (no NaN, bounded nesting), or None when it is not JSON data."""
    if too_deep(value, MAX_JSON_DEPTH):
        return None
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def payload(value: object, limit: int) -> tuple[dict[str, Any], str]:
    """A submission's payload, checked: an object of `config` (an object), `task` and `note` (text),
    nothing else, JSON within `limit` bytes. Returns the payload and its JSON."""
    bad = errors.invalid(
        "A submission is an object with a config (an object), a task and a note (text), and nothing else.",
        "提交内容须为一个对象：config（对象）、task 与 note（文本），不含其他字段。",
    )
    if not isinstance(value, Mapping):
        raise bad
    data = dict(value)
    for key, item in data.items():
        expected = PAYLOAD_FIELDS.get(key) if isinstance(key, str) else None
        if expected is None or not isinstance(item, expected):
            raise bad
    data.setdefault("config", {})
    data.setdefault("task", "")
    data.setdefault("note", "")
    text = json_text(data)
    if text is None:
        raise bad
    if size(text) > limit:
        raise errors.too_large(size(text), limit)
    return data, text


def choices(values: object) -> tuple[str, ...]:
    """A poll's choices: 2-12 distinct short texts."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        values = ()
    cleaned = tuple(clean_name(v, CHOICE_CHARS) for v in values)
    if not 2 <= len(cleaned) <= MAX_CHOICES or "" in cleaned or len(set(cleaned)) != len(cleaned):
        raise errors.invalid(
            f"A poll offers 2-{MAX_CHOICES} different choices, each 1-{CHOICE_CHARS} characters.",
            f"投票须有 2-{MAX_CHOICES} 个互不相同的选项，每个 1-{CHOICE_CHARS} 个字符。",
        )
    return cleaned
