"""An Eval upload is parsed once, keyed by its content, and its worst case worked out once: a rerun of
the page (any click) re-parses nothing. Before, a 5 MB task set cost 2.5 CPU-seconds on every rerun
(worst_case re-parsed every test). A hostile task is judged without holding the server: 150 KB of
backtick runs took extract_code 36 s. A refused file says why in the reader's language."""

from __future__ import annotations

import json
import time

import pytest

from agent_core import evaluation
from agent_core.evaluation import tasksets
from tests.app_pages import open_page


def _task(
    i: int, test: str = "def check(candidate):\n    assert candidate(1) == 2\n", solution: str = "    return x + 1\n"
) -> dict:
    return {
        "task_id": f"T/{i}",
        "prompt": f'def f{i}(x):\n    """Add one."""\n',
        "entry_point": f"f{i}",
        "test": test,
        "canonical_solution": solution,
    }


def _file(tasks: list[dict]) -> bytes:
    return ("\n".join(json.dumps(t) for t in tasks) + "\n").encode()


#: about 5 MB: 500 tasks, each test some 10 KB of asserts
BIG = _file([_task(i, "def check(candidate):\n" + "    assert candidate(1) == 2\n" * 330) for i in range(500)])


def _upload(at, data: bytes, name: str = "tasks.jsonl") -> None:
    at.get("file_uploader")[0].set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, [e.message for e in at.exception]


def _counting(monkeypatch, name: str, module=evaluation) -> list[int]:
    calls = [0]
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)  # the page imports it from here on every script run
    return calls


def test_a_5_mb_task_set_is_parsed_once_and_its_worst_case_worked_out_once(monkeypatch):
    assert len(BIG) > 4_500_000
    loads, worst = _counting(monkeypatch, "load_task_set", tasksets), _counting(monkeypatch, "worst_case")
    at = open_page("pages/eval.py", ev_patterns=["reference", "react", "reflection+tests"])
    at.radio(key="ev_source").set_value("upload").run()
    loads[0] = worst[0] = 0  # (the bundled set, priced once when the page opened)
    _upload(at, BIG)
    assert loads[0] == 1 and worst[0] == 1
    assert "500" in at.caption[-1].value or any("500" in c.value for c in at.caption)
    started = time.process_time()
    for _ in range(3):
        at.run()  # what any click does
    rerun_s = (time.process_time() - started) / 3
    assert loads[0] == 1 and worst[0] == 1, "a rerun parses nothing and prices nothing again"
    assert rerun_s < 2.0, rerun_s  # generous: it took 2.5 s before on this machine, now a fraction of that
    _upload(at, BIG, "same-bytes-again.jsonl")
    assert loads[0] == 1, "the same content is not parsed again"
    at.multiselect(key="ev_patterns").set_value(["reference", "react"]).run()
    assert worst[0] == 2  # a new question: asked once


def test_a_task_of_backtick_runs_is_judged_at_once():
    hostile = _task(0, "assert f0(1) == 2\n", "    " + "`" * 150_000 + "\n")
    at = open_page("pages/eval.py", ev_patterns=["reference"])
    at.radio(key="ev_source").set_value("upload").run()
    _upload(at, _file([hostile, _task(1)]))
    started = time.perf_counter()
    at.button(key="ev_run").click().run(timeout=60)
    assert not at.exception, [e.message for e in at.exception]
    assert time.perf_counter() - started < 30  # 36 s of the server's GIL before, for this one answer
    rows = {r["task_id"]: r for r in at.session_state["ev_rows"]}
    assert rows["T/1"]["passed"] and not rows["T/0"]["passed"]


@pytest.mark.parametrize(("lang", "said"), [("en", "This task set cannot be used: line 1"), ("zh", "有一行不是 JSON")])
def test_a_refused_task_set_says_why_in_the_readers_language(lang, said):
    at = open_page("pages/eval.py", sb_lang=lang)
    at.radio(key="ev_source").set_value("upload").run()
    _upload(at, b'{"task_id": ' + b"[" * 20_000 + b"]" * 20_000 + b"}\n")
    assert said in at.error[0].value and "nested too deeply" in at.error[0].value
