"""Direct — the baseline: one model call answers the task, with no loop and no critique (loop.py).

This folder is the whole pattern: its loop, options, roles, prompts, offline scripts, scenarios and
lessons; `SPEC` is what the registry reads.
"""

from __future__ import annotations

from ..spec import PatternSpec, Text
from . import lessons, options, roles, scenarios
from .loop import call_bound, stream
from .prompts import PROMPTS

SPEC = PatternSpec(
    name="direct",
    label=Text("Direct (baseline)", "直接回答（基线）"),
    order=40,
    options=options.DirectOptions,
    stream=stream,
    call_bound=call_bound,
    bound_formula="1 (2 when the task has tools)",
    roles=roles.ROLES,
    prompts=PROMPTS,
    limits=options.LIMITS,
    variants=lessons.VARIANTS,
    edges=lessons.edges,
    nodes=lessons.NODES,
    role_node=lessons.role_node,
    block_title=lessons.block_title,
    step_word=Text("step", "步骤"),
    summary="tools",
    color="#B279A2",
    baseline=True,
    compare_variant="direct",
    eval_entries=lessons.EVAL_ENTRIES,
    lesson=lessons.LESSON,
    scenarios=scenarios.SCENARIOS,
    offline=f"{__name__}.offline",
)
