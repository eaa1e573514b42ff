"""The roles of orchestrator–workers: the orchestrator that splits, the workers, the orchestrator's review
of each round (a verdict a person may give: DONE or REDISPATCH), and the synthesizer.

The split and the review are the orchestrator's two jobs but two roles, each with its own reply grammar:
a paused split is answered with a list of subtasks, a paused review with a decision, and the poll and
step mode offer the decisions only where they mean something. Bind one model to both for the classic
single orchestrator, or a stronger one to the review.
"""

from __future__ import annotations

import json
from collections.abc import Collection

from ...messages import CallContext
from ...roles import Reading, Role
from ..spec import Text
from .replies import DECISIONS, parse_review, parse_split

#: the review's role name (the split is "orchestrator")
REVIEW = "orchestrator_review"


def _read_split(text: str, tools: Collection[str] = ()) -> Reading:
    items = parse_split(text, tools)
    return (
        (f"{len(items)} subtask(s)", None)
        if items is not None
        else ("", 'not a split: write {"subtasks": [{"id": 1, "instruction": "...", "tool": "..."}]}')
    )


def _read_review(text: str, tools: Collection[str] = ()) -> Reading:
    review = parse_review(text, tools)
    return (
        (review.decision, None)
        if review is not None
        else (
            "",
            'not a review: write {"decision": "DONE" or "REDISPATCH", "reason": "...", '
            '"subtasks": [{"id": 2, "instruction": "..."}]}',
        )
    )


def review_answer(verdict: str, reason: str) -> str:
    """A person's DONE / REDISPATCH as the review's JSON. A REDISPATCH that names no subtask runs the
    failed ones again, with the person's reason as the orchestrator's note to their workers."""
    return json.dumps({"decision": verdict, "reason": reason, "subtasks": []}, ensure_ascii=False)


def _about_split(ctx: CallContext | None) -> Text:
    return Text(
        "The **orchestrator** is about to split the request into subtasks.", "**编排者**即将把请求拆分为子任务。"
    )


def _about_review(ctx: CallContext | None) -> Text | None:
    if ctx is None or ctx.revision is None:
        return None
    return Text(
        f"The **orchestrator** is about to review round {ctx.revision}: DONE, or REDISPATCH.",
        f"**编排者**即将复核第 {ctx.revision} 轮：DONE，或 REDISPATCH。",
    )


def _about_worker(ctx: CallContext | None) -> Text | None:
    if ctx is None or ctx.step_id is None:
        return None
    return Text(
        f"**Worker {ctx.step_id}** is about to make call {ctx.round} of its subtask.",
        f"**工作者 {ctx.step_id}** 即将为其子任务进行第 {ctx.round} 次调用。",
    )


ORCHESTRATOR = Role("orchestrator", Text("orchestrator", "编排者"), _read_split, about=_about_split)
WORKER = Role("worker", Text("worker", "工作者"), about=_about_worker, in_step=True)
ORCHESTRATOR_REVIEW = Role(
    REVIEW, Text("orchestrator · review", "编排者 · 复核"), _read_review, DECISIONS, review_answer, about=_about_review
)
SYNTHESIZER = Role("synthesizer", Text("synthesizer", "综合器"))

ROLES = (ORCHESTRATOR, WORKER, ORCHESTRATOR_REVIEW, SYNTHESIZER)
