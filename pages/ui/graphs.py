"""Each pattern's graph as a DOT string, with the node the run is in highlighted and the visited ones
tinted — the same picture for the Playground, Replay, Compare and Learn pages."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agent_core import events as ev

#: Node -> label; a pattern draws the nodes its config uses.
_LABELS = {
    "task": "Task", "actor": "Reason\\n(actor)", "tools": "Act\\n(tool call)", "answer": "Final answer",
    "judge": "Judge\\n(reflection advisor)", "planner": "Planner", "executor": "Executor\\n(one step)",
    "reflector": "Reflector", "synthesizer": "Synthesizer", "critic": "Critic", "refiner": "Refiner",
    "draft": "Draft\\n(actor)", "generator": "Generator", "reviewer": "Reviewer", "tests": "Unit tests",
    "end": "End",
}
_ACTIVE = 'fillcolor="#FDE68A", color="#B45309", penwidth=2.4'
_VISITED = 'fillcolor="#E0E7FF", color="#6366F1"'
_IDLE = 'fillcolor="#FFFFFF", color="#9CA3AF"'


def _edges(config: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    pattern = config.get("pattern", "react")
    if pattern == "react":
        edges = [("task", "actor", ""), ("actor", "tools", "tool call"), ("tools", "actor", "observation"),
                 ("actor", "answer", "no tool call")]
        if config.get("max_reflection_rounds", 0):
            return edges + [("answer", "judge", ""), ("judge", "actor", "REVISE + feedback"), ("judge", "end", "PASS")]
        return edges + [("answer", "end", "")]
    if pattern == "plan-execute":
        edges = [("task", "planner", ""), ("planner", "executor", "next step"), ("executor", "tools", ""),
                 ("tools", "executor", "")]
        if config.get("reflector"):
            edges += [("executor", "reflector", "result"), ("reflector", "executor", "PASS: next · RETRY"),
                      ("reflector", "planner", "REPLAN"), ("reflector", "synthesizer", "all steps done")]
        else:
            edges += [("executor", "synthesizer", "all steps done")]
        return edges + [("synthesizer", "end", "")]
    tests = bool(config.get("test_evaluator"))
    if config.get("graph_style"):
        edges = [("task", "generator", "")]
        edges += ([("generator", "tests", ""), ("tests", "reviewer", "")] if tests else [("generator", "reviewer", "")])
        return edges + [("reviewer", "generator", "REVISE"), ("reviewer", "end", "PASS")]
    edges = [("task", "draft", "")]
    edges += [("draft", "tests", ""), ("tests", "critic", "")] if tests else [("draft", "critic", "")]
    edges += [("critic", "refiner", "REVISE"), ("critic", "end", "PASS")]
    edges += [("refiner", "tests", "")] if tests else [("refiner", "critic", "new draft")]
    return edges


def dot(config: Mapping[str, Any], active: str | None = None, visited: Iterable[str] = ()) -> str:
    """The pattern's graph in DOT, `active` highlighted and `visited` nodes tinted."""
    edges = _edges(config)
    nodes = list(dict.fromkeys(n for a, b, _ in edges for n in (a, b)))
    seen = set(visited)
    lines = ["digraph {", 'rankdir=LR; bgcolor="transparent"; pad=0.1; nodesep=0.3; ranksep=0.35;',
             'node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, height=0.4];',
             'edge [fontname="Helvetica", fontsize=9, color="#6B7280", fontcolor="#374151"];']
    for n in nodes:
        look = _ACTIVE if n == active else _VISITED if n in seen else _IDLE
        shape = ", shape=oval" if n in ("task", "end") else ""
        lines.append(f'"{n}" [label="{_LABELS[n]}", {look}{shape}];')
    for a, b, label in edges:
        lines.append(f'"{a}" -> "{b}"' + (f' [label="{label}"]' if label else "") + ";")
    lines.append("}")
    return "\n".join(lines)


def node_for(event: ev.Event, config: Mapping[str, Any]) -> str | None:
    """The graph node an event belongs to, or None when it moves nothing."""
    pattern = config.get("pattern", "react")
    if isinstance(event, (ev.Token, ev.LlmCall)):
        return _role_node(event.role, config)
    if isinstance(event, (ev.ToolCallEvent, ev.ToolResult)):
        return "tests" if event.name == "unit_tests" else "tools"
    if isinstance(event, ev.PlanEvent):
        return "planner"
    if isinstance(event, ev.StepStarted):
        return "executor"
    if isinstance(event, ev.FinalAnswer):
        return "answer" if pattern == "react" else "end"
    if isinstance(event, ev.RunFinished):
        return "end"
    return None


def _role_node(role: str, config: Mapping[str, Any]) -> str:
    if config.get("pattern") == "reflection":
        if config.get("graph_style"):
            return "reviewer" if role == "critic" else "generator"
        return {"actor": "draft"}.get(role, role)
    return role
