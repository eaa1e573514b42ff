"""A pattern's own figure — the picture its event kind draws, e.g. a search tree as it grows — in DOT,
like the pattern graphs (graphs.py), with a legend of its states.

The figure is the core's data (agent_core.event_views.Figure: nodes, edges, states with a tone, labels
as Text); this module only picks a look per tone, so a pattern's states need no edit here.
"""

from __future__ import annotations

from typing import Any

from agent_core.event_views import Figure

from . import i18n, presenter, text

#: how each tone (event_views.TONES) is drawn: a node's fill and outline, an edge's line
NODE_LOOKS = {
    "plain": 'fillcolor="#FFFFFF", color="#9CA3AF"',
    "new": 'fillcolor="#FFFFFF", color="#9CA3AF", style="rounded,filled,dashed"',
    "active": 'fillcolor="#FDE68A", color="#B45309", penwidth=2.4',
    "good": 'fillcolor="#D1FAE5", color="#047857", penwidth=2.4',
    "bad": 'fillcolor="#FEE2E2", color="#F87171", fontcolor="#7F1D1D"',
    "dim": 'fillcolor="#F3F4F6", color="#D1D5DB", fontcolor="#9CA3AF"',
    "lit": 'fillcolor="#E0E7FF", color="#4338CA", penwidth=2.6',
}
EDGE_LOOKS = {
    "plain": 'color="#6B7280"',
    "new": 'color="#9CA3AF", style=dashed',
    "active": 'color="#B45309", penwidth=2',
    "good": 'color="#047857", penwidth=2.4',
    "bad": 'color="#F87171"',
    "dim": 'color="#D1D5DB", style=dashed',
    "lit": 'color="#4338CA", penwidth=2.8',
}
#: a tone's colour in the legend (Streamlit's markdown colours)
LEGEND_COLORS = {
    "plain": "gray",
    "new": "gray",
    "active": "orange",
    "good": "green",
    "bad": "red",
    "dim": "gray",
    "lit": "blue",
}
#: characters of one node's label drawn (a label of a 5 MB field costs what a short one does)
LABEL_CHARS = 160


def _quoted(label: str) -> str:
    """A label as a DOT string: backslashes and quotes escaped, each line break a centred line."""
    lines = [" ".join(line.split()) for line in label[:LABEL_CHARS].splitlines()]
    escaped = [line.replace("\\", "\\\\").replace('"', '\\"') for line in lines]
    return "\\n".join(escaped)


def dot(figure: Figure, lang: str) -> str:
    """The figure in DOT: top to bottom, each node and edge in the look of its state's tone."""
    node_pt, edge_pt = (14, 13) if presenter.is_on() else (11, 10)
    lines = [
        "digraph {",
        'rankdir=TB; bgcolor="transparent"; pad=0.1; nodesep=0.25; ranksep=0.3;',
        f'node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize={node_pt}, height=0.35];',
        f'edge [fontname="Helvetica", fontsize={edge_pt}, arrowsize=0.6];',
    ]
    for node in figure.nodes:
        state = figure.states.get(node.state)
        look = NODE_LOOKS.get(state.tone if state else "plain", NODE_LOOKS["plain"])
        lines.append(f'"{_quoted(node.id)}" [label="{_quoted(node.label(lang))}", {look}];')
    for edge in figure.edges:
        state = figure.states.get(edge.state)
        look = EDGE_LOOKS.get(state.tone if state else "plain", EDGE_LOOKS["plain"])
        lines.append(f'"{_quoted(edge.source)}" -> "{_quoted(edge.target)}" [{look}];')
    lines.append("}")
    return "\n".join(lines)


def legend(figure: Figure, lang: str) -> str:
    """The states the figure's nodes are in, each in its tone's colour (Markdown for a caption)."""
    used = {n.state for n in figure.nodes} | {e.state for e in figure.edges}
    return " · ".join(
        f":{LEGEND_COLORS.get(s.tone, 'gray')}[●] {text.inline(s.label(lang), 40)}"
        for name, s in figure.states.items()
        if name in used
    )


def draw(box: Any, figure: Figure, lang: str | None = None) -> None:
    """Draw the figure into `box` (a container): its title, the picture at its own size, the legend,
    and how many nodes it leaves out."""
    lang = lang if lang in i18n.LANGS else i18n.lang()
    box.caption(f"**{text.inline(figure.title(lang), 80)}**")
    box.graphviz_chart(dot(figure, lang), width="content")
    shown = legend(figure, lang)
    if shown:
        box.caption(shown)
    if figure.hidden:
        box.caption(i18n.t("figures.hidden", lang, n=f"{figure.hidden:,}"))
