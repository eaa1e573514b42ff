"""Self-consistency (Wang et al. 2023): k independent samples of one prompt, their final answers voted
on, and an optional arbiter when they disagree (loop.py; the vote in vote.py).

This folder is the whole pattern: its loop, vote, options, roles, prompts, offline scripts, scenarios,
lessons and views; `SPEC` is what the registry reads.
"""

from __future__ import annotations

from ..spec import PatternSpec, Text
from . import lessons, options, roles, scenarios, views
from .loop import call_bound, stream
from .prompts import PROMPTS

SPEC = PatternSpec(
    name="self-consistency",
    label=Text("Self-consistency", "自洽性"),
    order=35,
    options=options.SelfConsistencyOptions,
    stream=stream,
    call_bound=call_bound,
    bound_formula="num_samples + r with the arbiter (r = 2 with the repair re-ask, else 1)",
    roles=roles.ROLES,
    prompts=PROMPTS,
    limits=options.LIMITS,
    switches=options.SWITCHES,
    uses_tools=False,
    variants=lessons.VARIANTS,
    edges=lessons.edges,
    nodes=lessons.NODES,
    role_node=lessons.role_node,
    block_title=lessons.block_title,
    event_nodes=views.EVENT_NODES,
    event_block=views.event_block,
    block_lane=views.block_lane,
    step_word=Text("sample", "采样"),
    summary="tools",
    color="#F58518",
    eval_entries=lessons.EVAL_ENTRIES,
    presets=lessons.PRESETS,
    lesson=lessons.LESSON,
    scenarios=scenarios.SCENARIOS,
    offline=f"{__name__}.offline",
)
