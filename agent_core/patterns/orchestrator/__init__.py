"""Orchestrator–workers (Anthropic, "Building effective agents"): an orchestrator splits the task, workers
carry out the subtasks with tools, the orchestrator reviews and may re-dispatch, then the answer is
synthesised (loop.py).

This folder is the whole pattern: its loop, options, roles, replies, prompts, offline scripts,
scenarios, lessons and views; `SPEC` is what the registry reads.
"""

from __future__ import annotations

from ..spec import PatternSpec, Text
from . import lessons, options, roles, scenarios, views
from .loop import call_bound, stream
from .prompts import PROMPTS

SPEC = PatternSpec(
    name="orchestrator",
    label=Text("Orchestrator–workers", "编排者–工作者"),
    order=25,
    options=options.OrchestratorOptions,
    stream=stream,
    call_bound=call_bound,
    bound_formula="R · (q + max_subtasks · worker_steps) + 1, R = max_dispatches with the review, else 1",
    roles=roles.ROLES,
    prompts=PROMPTS,
    limits=options.LIMITS,
    switches=options.SWITCHES,
    variants=lessons.VARIANTS,
    edges=lessons.edges,
    nodes=lessons.NODES,
    role_node=lessons.role_node,
    event_nodes=views.EVENT_NODES,
    step_node=views.step_node,
    block_of=lessons.block_of,
    block_title=lessons.block_title,
    block_lane=views.block_lane,
    step_word=Text("step", "步骤"),
    summary="plan",
    color="#72B7B2",
    presets=lessons.PRESETS,
    lesson=lessons.LESSON,
    scenarios=scenarios.SCENARIOS,
    offline=f"{__name__}.offline",
)
