"""How LATS is shown: its `tree_node` events in words and as the tree itself (data for the pages to
draw), a unit-test run as the evaluate node, code candidates as code, and the tests in a report."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from ... import events as ev
from ...event_views import EventView, Figure, FigureEdge, FigureNode, FigureState
from ..spec import Text
from .loop import UNIT_TESTS

#: Nodes the tree's picture draws at most (the chosen path always among them); the rest are counted.
FIGURE_NODES = 60
#: Characters of a node's summary in the picture (on two lines of LABEL_WIDTH), and of a note in words.
LABEL_CHARS, LABEL_WIDTH, NOTE_CHARS = 48, 24, 400

STATES = {
    "proposed": FigureState(Text("written, not valued yet", "已写出，尚未评估"), "new"),
    "evaluated": FigureState(Text("valued", "已评估"), "active"),
    "expanded": FigureState(Text("grown", "已扩展"), "plain"),
    "failed": FigureState(Text("failed (reflected on)", "失败（已反思）"), "bad"),
    "pruned": FigureState(Text("pruned (valued 0)", "已剪枝（价值为 0）"), "dim"),
    "solved": FigureState(Text("solves the task", "解决了任务"), "good"),
    "chosen": FigureState(Text("path to the answer", "通往答案的路径"), "lit"),
    "answer": FigureState(Text("the answer", "最终答案"), "good"),
    "best": FigureState(Text("the answer: best value, not a solution", "最终答案：价值最高但未解决"), "active"),
    "dimmed": FigureState(Text("a branch that failed", "失败的分支"), "dim"),
}


def _value(v: float | None) -> str:
    return "—" if v is None or not -1e6 < v < 1e6 else f"{v:.2f}"


def _clip(text: str, n: int) -> str:
    flat = " ".join(text[: n * 4].split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


def line(e: ev.Event, lang: str) -> str:
    """A tree_node event in a few words."""
    assert isinstance(e, ev.TreeNode)
    zh = lang == "zh"
    n, v, note = e.node, _value(e.value), _clip(e.note, NOTE_CHARS)
    said = {
        "expanded": (
            (
                "UCT 选中节点 {n} 进行扩展（访问 {visits} 次）：{note}"
                if e.uct is not None
                else "扩展节点 {n}（任务本身）"
            )
            if zh
            else (
                "UCT chose node {n} to grow (visits {visits}): {note}"
                if e.uct is not None
                else "Growing node {n} (the task itself)"
            )
        ),
        "proposed": "节点 {n}（节点 {parent} 的子节点）：{summary}"
        if zh
        else "Node {n}, a child of node {parent}: {summary}",
        "evaluated": "节点 {n} 的价值为 {v}：{note}" if zh else "Node {n} is valued {v}: {note}",
        "solved": "节点 {n} 解决了任务（价值 {v}）：{note}" if zh else "Node {n} solves the task (value {v}): {note}",
        "failed": "节点 {n} 失败（价值 {v}），反思：{note}"
        if zh
        else "Node {n} failed (value {v}); reflection: {note}",
        "pruned": "节点 {n} 被剪枝（价值 {v}，不再扩展），反思：{note}"
        if zh
        else "Node {n} is pruned (value {v}: never grown); reflection: {note}",
        "chosen": "节点 {n} 在通往答案的路径上" if zh else "Node {n} is on the path to the answer",
    }[e.status]
    shown = said.format(
        n=n, v=v, visits=e.visits, uct=_value(e.uct), parent=e.parent, summary=_clip(e.summary, 80), note=note or "—"
    )
    return shown.rstrip("：: —")


def node(e: ev.Event) -> str | None:
    """A node chosen to grow lights Select; the calls and tests of the other steps light their own nodes."""
    return "select" if isinstance(e, ev.TreeNode) and e.status == "expanded" else None


def suffix(e: ev.Event, lang: str) -> str | None:
    """An iteration's block says which node it grows, then whether a child solved the task."""
    assert isinstance(e, ev.TreeNode)
    if e.status == "expanded":
        if e.uct is None:
            return "扩展任务本身" if lang == "zh" else "growing the task"
        return (
            f"扩展节点 {e.node}（UCT {_value(e.uct)}）"
            if lang == "zh"
            else f"growing node {e.node} (UCT {_value(e.uct)})"
        )
    if e.status == "solved":
        return f"节点 {e.node} 解决了任务" if lang == "zh" else f"node {e.node} solves the task"
    return None


