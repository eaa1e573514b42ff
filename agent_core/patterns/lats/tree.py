"""The search tree of LATS and the rule that picks where it grows next: UCT.

Node 0 is the root: the task, with no draft. Every other node is a candidate its parent's expansion
wrote, with its own value v in [0, 1] once it is evaluated. A node's statistics are over its subtree:
N(n) is how many evaluated candidates it holds (itself included) and Q(n) the sum of their values.
When a candidate is valued, it and each of its ancestors count it (backpropagation: N += 1, Q += v).

Selection walks from the root to a leaf; at each node it takes the child with the highest

    UCT(n) = Q(n) / N(n)  +  c · sqrt( ln N(parent) / N(n) )

— the child's mean value (exploitation) plus a bonus that grows while the child is visited less than
its siblings (exploration); Kocsis & Szepesvári 2006, with c = 1 as LATS (Zhou et al. 2024) uses it.
A solved child is never taken (the search has ended), nor a pruned one (valued 0: nothing to grow);
ties go to the older child. The leaf reached is expanded: k new children. A node whose children are
all pruned is a leaf again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

#: statuses under which a node is never grown again
CLOSED = ("solved", "pruned")


@dataclass(eq=False, slots=True)
class Node:
    """One node: the candidate, what judging it said, and its subtree's statistics."""

    id: int
    parent: Node | None
    depth: int
    #: the candidate (cleaned: code alone for a code task); "" for the root
    text: str = ""
    summary: str = ""
    #: its own value; None until evaluated
    value: float | None = None
    #: what the evaluation said: the evaluator's reason, or the unit tests' report
    feedback: str = ""
    #: the reflection on it, when it failed
    reflection: str = ""
    status: str = "proposed"
    visits: int = 0
    total: float = 0.0
    children: list[Node] = field(default_factory=list)

    @property
    def mean(self) -> float:
        """Q / N: the mean value of the evaluated candidates in its subtree (0 before any)."""
        return self.total / self.visits if self.visits else 0.0

    @property
    def open(self) -> bool:
        return self.status not in CLOSED


class Tree:
    """The nodes of one search, in the order they were made (a node's id is its index)."""

    def __init__(self) -> None:
        self.root = Node(0, None, 0, status="expanded")
        self.nodes: list[Node] = [self.root]

    @property
    def candidates(self) -> int:
        """How many candidates the tree holds (the root is none)."""
        return len(self.nodes) - 1

    def add(self, parent: Node) -> Node:
        node = Node(len(self.nodes), parent, parent.depth + 1)
        parent.children.append(node)
        self.nodes.append(node)
        return node

    def backpropagate(self, node: Node, value: float) -> None:
        """Give `node` its value and count it in its own and every ancestor's statistics."""
        node.value = value
        at: Node | None = node
        while at is not None:
            at.visits += 1
            at.total += value
            at = at.parent

    @staticmethod
    def uct(node: Node, c: float) -> float:
        """The node's UCT score under its parent (see the module's docstring); it must be evaluated."""
        parent = node.parent
        assert parent is not None and node.visits > 0
        return node.mean + c * math.sqrt(math.log(parent.visits) / node.visits)

    def select(self, c: float) -> tuple[Node, float | None]:
        """The leaf to expand next, walking down by UCT, and the score that chose it (None: the root)."""
        node, score = self.root, None
        while True:
            options = [child for child in node.children if child.open]
            if not options:
                return node, score
            scored = [(self.uct(child, c), -child.id, child) for child in options]
            score, _older, node = max(scored, key=lambda s: (s[0], s[1]))

    @staticmethod
    def path(node: Node) -> list[Node]:
        """The nodes from the root down to `node`."""
        out: list[Node] = []
        at: Node | None = node
        while at is not None:
            out.append(at)
            at = at.parent
        return out[::-1]

    def best(self) -> Node | None:
        """The candidate with the highest value (the oldest of equals), or None before any is valued."""
        valued = [n for n in self.nodes[1:] if n.value is not None]
        return max(valued, key=lambda n: (n.value, -n.id)) if valued else None
