"""Reflection (seeds 02, 04, 05): execute, reflect, refine — until the critic passes or the cap (loop.py).

This folder is the whole pattern: its loop, options, roles, prompts, offline scripts, scenarios and
lessons; `SPEC` is what the registry reads.
"""

from __future__ import annotations

from ..spec import PatternSpec, Text
from . import lessons, options, roles, scenarios, views
from .loop import call_bound, check, stream
from .prompts import PROMPTS

SPEC = PatternSpec(
    name="reflection",
    label=Text("Reflection", "反思"),
    order=30,
    options=options.ReflectionOptions,
    stream=stream,
    call_bound=call_bound,
    bound_formula="1 + max_iterations · (r + 1)",
    roles=roles.ROLES,
    prompts=PROMPTS,
    limits=options.LIMITS,
    switches=options.SWITCHES,
    text_fields=options.TEXT_FIELDS,
    uses_tools=False,
    check=check,
    variants=lessons.VARIANTS,
    edges=lessons.edges,
    nodes=lessons.NODES,
    role_node=lessons.role_node,
    block_title=lessons.block_title,
    step_word=Text("iteration", "迭代"),
    summary="drafts",
    color="#54A24B",
    tool_node=views.tool_node,
    code_answers=views.code_answers,
    report_texts=views.report_texts,
    eval_entries=lessons.EVAL_ENTRIES,
    eval_defaults=lessons.EVAL_DEFAULTS,
    eval_owned=lessons.EVAL_OWNED,
    take_tests=lessons.take_tests,
    compare_variant="reflection",
    presets=lessons.PRESETS,
    lesson=lessons.LESSON,
    scenarios=scenarios.SCENARIOS,
    offline=f"{__name__}.offline",
)
