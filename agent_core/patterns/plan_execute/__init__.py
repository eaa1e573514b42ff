"""Plan-and-Execute (seeds 03, 05): plan, run each step, let a Reflector judge it, recover (loop.py).

This folder is the whole pattern: its loop, options, roles, prompts, offline scripts, scenarios and
lessons; `SPEC` is what the registry reads.
"""

from __future__ import annotations

from ..spec import PatternSpec, Text
from . import lessons, options, roles, scenarios, views
from .loop import call_bound, stream
from .prompts import PROMPTS

SPEC = PatternSpec(
    name="plan-execute",
    label=Text("Plan-and-Execute", "计划执行"),
    order=20,
    options=options.PlanExecuteOptions,
    stream=stream,
    call_bound=call_bound,
    bound_formula="(P' + 1) · (q + (N − 1)·A·(R + ρ) + S)",
    roles=roles.ROLES,
    prompts=PROMPTS,
    limits=options.LIMITS,
    switches=options.SWITCHES,
    variants=lessons.VARIANTS,
    edges=lessons.edges,
    nodes=lessons.NODES,
    block_of=lessons.block_of,
    block_title=lessons.block_title,
    step_word=Text("step", "步骤"),
    summary="plan",
    color="#F58518",
    eval_entries=lessons.EVAL_ENTRIES,
    event_nodes=views.EVENT_NODES,
    eval_defaults=lessons.EVAL_DEFAULTS,
    compare_variant="plan-execute-reflector",
    presets=lessons.PRESETS,
    lesson=lessons.LESSON,
    scenarios=scenarios.SCENARIOS,
    offline=f"{__name__}.offline",
)
