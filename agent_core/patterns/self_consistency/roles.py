"""The roles of self-consistency: the sampler that answers the task k times, the vote that counts their
answers (no model: the loop's own count gives its verdict, and the verdict is labelled the vote's), and
the arbiter that reviews the vote.

The arbiter's reply grammar: `{"verdict": "PASS" | "REVISE", "choice": "<letter>", "feedback": "..."}`.
PASS keeps the vote's pick; REVISE chooses the answer of another letter (the prompt letters the
distinct answers A, B, C... in the order they first came). A person answers as the arbiter with one
line, "PASS" or "REVISE: B the second reading is right", which becomes that JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass

from ...messages import CallContext
from ...roles import Reading, Role
from ...verdicts import extract_json
from ..spec import Text

#: the letters the arbiter's prompt gives the distinct answers (at most num_samples of them)
LETTERS = "ABCDEFGH"
_LEADING_LETTER = re.compile(r"^\s*[(\[]?([A-Ha-h])(?![A-Za-z])[)\].:：,，]?\s*(.*)$", re.DOTALL)


@dataclass(frozen=True)
class Pick:
    """What an arbiter's reply says: its verdict ("" when it gave only a choice), the answer it chose
    (a letter, or an answer as written; "" for none) and why."""

    verdict: str
    choice: str
    feedback: str


def parse_pick(text: str) -> Pick | None:
    """An arbiter's reply, or None when it says neither a verdict nor a choice (or REVISE without one)."""
    data = extract_json(text)
    if data is None:
        return None
    raw = data.get("verdict")
    verdict = raw.strip().upper() if isinstance(raw, str) else ""
    if verdict not in ("", "PASS", "REVISE"):
        return None
    choice = data.get("choice", data.get("answer"))
    choice = str(choice).strip() if isinstance(choice, (str, int, float)) and not isinstance(choice, bool) else ""
    head = _LEADING_LETTER.match(choice)
    if head is not None and not head.group(2).strip():
        choice = head.group(1).upper()
    feedback = data.get("feedback")
    feedback = feedback.strip() if isinstance(feedback, str) else ""
    if not verdict and not choice:
        return None
    if verdict == "REVISE" and not choice:
        return None
    return Pick(verdict, choice, feedback)


def read_pick(text: str, tools: Collection[str] = ()) -> Reading:
    pick = parse_pick(text)
    if pick is None:
        return ("", 'not a pick: write {"verdict": "PASS" or "REVISE", "choice": "A", "feedback": "..."}')
    return (f"{pick.verdict or 'choice'} {pick.choice}".strip(), None)


def pick_answer(verdict: str, reason: str) -> str:
    """A person's PASS / REVISE line as the arbiter's JSON: after REVISE the first word is the letter."""
    if verdict != "REVISE":
        return json.dumps({"verdict": verdict, "feedback": reason or "the vote stands"}, ensure_ascii=False)
    head = _LEADING_LETTER.match(reason)
    choice, feedback = (head.group(1).upper(), head.group(2).strip()) if head is not None else ("", reason)
    return json.dumps({"verdict": verdict, "choice": choice, "feedback": feedback}, ensure_ascii=False)


def _about_review(ctx: CallContext | None) -> Text | None:
    return Text(
        "The **arbiter** is about to review the vote: it may keep the vote's pick (PASS) or choose "
        "another answer (REVISE: and its letter).",
        "**仲裁者**即将审查投票：它可以维持投票结果（PASS），或改选另一个答案（REVISE：加上字母）。",
    )


SAMPLER = Role(
    "sampler",
    Text("sampler", "采样者"),
    about=lambda ctx: (
        Text(f"The **sampler** is about to draw sample {ctx.attempt}.", f"**采样者**即将进行第 {ctx.attempt} 次采样。")
        if ctx is not None and ctx.attempt
        else None
    ),
)
#: the vote's verdict is the loop's count of the samples' answers, not a model's reply: no model is bound
#: to it or paused before it, and a verdict pause at it offers no verdict of its own to give
VOTE = Role("vote", Text("vote", "投票"), model=False)
ARBITER = Role(
    "arbiter",
    Text("arbiter", "仲裁者"),
    read_pick,
    ("PASS", "REVISE"),
    pick_answer,
    about=_about_review,
    verdict_at="answer",
)

ROLES = (SAMPLER, VOTE, ARBITER)
