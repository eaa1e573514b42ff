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


def dot(
    config: Mapping[str, Any],
    active: str | None = None,
    visited: Iterable[str] = (),
    lang: str | None = None,
    *,
    vertical: bool = False,
) -> str:
    """The pattern's graph in DOT (nodes and edges from its spec), `active` highlighted and `visited` tinted.

    Left to right it is 470-700 px wide at its own size; top to bottom (`vertical`, for a narrow column)
    100-380 px. Draw it with width="content": a graph stretched or squeezed to a column changes its
    labels' size with it (8 px on Home's four columns at 1280×720)."""
    lang = lang if lang in i18n.LANGS else i18n.lang()  # labels in the page's language unless told
    spec = _spec(config)
    edges = [(a, b, label(lang) if label else "") for a, b, label in spec.edges(config)]
    nodes = list(dict.fromkeys(n for a, b, _ in edges for n in (a, b)))
    seen = set(visited)
    # on a projector (presenter mode) labels are drawn at 14 pt and 13 pt, so at least 14 px on screen
    node_pt, edge_pt = (14, 13) if presenter.is_on() else (11, 10)
    lines = [
        "digraph {",
        f'rankdir={"TB" if vertical else "LR"}; bgcolor="transparent"; pad=0.1; nodesep=0.3; ranksep=0.35;',
        f'node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize={node_pt}, height=0.4];',
        f'edge [fontname="Helvetica", fontsize={edge_pt}, color="#6B7280", fontcolor="#374151"];',
    ]
    for n in nodes:
        look = _ACTIVE if n == active else _VISITED if n in seen else _IDLE
        shape = ", shape=oval" if n in ("task", "end") else ""
        name = spec.nodes.get(n)
        lines.append(f'"{n}" [label="{name(lang) if name else n}", {look}{shape}];')
    for a, b, label in edges:
        lines.append(f'"{a}" -> "{b}"' + (f' [label="{label}"]' if label else "") + ";")
    lines.append("}")
    return "\n".join(lines)


#: ranks from task to end at which a left-to-right graph outgrows a run column at 1280×720 (about
#: 110 px a rank plus its edge labels: five ranks are 690-700 px at their own size, the column 515)
WIDE_RANKS = 5


def ranks(config: Mapping[str, Any]) -> int:
    """How many ranks the graph's longest forward path spans (edges back to an earlier node are loops)."""
    edges = [(a, b) for a, b, _ in _spec(config).edges(config)]
    depth: dict[str, int] = {}

    def visit(node: str, at: int, path: frozenset[str]) -> None:
        if depth.get(node, -1) >= at:
            return
        depth[node] = at
        for a, b in edges:
            if a == node and b not in path:
                visit(b, at + 1, path | {b})

    visit("task", 1, frozenset({"task"}))
    return max(depth.values(), default=1)


def vertical_in_run(config: Mapping[str, Any], compact: bool = False) -> bool:
    """Whether a run's graph is drawn top to bottom: in a Compare lane, or when it is wide and the run
    shares the page with its setup (presenter mode gives the run the width, so it stays left to right)."""
    return compact or (not presenter.is_on() and ranks(config) >= WIDE_RANKS)


def node_for(event: ev.Event, config: Mapping[str, Any], after: str | None = None) -> str | None:
    """The graph node an event belongs to, or None when it moves nothing; `after` is the node the run is in.
    A pattern that draws parallel branches (its `step_node`) puts the node on the branch of the event's step."""
    spec = _spec(config)
    node = _named(spec, event, config, after)
    return spec.step_node(node, event.step, config) if node is not None and spec.step_node is not None else node


def _named(spec: PatternSpec, event: ev.Event, config: Mapping[str, Any], after: str | None) -> str | None:
    """The node an event's role, tool or kind names."""
    if isinstance(event, (ev.Token, ev.LlmCall)):
        return spec.role_node(event.role, config, after)
    if isinstance(event, (ev.ToolCallEvent, ev.ToolResult)):
        return spec.tool_node(event.name)
    if event.kind in spec.event_nodes:
        return spec.event_nodes[event.kind]
    own = spec.event_views.get(event.kind)  # a kind the pattern added: its view says which node it lights
    if own is not None:
        return own.node(event)
    if isinstance(event, ev.FinalAnswer):
        return spec.answer_node
    if isinstance(event, ev.RunFinished):
        return "end"
    return None


def _spec(config: Mapping[str, Any]) -> PatternSpec:
    # an uploaded trace may name a pattern this version does not have: draw the first one's shape
    specs = registry.specs()
    return specs.get(str(config.get("pattern"))) or next(iter(specs.values()))
