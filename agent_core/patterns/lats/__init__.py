"""LATS — language-agent tree search (Zhou et al. 2024): expand k candidates per node, value each (an
evaluator or unit tests), grow the next node chosen by UCT, reflect on failures, stop on a solution or
at the node budget (loop.py; the tree and UCT in tree.py).

This folder is the whole pattern: its loop, tree, options, roles, prompts, offline scripts, scenarios,
lessons and the view of its own event kind, `tree_node` (views.py); `SPEC` is what the registry reads.
"""

from __future__ import annotations

from ..spec import PatternSpec, Text
from . import lessons, options, roles, scenarios, views
from .loop import call_bound, check, stream
from .prompts import PROMPTS

SPEC = PatternSpec(
    name="lats",
    label=Text("LATS (tree search)", "LATS（树搜索）"),
    order=38,
    options=options.LatsOptions,
    stream=stream,
    call_bound=call_bound,
    bound_formula="max_nodes · (2 + r) (r = 0 with unit tests, else 1, or 2 with the repair re-ask)",
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
    block_of=lessons.block_of,
    block_title=lessons.block_title,
    event_views=views.EVENT_VIEWS,
    event_block=views.event_block,
    tool_node=views.tool_node,
    code_answers=views.code_answers,
    report_texts=views.report_texts,
    step_word=Text("iteration", "迭代"),
    summary="drafts",
    color="#9D755D",
    eval_entries=lessons.EVAL_ENTRIES,
    eval_defaults=lessons.EVAL_DEFAULTS,
    eval_owned=lessons.EVAL_OWNED,
    take_tests=lessons.take_tests,
    compare_variant="",
    presets=lessons.PRESETS,
    lesson=lessons.LESSON,
    scenarios=scenarios.SCENARIOS,
    offline=f"{__name__}.offline",
)
