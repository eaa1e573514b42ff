"""The roles of Reflection: the actor that drafts, the critic that judges, the refiner that rewrites."""

from __future__ import annotations

from ...messages import CallContext
from ...roles import Role, read_verdict_feedback, verdict_feedback_answer
from ..spec import Text


def _about_critique(ctx: CallContext | None) -> Text | None:
    if ctx is None or ctx.version is None:
        return None
    return Text(
        f"The **critic** is about to review draft {ctx.version}.", f"**评审员**即将审阅第 {ctx.version} 版草稿。"
    )


ACTOR = Role("actor", Text("actor", "执行者"))
CRITIC = Role(
    "critic",
    Text("critic", "评审员"),
    read_verdict_feedback,
    ("PASS", "REVISE"),
    verdict_feedback_answer,
    about=_about_critique,
    verdict_at="draft",
)
REFINER = Role("refiner", Text("refiner", "修订者"))

ROLES = (ACTOR, CRITIC, REFINER)