def figure(events: Sequence[ev.Event]) -> Figure:
    """The tree as it stands after `events`: each node's latest state, its value, and its subtree's
    mean value and visits (worked out here from the values, so every node's figures are current)."""
    latest: dict[int, ev.TreeNode] = {}
    solved: set[int] = set()
    for e in events:
        if isinstance(e, ev.TreeNode):
            latest[e.node] = e
            if e.status == "solved":
                solved.add(e.node)
    parent = {k: e.parent for k, e in latest.items()}
    chosen = {k for k, e in latest.items() if e.status == "chosen"}
    answer = max(chosen, key=lambda k: latest[k].depth, default=None)
    valued = {k for k, e in latest.items() if e.value is not None and k != 0}
    visits = {k: int(k in valued) for k in latest}
    total = {k: (latest[k].value or 0.0) if k in valued else 0.0 for k in latest}
    # deepest first, each subtree's sums handed to its parent once: linear, and a file whose parents
    # loop or skip levels adds nothing it should not (a parent must sit above its child)
    for k in sorted(latest, key=lambda k: latest[k].depth, reverse=True):
        up = parent[k]
        if up is not None and up in latest and latest[up].depth < latest[k].depth:
            visits[up] += visits[k]
            total[up] += total[k]
    kept = sorted(chosen | set(sorted(latest)[:FIGURE_NODES]))[: FIGURE_NODES + len(chosen)]
    drawn = set(kept)
    nodes, edges = [], []
    for k in kept:
        e = latest[k]
        state: str = e.status
        if k == answer:
            state = "answer" if k in solved else "best"
        nodes.append(FigureNode(str(k), _label(e, visits[k], total[k]), state))
        if e.parent is not None and e.parent in drawn:
            if k in chosen and e.parent in chosen:
                look = "chosen"
            elif e.status in ("failed", "pruned"):
                look = "dimmed"
            else:
                look = ""
            edges.append(FigureEdge(str(e.parent), str(k), look))
    return Figure(Text("Search tree", "搜索树"), tuple(nodes), tuple(edges), STATES, hidden=len(latest) - len(kept))


def _label(e: ev.TreeNode, visits: int, total: float) -> Text:
    if e.node == 0:
        return Text(f"Task\nvisits {visits}", f"任务\n访问 {visits}")
    head_en, head_zh = f"#{e.node} · value {_value(e.value)}", f"#{e.node} · 价值 {_value(e.value)}"
    if visits > 1:
        mean = _value(total / visits)
        head_en, head_zh = f"{head_en}\nmean {mean} · visits {visits}", f"{head_zh}\n均值 {mean} · 访问 {visits}"
    rows = textwrap.wrap(_clip(e.summary, LABEL_CHARS), LABEL_WIDTH)
    if len(rows) > 2:
        rows = [rows[0], rows[1][: LABEL_WIDTH - 1] + "…"]
    summary = "\n".join(rows)
    return Text(f"{head_en}\n{summary}", f"{head_zh}\n{summary}")


def counts(events: Sequence[ev.Event]) -> Mapping[str, int]:
    """How many candidates the tree grew, how many solved the task or were pruned, and its depth."""
    nodes = {e.node: e for e in events if isinstance(e, ev.TreeNode) and e.node != 0}
    return {
        "tree_nodes": len(nodes),
        "tree_solved": len({e.node for e in events if isinstance(e, ev.TreeNode) and e.status == "solved"}),
        "tree_pruned": len({e.node for e in events if isinstance(e, ev.TreeNode) and e.status == "pruned"}),
        "tree_depth": max((e.depth for e in nodes.values()), default=0),
    }


TREE_NODE = EventView(
    line=line,
    node=node,
    suffix=suffix,
    figure=figure,
    counts=counts,
    count_labels={
        "tree_nodes": Text("candidates", "候选"),
        "tree_solved": Text("solved", "解"),
        "tree_pruned": Text("pruned", "剪枝"),
        "tree_depth": Text("depth", "深度"),
    },
)

EVENT_VIEWS = {ev.TreeNode.kind: TREE_NODE}


def event_block(e: ev.Event) -> tuple[Any, ...] | None:
    """A node chosen to grow opens its iteration's block (the calls of the iteration then join it)."""
    if isinstance(e, ev.TreeNode) and e.status == "expanded" and e.step is not None:
        return ("iteration", e.step)
    return None


def tool_node(name: str) -> str:
    return "tests" if name == UNIT_TESTS else "tools"


def code_answers(config: Mapping[str, Any]) -> bool:
    return bool(config.get("code_task") or config.get("test_evaluator"))


def report_texts(config: Mapping[str, Any], lang: str) -> list[tuple[Text, str, str]]:
    tests = str(config.get("tests") or "").strip()
    if tests and config.get("test_evaluator"):
        return [(Text("Unit tests", "单元测试"), tests, "python")]
    return []
