"""The Learn and Eval pages under AppTest."""

from __future__ import annotations

import gzip
import json

import pytest

from agent_core.patterns import registry
from tests.app_pages import open_page

# --- Learn ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang, heading", [("en", "Learn the patterns"), ("zh", "学习：智能体模式与基线")])
def test_learn_shows_every_pattern_with_its_graph_costs_and_limits(lang, heading):
    at = open_page("pages/learn.py", sb_lang=lang)
    assert at.title[0].value == heading
    lessons = sum(1 for spec in registry.specs().values() if spec.lesson is not None)
    assert lessons == len(registry.specs()) >= 3, "every pattern in the registry has a lesson"
    assert len(at.tabs) == lessons and len(at.get("graphviz_chart")) == lessons
    page = "\n".join(m.value for m in at.markdown)
    assert ("1 + 2N" in str(at.table[0].value.to_dict())) and (
        "ground truth" in at.warning[0].value or "标准答案" in at.warning[0].value
    )
    assert page.count("LLM") >= 3 or page.count("大模型") >= 3


def test_learn_opens_a_pattern_in_the_playground_on_its_best_scenario():
    at = open_page("pages/learn.py", sb_lang="zh")
    at.button(key="learn_open_plan-execute-reflector").click().run()
    assert not at.exception
    state = at.session_state
    assert (state["pg_variant"], state["pg_scenario"], state["sb_lang"]) == (
        "plan-execute-reflector",
        "order-99999",
        "zh",
    )
    assert state["pg_opt_goal_aware_executor"] is False and state["pg_limit_max_step_retries"] == 1
    assert at.title[0].value == "实验场"  # the Playground, in the language the lesson was read in


# --- Eval -----------------------------------------------------------------------------------------


def task_line(task_id: str, solution: str) -> dict:
    return {
        "task_id": task_id,
        "prompt": 'def add(a, b):\n    """Add two numbers."""\n',
        "entry_point": "add",
        "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n",
        "canonical_solution": solution,
    }


def test_eval_runs_the_bundled_set_offline_and_shows_pass_rate_against_cost():
    at = open_page("pages/eval.py")
    at.multiselect(key="ev_patterns").set_value(["reference", "react", "reflection+tests"]).run()
    at.button(key="ev_run").click().run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    rows = at.session_state["ev_rows"]
    assert len(rows) == 3 * 7
    rate = {
        p: sum(r["passed"] for r in rows if r["pattern"] == p) / 7 for p in ("reference", "react", "reflection+tests")
    }
    assert rate["reference"] == 1.0 and rate["reflection+tests"] > rate["react"]
    assert at.get("plotly_chart") and at.session_state["ev_job"] is None
    assert any("Reflexion" in m.value for m in at.markdown)


@pytest.mark.parametrize("compress", [False, True])
def test_eval_judges_an_uploaded_humaneval_file(compress):
    body = "\n".join(
        json.dumps(t)
        for t in (task_line("demo/ok", "    return a + b\n"), task_line("demo/wrong", "    return a - b\n"))
    ).encode()
    data = gzip.compress(body) if compress else body
    at = open_page("pages/eval.py", ev_patterns=["reference"])
    at.radio(key="ev_source").set_value("upload").run()
    at.get("file_uploader")[0].set_value(
        ("tasks.jsonl.gz" if compress else "tasks.jsonl", data, "application/octet-stream")
    ).run()
    assert not at.exception and not at.error
    at.button(key="ev_run").click().run(timeout=60)
    rows = {r["task_id"]: r["passed"] for r in at.session_state["ev_rows"]}
    assert rows == {"demo/ok": True, "demo/wrong": False}


@pytest.mark.parametrize(
    "payload, message",
    [
        (b"not json at all", "line 1"),
        (json.dumps({"task_id": "x"}).encode(), "missing"),
        (b"{" + b" " * (6 * 1024 * 1024) + b"}", "MB"),
    ],
    ids=["not-json", "missing-field", "too-big"],
)
def test_eval_refuses_bad_task_files_clearly_and_keeps_working(payload, message):
    at = open_page("pages/eval.py")
    at.radio(key="ev_source").set_value("upload").run()
    at.get("file_uploader")[0].set_value(("bad.jsonl", payload, "application/octet-stream")).run()
    assert not at.exception
    assert message in at.error[0].value
    assert at.button(key="ev_run").disabled
    at.radio(key="ev_source").set_value("bundled").run()
    assert not at.error and not at.button(key="ev_run").disabled
