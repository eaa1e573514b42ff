"""Tolerant parsing of judge, reflector and critic replies into typed verdicts.

Models wrap JSON in code fences, prose and `<think>` blocks, use single quotes, leave trailing commas
or stop mid-object. `json_repair` handles the syntax; this module handles the shapes. When nothing
usable comes out, the caller gets a fallback verdict with `parsed=False`, which the UI shows.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from . import untrusted

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)(```|$)", re.DOTALL)

#: Phrases a critic uses to say a draft needs no more work (seed 04), compared case-insensitively.
STOP_PHRASES = ("no improvement needed", "no further improvement", "无需改进", "无需进一步改进", "已达标")


@dataclass(frozen=True)
class Verdict:
    verdict: str  # PASS | REVISE | RETRY | REPLAN
    feedback: str = ""
    analysis: str = ""
    suggestion: str = ""
    parsed: bool = True

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"


def strip_think(text: str) -> str:
    """Drop reasoning blocks some models emit before their answer."""
    if not text:
        return ""
    return _THINK.sub("", text).strip() if "<" in text else text.strip()


def extract_json(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply, repaired if need be; None when there is none."""
    body = strip_think(text)
    fence = _FENCE.search(body)
    if fence:
        body = fence.group(1)
    start = body.find("{")
    if start < 0:
        return None
    end = body.rfind("}")
    candidate = body[start : end + 1] if end > start else body[start:]
    try:
        value = untrusted.loads(candidate)
    except untrusted.JSONTooDeep:
        return None  # no verdict nests 32 deep; repairing it would only nest it again
    except ValueError:
        value = repair(candidate)
    return value if isinstance(value, dict) else None


#: The longest reply json_repair is given: it is pure Python and, on some shapes, quadratic (8 KB of
#: `{a:` cost it 0.6 s, 2 KB 0.04 s). A verdict or a plan is far shorter; a longer broken one is unparsed.
MAX_REPAIR_CHARS = 4000


def repair(candidate: str) -> Any:
    """json_repair's best reading of a broken JSON reply; None when it has none, the reply is longer
    than MAX_REPAIR_CHARS, or what it reads nests more than untrusted.MAX_JSON_DEPTH deep."""
    if len(candidate) > MAX_REPAIR_CHARS:
        return None
    import json_repair  # loaded only when a reply needs repair

    try:
        value = json_repair.loads(candidate)
    except Exception:  # json_repair is best effort; an unrepairable reply is simply unparsed
        return None
    return None if untrusted.too_deep(value, untrusted.MAX_JSON_DEPTH) else value


def json_items(text: str, keys: tuple[str, ...]) -> list[Any] | None:
    """The list of items a reply gives (a plan's steps, a split's subtasks), or None: a bare JSON list
    (repaired when it is broken and still looks like a list of objects), or the list under the first of
    `keys` in a JSON object, one level deeper when that holds an object with the list, and a numbered
    object ({"1": ..., "2": ...}) in numeric order (other keys keep their place after the numbered)."""
    data: Any = None
    body = strip_think(text)
    bracket, brace = body.find("["), body.find("{")
    if bracket >= 0 and (brace < 0 or bracket < brace):
        data = _bare_list(body[bracket : body.rfind("]") + 1])
    if data is None:
        data = extract_json(text)
    if isinstance(data, dict):
        inner = next((data[k] for k in keys if k in data), None)
        if isinstance(inner, dict):
            deeper = next((inner[k] for k in keys if isinstance(inner.get(k), (list, dict))), None)
            inner = deeper if deeper is not None else inner
        if isinstance(inner, dict):
            order = sorted(
                enumerate(inner.items()),
                key=lambda ikv: (0, int(ikv[1][0])) if str(ikv[1][0]).strip().isdigit() else (1, ikv[0]),
            )
            return [value for _, (_key, value) in order]
        return inner if isinstance(inner, list) else None
    return data if isinstance(data, list) else None


def _bare_list(candidate: str) -> list[Any] | None:
    try:
        value = untrusted.loads(candidate)
    except untrusted.JSONTooDeep:
        return None
    except ValueError:
        value = repair(candidate)  # bounded (MAX_REPAIR_CHARS); None when unrepairable
        # a repaired fragment is only trusted when it looks like a list of objects
        if not (isinstance(value, list) and any(isinstance(v, dict) for v in value)):
            return None
    return value if isinstance(value, list) else None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (list, tuple)):
        return "; ".join(_text(v) for v in value if v is not None)
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else str(value)


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("true", "yes", "pass", "passed", "1", "是", "通过"):
            return True
        if v in ("false", "no", "fail", "failed", "0", "否", "不通过"):
            return False
    return None


def has_stop_phrase(text: str) -> bool:
    lowered = (text or "").lower()
    return any(p in lowered for p in STOP_PHRASES)


def parse_judgement(text: str) -> Verdict | None:
    """Reflection advisor (seed 01): `{"passed": bool, "feedback": str}` -> PASS or REVISE."""
    data = extract_json(text)
    if data is None:
        return None
    passed = _bool(data.get("passed"))
    if passed is None:
        raw = data.get("verdict")
        passed = {"PASS": True, "REVISE": False}.get(raw.strip().upper()) if isinstance(raw, str) else None
    if passed is None:
        return None
    feedback = _text(data.get("feedback"))
    return Verdict("PASS" if passed else "REVISE", feedback=feedback)


def parse_step_verdict(text: str) -> Verdict | None:
    """Plan-and-Execute Reflector (seed 03): `{"verdict": PASS|RETRY|REPLAN, "analysis", "suggestion"}`."""
    data = extract_json(text)
    if data is None:
        return None
    raw = data.get("verdict")
    verdict = raw.strip().upper() if isinstance(raw, str) else ""
    if verdict not in ("PASS", "RETRY", "REPLAN"):
        return None
    return Verdict(
        verdict,
        analysis=_text(data.get("analysis")),
        suggestion=_text(data.get("suggestion")),
        feedback=_text(data.get("suggestion")) or _text(data.get("analysis")),
    )


def parse_critique(text: str) -> Verdict:
    """Reflection critic (seeds 04, 05): a JSON verdict, or free text where a stop phrase means PASS.

    Free text without a stop phrase is honest feedback, so it is REVISE and counts as parsed; only a
    reply with neither usable JSON nor usable text is a fallback.
    """
    data = extract_json(text)
    if data is not None:
        raw = data.get("verdict")
        verdict = raw.strip().upper() if isinstance(raw, str) else ""
        passed = _bool(data.get("passed"))
        feedback = _text(data.get("feedback")) or _text(data.get("suggestion"))
        if verdict in ("PASS", "REVISE"):
            return Verdict(verdict, feedback=feedback, analysis=_text(data.get("analysis")))
        if passed is not None:
            return Verdict("PASS" if passed else "REVISE", feedback=feedback, analysis=_text(data.get("analysis")))
    body = strip_think(text)
    if has_stop_phrase(body):
        return Verdict("PASS", feedback=body)
    if body:
        return Verdict("REVISE", feedback=body)
    return Verdict("PASS", feedback="", analysis="empty critique; stopping", parsed=False)


REPAIR_REQUEST = {
    "en": "Your last reply could not be parsed. Reply again with only the JSON object, nothing else.",
    "zh": "你上一次的回复无法解析。请只输出那个 JSON 对象，不要输出任何其他内容。",
}
