"""ReAct (seeds 01, 05): reason, call a tool, observe, repeat — with an optional reflection advisor (loop.py).

This folder is the whole pattern: its loop, options, roles, prompts, offline scripts, scenarios and
lessons; `SPEC` is what the registry reads.
"""

from __future__ import annotations

from ..spec import PatternSpec, Text
from . import lessons, options, roles, scenarios
from .loop import call_bound, stream
from .prompts import PROMPTS

SPEC = PatternSpec(
    name="react",
    label=Text("ReAct", "ReAct"),
    order=10,
    options=options.ReactOptions,
    stream=stream,
    call_bound=call_bound,
    bound_formula="max_rounds + 1 + max_reflection_rounds·r (+ max_rounds·r with the observation check)",
    roles=roles.ROLES,
    prompts=PROMPTS,
    limits=options.LIMITS,
    switches=options.SWITCHES,
    variants=lessons.VARIANTS,
    edges=lessons.edges,
    nodes=lessons.NODES,
    answer_node="answer",
    block_of=lessons.block_of,
    block_title=lessons.block_title,
    step_word=Text("round", "轮"),
    summary="tools",
    color="#4C78A8",
    eval_entries=lessons.EVAL_ENTRIES,
    compare_variant="react-advisor",
    lesson=lessons.LESSON,
    scenarios=scenarios.SCENARIOS,
    offline=f"{__name__}.offline",
)
