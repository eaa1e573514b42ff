"""`Role`: a role a pattern's model calls are made in, with its reply grammar.

A pattern's folder owns its roles (its `roles.py`). A role knows its label, how its reply is read
(what the pattern makes of it, or why it cannot parse it), which verdicts a person may give in it and
how a person's one line — "PASS", "REVISE: the warning level is missing" — becomes the reply its
parser reads, and what a paused call in it is about. So forks, step mode, the poll and the renderer
ask the role, and never branch on its name. The reply shapes below are named by their JSON, not by
who answers with them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass

from .messages import CallContext
from .text import Text
from .verdicts import parse_critique, parse_judgement, parse_step_verdict

#: what the pattern makes of a reply, and the problem when it cannot parse it (None: it can)
Reading = tuple[str, str | None]


def read_text(text: str, tools: Collection[str] = ()) -> Reading:
    """A reply that is text: whatever it says is the reply."""
    return ("text", None)


@dataclass(frozen=True)
class Role:
    """A role: its name (the key models are bound by), its label, and its reply grammar."""

    name: str
    label: Text
    #: how the pattern reads a reply in this role (the parser a model's reply goes through)
    read: Callable[[str, Collection[str]], Reading] = read_text
    #: the verdicts a person may give in this role (empty: it gives none)
    verdicts: tuple[str, ...] = ()
    #: a person's verdict and reason -> the reply text this role's parser reads
    answer: Callable[[str, str], str] | None = None
    #: what a paused call in this role is about, from its call context (None: the generic sentence)
    about: Callable[[CallContext | None], Text | None] | None = None
    #: what one of its verdicts is about: "step" (a plan step), "draft" (the latest draft) or "answer"
    verdict_at: str = "answer"
    #: its calls go in the block of the plan step under way
    in_step: bool = False
    #: a model is called in it; False for a role only the pattern's own code speaks in (a vote's verdict):
    #: it labels its events, but no model is bound to it, capped in it, paused before or answered in it
    model: bool = True

    def verdict_reply(self, line: str) -> str:
        """A person's verdict line as the reply this role's parser reads; anything that is not one of
        its verdicts is passed on as written (and parsed as a model's reply would be)."""
        head, _sep, rest = line.strip().partition(":")
        verdict = head.strip().upper()
        if self.answer is None or verdict not in self.verdicts:
            return line.strip()
        return self.answer(verdict, rest.strip())


# --- reply shapes, by their JSON --------------------------------------------------------------------


def passed_feedback_answer(verdict: str, reason: str) -> str:
    """`{"passed": …, "feedback": …}` from a person's PASS / REVISE."""
    return json.dumps({"passed": verdict == "PASS", "feedback": reason}, ensure_ascii=False)


def verdict_analysis_answer(verdict: str, reason: str) -> str:
    """`{"verdict": …, "analysis": …, "suggestion": …}` from a person's verdict and reason."""
    return json.dumps({"verdict": verdict, "analysis": reason, "suggestion": reason}, ensure_ascii=False)


def verdict_feedback_answer(verdict: str, reason: str) -> str:
    """`{"verdict": …, "feedback": …}`; a bare PASS says there is nothing to improve."""
    return json.dumps({"verdict": verdict, "feedback": reason or "no improvement needed"}, ensure_ascii=False)


def read_passed_feedback(text: str, tools: Collection[str] = ()) -> Reading:
    v = parse_judgement(text)
    return (v.verdict, None) if v else ("", 'not a verdict: write {"passed": true or false, "feedback": "..."}')


def read_verdict_analysis(text: str, tools: Collection[str] = ()) -> Reading:
    v = parse_step_verdict(text)
    return (
        (v.verdict, None)
        if v
        else (
            "",
            'not a verdict: write {"verdict": "PASS" | "RETRY" | "REPLAN", "analysis": "...", "suggestion": "..."}',
        )
    )


def read_verdict_feedback(text: str, tools: Collection[str] = ()) -> Reading:
    v = parse_critique(text)
    return (
        (v.verdict, None)
        if v.parsed
        else ("", 'not a critique: write {"verdict": "PASS" or "REVISE", "feedback": "..."} or plain feedback')
    )
