"""The roles of Plan-and-Execute: planner, executor, the step Reflector and the synthesizer."""

from __future__ import annotations

from collections.abc import Collection

from ...messages import CallContext
from ...roles import Reading, Role, read_verdict_analysis, verdict_analysis_answer
from ..spec import Text
from .loop import parse_plan


def _read_plan(text: str, tools: Collection[str] = ()) -> Reading:
    steps = parse_plan(text, tools)
    return (
        (f"{len(steps)} step(s)", None)
        if steps is not None
        else ("", 'not a plan: write {"steps": [{"id": 1, "description": "...", "tool": "...", "critical": false}]}')
    )


def _about_review(ctx: CallContext | None) -> Text | None:
    if ctx is None or ctx.step_id is None:
        return None
    return Text(f"The **Reflector** is about to judge step {ctx.step_id}.", f"**反思器**即将评判第 {ctx.step_id} 步。")


PLANNER = Role(
    "planner",
    Text("planner", "规划器"),
    _read_plan,
    about=lambda ctx: Text("The **planner** is about to write the plan.", "**规划器**即将编写计划。"),
)
EXECUTOR = Role("executor", Text("executor", "执行器"), in_step=True)
REFLECTOR = Role(
    "reflector",
    Text("reflector", "反思器"),
    read_verdict_analysis,
    ("PASS", "RETRY", "REPLAN"),
    verdict_analysis_answer,
    about=_about_review,
    verdict_at="step",
    in_step=True,
)
SYNTHESIZER = Role("synthesizer", Text("synthesizer", "综合器"), in_step=True)

ROLES = (PLANNER, EXECUTOR, REFLECTOR, SYNTHESIZER)
