"""The roles of LATS: the expander that writes candidates, the evaluator that values them, and the
self-reflector that says why a failed one failed; and the evaluator's reply grammar.

The evaluator answers `{"value": 0.0 to 1.0, "reason": "..."}`. Read tolerantly: the JSON inside
fences or prose; or plain text that starts with the value, perhaps labelled ("0.7 — close",
"value: 70%", "7/10: the sign is wrong"), never a list's "1." . A bare number above 1 is read as out
of 10 (up to 10) or out of 100 (up to 100). Anything else is no value: the run goes on with the
fallback (loop.py). A person answering in the role writes
PASS (value 1.0) or REVISE (value 0.0), with a reason after a colon, or a value of their own:
"0.6: the sign is right, the float case is not".

`self_reflector`, not `reflector`: Plan-and-Execute's reflector answers PASS / RETRY / REPLAN, and
roles of the same name share one grammar across patterns; this one writes free text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass

from ...messages import CallContext
from ...roles import Reading, Role
from ...verdicts import extract_json, strip_think
from ..spec import Text

#: a plain-text reply's value: at its start, perhaps labelled; a list's "1. " is no value
_LEADING_VALUE = re.compile(
    r"\s*(?:(?:value|score|价值|评分|分数)\s*[:：=]?\s*)?(\d{1,3}(?:\.\d+)?)"
    r"\s*(%|/\s*100(?!\d)|/\s*10(?!\d))?(?!\.\s|\.?\d)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Valuation:
    """An evaluator's reading of a candidate: its value in [0, 1] and why."""

    value: float
    reason: str = ""


def _scaled(number: float, unit: str = "") -> float | None:
    unit = unit.replace(" ", "")
    if unit == "%" or unit == "/100":
        number /= 100
    elif unit == "/10":
        number /= 10
    elif number > 10:
        number /= 100
    elif number > 1:
        number /= 10
    return number if 0.0 <= number <= 1.0 else None


def parse_value(text: str) -> Valuation | None:
    """The value an evaluator's reply gives, or None when it gives none."""
    data = extract_json(text)
    if data is not None:
        raw = data.get("value", data.get("score"))
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            return None
        try:
            number = float(raw)
        except ValueError:
            return None
        value = _scaled(number) if number == number else None  # (NaN is no value)
        reason = data.get("reason", data.get("feedback", ""))
        return Valuation(round(value, 4), str(reason).strip()) if value is not None else None
    body = strip_think(text)
    found = _LEADING_VALUE.match(body)
    if found is None:
        return None
    value = _scaled(float(found.group(1)), found.group(2) or "")
    if value is None:
        return None
    reason = body[found.end() :].lstrip(" \t\n:：-—,，").strip()
    return Valuation(round(value, 4), reason)


def read_value(text: str, tools: Collection[str] = ()) -> Reading:
    found = parse_value(text)
    if found is None:
        return ("", 'not a value: write {"value": a number from 0 to 1, "reason": "..."}, or "0.7: why"')
    return (f"{found.value:.2f}", None)


def value_answer(verdict: str, reason: str) -> str:
    """`{"value": …, "reason": …}` from a person's PASS (1.0) or REVISE (0.0)."""
    return json.dumps({"value": 1.0 if verdict == "PASS" else 0.0, "reason": reason}, ensure_ascii=False)


def _about_value(ctx: CallContext | None) -> Text | None:
    if ctx is None or ctx.version is None:
        return None
    return Text(
        f"The **evaluator** is about to value candidate {ctx.version}.",
        f"**评估者**即将为第 {ctx.version} 号候选打分。",
    )


EXPANDER = Role("expander", Text("expander", "扩展者"))
EVALUATOR = Role(
    "evaluator",
    Text("evaluator", "评估者"),
    read_value,
    ("PASS", "REVISE"),
    value_answer,
    about=_about_value,
    verdict_at="draft",
)
SELF_REFLECTOR = Role("self_reflector", Text("self-reflector", "自我反思者"))

ROLES = (EXPANDER, EVALUATOR, SELF_REFLECTOR)
