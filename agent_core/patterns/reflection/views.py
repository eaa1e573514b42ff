"""How Reflection is shown: a unit-test run lights the tests node, code drafts are code, and a report
shows the criteria and the tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..spec import Text
from .loop import UNIT_TESTS
from .prompts import resolve_criteria


def tool_node(name: str) -> str:
    return "tests" if name == UNIT_TESTS else "tools"


def code_answers(config: Mapping[str, Any]) -> bool:
    return bool(config.get("code_task") or config.get("test_evaluator"))


def report_texts(config: Mapping[str, Any], lang: str) -> list[tuple[Text, str, str]]:
    out: list[tuple[Text, str, str]] = []
    criteria = str(config.get("criteria") or "").strip()
    if criteria:
        out.append((Text("Quality criteria", "质量标准"), resolve_criteria(criteria, lang), ""))
    tests = str(config.get("tests") or "").strip()
    if tests and config.get("test_evaluator"):
        out.append((Text("Unit tests", "单元测试"), tests, "python"))
    return out
