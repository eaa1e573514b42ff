"""How Reflection's own events move its graph: a unit-test run lights the tests node."""

from __future__ import annotations

from .loop import UNIT_TESTS


def tool_node(name: str) -> str:
    return "tests" if name == UNIT_TESTS else "tools"
