"""Each pattern's graph as a DOT string, with the node the run is in highlighted and the visited ones
tinted — the same picture for the Playground, Replay, Compare and Learn pages. The nodes, edges and
labels come from the pattern's spec (agent_core/patterns/registry.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agent_core import events as ev
from agent_core.patterns import registry
from agent_core.patterns.spec import PatternSpec

from . import i18n, presenter

_ACTIVE = 'fillcolor="#FDE68A", color="#B45309", penwidth=2.4'
_VISITED = 'fillcolor="#E0E7FF", color="#6366F1"'
_IDLE = 'fillcolor="#FFFFFF", color="#9CA3AF"'


def dot(config: Mapping[str, Any], active: str | None = None, visited: Iterable[str] = (),
        lang: str | None = None) -> str:
    """The pattern's graph in DOT (nodes and edges from its spec), `active` highlighted and `visited` tinted."""
    lang = lang if lang in i18n.LANGS else i18n.lang()  # labels in the page's language unless told
    spec = _spec(config)
    edges = [(a, b, label(lang) if label else "") for a, b, label in spec.edges(config)]
    nodes = list(dict.fromkeys(n for a, b, _ in edges for n in (a, b)))
    seen = set(visited)
    # on a projector (presenter mode) labels are drawn at 14 pt and 13 pt, so at least 14 px on screen
    node_pt, edge_pt = (14, 13) if presenter.is_on() else (11, 9)
    lines = ["digraph {", 'rankdir=LR; bgcolor="transparent"; pad=0.1; nodesep=0.3; ranksep=0.35;',
             f'node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize={node_pt}, height=0.4];',
             f'edge [fontname="Helvetica", fontsize={edge_pt}, color="#6B7280", fontcolor="#374151"];']
    for n in nodes:
        look = _ACTIVE if n == active else _VISITED if n in seen else _IDLE
        shape = ", shape=oval" if n in ("task", "end") else ""
        name = spec.nodes.get(n)
        lines.append(f'"{n}" [label="{name(lang) if name else n}", {look}{shape}];')
    for a, b, label in edges:
        lines.append(f'"{a}" -> "{b}"' + (f' [label="{label}"]' if label else "") + ";")
    lines.append("}")
    return "\n".join(lines)


def node_for(event: ev.Event, config: Mapping[str, Any], after: str | None = None) -> str | None:
    """The graph node an event belongs to, or None when it moves nothing; `after` is the node the run is in."""
    spec = _spec(config)
    if isinstance(event, (ev.Token, ev.LlmCall)):
        return spec.role_node(event.role, config, after)
    if isinstance(event, (ev.ToolCallEvent, ev.ToolResult)):
        return "tests" if event.name == "unit_tests" else "tools"
    if isinstance(event, ev.PlanEvent):
        return "planner"
    if isinstance(event, ev.StepStarted):
        return "executor"
    if isinstance(event, ev.FinalAnswer):
        return spec.answer_node
    if isinstance(event, ev.RunFinished):
        return "end"
    return None


def _spec(config: Mapping[str, Any]) -> PatternSpec:
    # an uploaded trace may name a pattern this version does not have: draw the first one's shape
    specs = registry.specs()
    return specs.get(str(config.get("pattern"))) or next(iter(specs.values()))
