"""The roles of ReAct: the actor that reasons and acts, the judge of its final answers (the reflection
advisor), and the reflector of the observation check."""

from __future__ import annotations

from ...roles import Role, passed_feedback_answer, read_passed_feedback, read_verdict_analysis, verdict_analysis_answer
from ..spec import Text

ACTOR = Role("actor", Text("actor", "执行者"))
JUDGE = Role(
    "judge",
    Text("judge", "评判员"),
    read_passed_feedback,
    ("PASS", "REVISE"),
    passed_feedback_answer,
    about=lambda ctx: Text("The **judge** is about to evaluate the answer.", "**评判员**即将评估答案。"),
)
#: the observation check's reviewer of a round's tool results
REFLECTOR = Role(
    "reflector",
    Text("reflector", "反思器"),
    read_verdict_analysis,
    ("PASS", "RETRY", "REPLAN"),
    verdict_analysis_answer,
)

ROLES = (ACTOR, JUDGE, REFLECTOR)
