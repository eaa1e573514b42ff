"""The Eval page runs several tasks at once: a control for how many (in English and Chinese), rows in
the sequential order whatever the concurrency, and a Stop that keeps every finished row."""

from __future__ import annotations

import threading
import time

import pandas as pd
import pytest

from agent_core import events as ev
from agent_core.evaluation import EVAL_PATTERNS, bundled_tasks
from tests.app_pages import open_page
from tests.test_eval_pool import Endless, tasks


@pytest.mark.parametrize("lang, label", [("en", "Runs at once"), ("zh", "同时运行数")])
def test_the_concurrency_control_speaks_the_run_language_and_starts_at_four(lang, label):
    at = open_page("pages/eval.py", sb_lang=lang)
    control = at.number_input(key="ev_concurrency")
    assert (control.label, control.value, control.max) == (label, 4, 32)
    assert control.help and "429" in control.help


def test_runs_at_once_give_the_rows_in_task_order():
    at = open_page("pages/eval.py")
    at.multiselect(key="ev_patterns").set_value(["reference", "react"]).run()
    at.number_input(key="ev_concurrency").set_value(3).run()
    at.button(key="ev_run").click().run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    order = [(r["task_id"], r["pattern"]) for r in at.session_state["ev_rows"]]
    assert order == [(t.task_id, p) for t in bundled_tasks() for p in ("reference", "react")]
    assert at.session_state["ev_job"] is None and at.session_state["ev_pool"] is None


def test_a_stopped_evaluation_keeps_every_finished_row_even_those_ahead_of_the_table(monkeypatch):
    """Demo/0 streams until it is closed while Demo/1..3 finish: the table cannot show them yet (rows
    go in task order). The pool is stopped as Stop's callback does (AppTest cannot click Stop during
    a script run): the page ends with the three finished rows, and the endless run closed."""
    import agent_core.evaluation as evaluation

    model, real = Endless(), evaluation.evaluate
    pools = []

    def with_endless(task_list, patterns, models, **kwargs):
        pool = real(tasks(4), ["react"], model, concurrency=2)
        pools.append(pool)

        def stop_when_three_finished():
            deadline = time.monotonic() + 10
            while len(pool.finished_rows()) < 3 and time.monotonic() < deadline:
                time.sleep(0.01)
            pool.stop()

        threading.Thread(target=stop_when_three_finished, daemon=True).start()
        return pool

    monkeypatch.setattr(evaluation, "evaluate", with_endless)
    at = open_page("pages/eval.py")
    at.button(key="ev_run").click().run(timeout=60)
    assert not at.exception, [e.message for e in at.exception]
    assert [r["task_id"] for r in at.session_state["ev_rows"]] == ["Demo/1", "Demo/2", "Demo/3"]
    assert model.closed.is_set() and pools[0].alive_workers() == 0 and at.session_state["ev_job"] is None
    assert list(at.dataframe[0].value["task_id"]) == ["Demo/1", "Demo/2", "Demo/3"]


def test_every_eval_pattern_has_help_in_both_languages():
    from agent_core.evaluation import PATTERN_HELP

    assert all(set(PATTERN_HELP[p]) == {"en", "zh"} for p in EVAL_PATTERNS)


# --- cost before and during a run -----------------------------------------------------------------


@pytest.mark.parametrize(
    "lang, bound, free",
    [
        ("en", "LLM calls in all", "$0 (offline: no model is called)"),
        ("zh", "次大模型调用", "$0（离线：不调用任何模型）"),
    ],
)
def test_the_eval_shows_its_worst_case_beside_the_call_bound_and_a_cost_column(lang, bound, free):
    at = open_page("pages/eval.py", sb_lang=lang)
    caption = next(c.value for c in at.caption if bound in c.value)
    assert free in caption and ("could use up to" in caption or "最多可能用掉" in caption)
    at.multiselect(key="ev_patterns").set_value(["react"]).run()
    at.number_input(key="ev_limit").set_value(2).run()
    at.button(key="ev_run").click().run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    assert [r["cost_usd"] for r in at.session_state["ev_rows"]] == [0.0, 0.0]
    assert "cost_usd" in at.dataframe[0].value.columns


def test_the_sidebar_lists_dated_prices_and_a_users_line_prices_a_real_model():
    at = open_page("pages/eval.py")
    assert any(e.label == "Prices · USD per 1M tokens" for e in at.expander)
    listed = at.table[0].value
    assert "gpt-4o-mini" in set(listed["model"]) and listed["source"].str.startswith(("https://", "offline")).all()
    at.text_input(key="sb_price_model").input("my-local").run()
    at.number_input(key="sb_price_in").set_value(1.0).run()
    at.number_input(key="sb_price_out").set_value(2.0).run()
    at.button(key="sb_price_add").click().run()
    assert at.session_state["sb_prices"] == {"my-local": [1.0, 2.0]}
    assert "my-local" in set(at.table[0].value["model"])
    at.button(key="sb_price_clear").click().run()
    assert "my-local" not in set(at.table[0].value["model"])


def test_compares_table_has_a_cost_column_unknown_for_a_model_without_a_price():
    from agent_core.pricing import Price, PriceTable
    from pages.ui.lane_results import results_table

    calls = [ev.LlmCall(model="gpt-4o-mini", prompt_tokens=1_000_000, completion_tokens=0), ev.RunFinished()]
    other = [ev.LlmCall(model="llama3.1", prompt_tokens=10), ev.RunFinished()]
    table = results_table(["a", "b"], [calls, other])
    assert table["cost_usd"].iloc[0] == pytest.approx(0.15) and pd.isna(table["cost_usd"].iloc[1])
    priced = results_table(["a", "b"], [calls, other], PriceTable(user=[Price("llama3.1", 0, 0, "user", "mine")]))
    assert priced["cost_usd"].iloc[1] == 0.0
