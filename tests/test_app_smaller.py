"""Small things a trainer or a stakeholder reads, in English and Chinese: a template named as code
(never escaped inside a code span), Eval's details and placeholders in the page's language, charts
whose labels do not sit on each other, the call bound said plainly, the run's clock while paused and
on a fork, one count of calls, Run within reach, and one clear message for a broken upload."""

from __future__ import annotations

import json
import time

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.evaluation.harness import BASELINE_ENTRIES
from tests.app_pages import open_page
from tests.step_mode import P, run_in_steps


def paused_primes(lang: str, *breaks: str) -> AppTest:
    """Reflection on primes in step mode, paused at its first breakpoint."""
    at = run_in_steps(open_page("pages/playground.py", sb_lang=lang), "reflection", *breaks, scenario="primes")
    assert at.session_state[f"{P}_runs"][-1].handle.paused
    return at


# --- a name shown as code is never escaped ----------------------------------------------------------


@pytest.mark.parametrize(("lang", "label"), [("en", "template `initial_code`"), ("zh", "模板 `initial_code`")])
def test_the_pause_names_the_pending_template_as_code_without_a_backslash(lang, label):
    at = paused_primes(lang)  # every call: the first pause is before the actor's draft
    shown = [m.value for m in at.markdown]
    assert any(label in m for m in shown), shown
    assert not any("initial\\_code" in m for m in shown)


# --- Eval's details and the boxes' placeholders in the page's language ------------------------------


@pytest.mark.parametrize(
    ("lang", "passed", "english"), [("en", "tests passed", None), ("zh", "项测试通过", "tests passed")]
)
def test_evals_details_column_says_how_the_tests_went_in_the_pages_language(lang, passed, english):
    at = open_page("pages/eval.py", sb_lang=lang)
    at.multiselect(key="ev_patterns").set_value(["direct"]).run()
    at.number_input(key="ev_limit").set_value(2).run()
    at.button(key="ev_run").click().run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    details = list(next(d for d in at.dataframe if "summary" in d.value.columns).value["summary"])
    assert details and any(passed in d for d in details), details
    if english:
        assert not any(english in d or "tests failed" in d for d in details), details


def test_a_failing_summary_keeps_the_failing_tests_as_written():
    from pages.ui.eval_details import said

    summary = "2 of 6 tests failed: assert fizz(3) == 'Fizz' (AssertionError); assert fizz(0) == '0'"
    assert (
        said(summary, "zh")
        == "6 项测试中有 2 项未通过：assert fizz(3) == 'Fizz' (AssertionError); assert fizz(0) == '0'"
    )
    assert said(summary, "en") == summary
    assert said("timed out after 5 s", "zh") == "timed out after 5 s"  # anything else: as the core wrote it


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_multiselect_has_a_placeholder_in_the_pages_language(lang):
    from pages.ui.i18n import t

    at = paused_primes(lang, "role:critic")
    people = at.multiselect(key=f"{P}_step_people")
    assert people.value == [] and people.proto.placeholder == t("choose.people", lang)
    assert at.multiselect(key=f"{P}_step_breaks").proto.placeholder == t("choose.breaks", lang)
    free = open_page("pages/playground.py", sb_lang=lang)
    free.selectbox(key=f"{P}_scenario").set_value("__free__").run()
    assert free.multiselect(key=f"{P}_tools").proto.placeholder == t("choose.tools", lang)
    evals = open_page("pages/eval.py", sb_lang=lang)
    assert evals.multiselect(key="ev_patterns").proto.placeholder == t("choose.patterns", lang)
    assert "Choose options" not in {t("choose.people", lang), t("choose.tools", lang)}


# --- chart labels that do not sit on each other -----------------------------------------------------


def test_evals_charts_keep_labels_of_points_and_baselines_that_coincide_apart():
    at = open_page("pages/eval.py")
    baselines = list(BASELINE_ENTRIES)  # the baseline at one call, and at about reflection's budget
    at.multiselect(key="ev_patterns").set_value(["reflection", "react", *baselines]).run()
    at.number_input(key="ev_limit").set_value(2).run()
    at.button(key="ev_run").click().run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    charts = {c.proto.spec: json.loads(c.proto.spec) for c in at.get("plotly_chart")}.values()
    scores = next(c for c in charts if any(t.get("mode") == "markers+text" for t in c["data"]))
    spots: dict[tuple[float, float], list[str]] = {}
    for trace in scores["data"]:
        spots.setdefault((trace["x"][0], trace["y"][0]), []).append(trace["textposition"])
    assert any(len(places) > 1 for places in spots.values()), "two patterns share a point on the offline model"
    assert all(len(set(places)) == len(places) for places in spots.values()), spots
    notes = [a for c in charts for a in c["layout"].get("annotations", []) if "baseline" in (a.get("text") or "")]
    assert len(notes) == len(baselines) >= 2
    # the highest line is labelled above itself, the next below itself: apart even on one level
    highest, second = sorted(notes, key=lambda a: -a["y"])[:2]
    assert (highest["yanchor"], second["yanchor"]) == ("bottom", "top"), notes


# --- the call bound, said plainly -------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_run_row_says_the_bound_plainly_and_keeps_the_token_worst_case_for_the_tooltip(lang):
    from pages.ui.i18n import t

    at = paused_primes(lang, "role:critic")  # the actor has drafted: one call made
    at.run()  # the row is drawn before the run is followed: the next script run finds it paused
    row = next(c for c in at.caption if c.value == t("bound_plain.so_far_one", lang, bound=7))
    assert row.value.startswith("**1** LLM call so far" if lang == "en" else "目前已调用 **1** 次")
    assert "token" not in row.value and "≤" not in row.value
    assert ("could use up to" if lang == "en" else "最多可能用掉") in row.proto.help
    fresh = open_page("pages/playground.py", sb_lang=lang)
    fresh.selectbox(key=f"{P}_variant").select("reflection").run()
    fresh.selectbox(key=f"{P}_scenario").select("primes").run()
    assert t("live.bound", lang, bound=7) in [c.value for c in fresh.caption]
    assert not any("136," in c.value or "worst case ≤" in c.value for c in fresh.caption)


# --- the run's clock while paused and on a fork -----------------------------------------------------


def elapsed(at: AppTest) -> float:
    shown = next(m.value for m in at.metric if m.label in ("Elapsed", "用时"))
    return float(shown.split()[0])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_paused_runs_elapsed_time_is_its_time_so_far(lang):
    at = paused_primes(lang)  # paused before its first call: no event has said any time yet
    time.sleep(0.3)
    at.run()  # any click redraws the paused run
    assert elapsed(at) >= 0.3


def test_a_forks_elapsed_time_is_the_recorded_prefix_plus_its_own():
    at = open_page("pages/replay.py")  # the bundled order 99999, recorded at the offline model's watchable pace
    at.button(key="rp_view-fork-4").click().run()
    nonce = at.session_state["fork_target"]["nonce"]
    at.toggle(key=f"fork_live_{nonce}").set_value(True).run()
    at.button(key=f"fork_run_{nonce}").click().run()
    assert not at.exception, [e.message for e in at.exception]
    forked = at.session_state["rp_runs"][-1]
    assert forked.status == "finished"
    calls = [e for e in forked.events if e.kind == "llm_call"]
    recorded = calls[2].t  # the prefix: calls 1 to 3 served from the record, at their recorded times
    assert recorded > 1.0 and forked.events[-1].elapsed_ms / 1000 >= recorded
    assert elapsed(at) >= recorded


# --- one count of calls -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "none", "unanswered"),
    [("en", "0 LLM calls", "1 call got no reply"), ("zh", "LLM 调用 0 次", "1 次调用没有得到回复")],
)
def test_a_dead_endpoint_counts_no_call_in_the_headline_or_the_metric_and_says_the_one_that_failed(
    lang, none, unanswered
):
    at = open_page("pages/playground.py", sb_lang=lang)
    at.sidebar.selectbox(key="sb_provider").set_value("custom").run()
    at.sidebar.text_input(key="sb_base_url").input("http://127.0.0.1:9/v1").run()  # nothing listens there
    at.sidebar.text_input(key="sb_model").input("m").run()
    at.button(key=f"{P}_run").click().run(timeout=120)
    for _ in range(200):
        if not at.session_state[f"{P}_runs"][-1].active:
            break
        time.sleep(0.05)
        at.run()
    at.run()
    record = at.session_state[f"{P}_runs"][-1]
    assert record.events[-1].kind == "run_finished" and record.events[-1].llm_calls == 1
    calls = next(m.value for m in at.metric if m.label in ("LLM calls", "LLM 调用"))
    ending = next(c.value for c in at.caption if unanswered in c.value)
    assert calls == "0" and none in ending, ending


# --- Run within reach -------------------------------------------------------------------------------


def widget_keys(node) -> list[str]:  # noqa: ANN001 - an AppTest block
    """The keys of the widgets under `node`, in the order the page draws them."""
    found = []
    for child in getattr(node, "children", {}).values():
        key = getattr(child, "key", None)
        if isinstance(key, str):
            found.append(key)
        found += widget_keys(child)
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_run_and_stop_come_before_the_pattern_and_its_task_box(lang):
    at = open_page("pages/playground.py", sb_lang=lang)
    keys = widget_keys(at.main)
    first_setup = min(keys.index(f"{P}_variant"), keys.index(f"{P}_scenario"))
    assert keys.index(f"{P}_run") < first_setup and keys.index(f"{P}_stop") < first_setup


# --- one clear message for a broken upload ----------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "the file is not JSON (Expecting value: line 1 column 1 (char 0))"),
        ("zh", "文件不是 JSON 格式（技术细节：Expecting value: line 1 column 1 (char 0)）"),
    ],
)
def test_a_broken_trace_upload_says_what_is_wrong_once(lang, expected):
    at = open_page("pages/replay.py")
    at.segmented_control(key="rp_source").set_value("upload").run()
    at.sidebar.segmented_control(key="sb_lang").set_value(lang).run()
    at.file_uploader(key="rp_upload").set_value(("broken.json", b"this is not json", "application/json")).run()
    assert not at.exception, [e.message for e in at.exception]
    (error,) = [e.value.replace("\\", "") for e in at.error]  # (markdown-escaped, as the page draws it)
    assert expected in error, error
    assert error.count("JSON") == 1, error


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "a line is not JSON (line 2: Expecting value)"), ("zh", "有一行不是 JSON（line 2: Expecting value）")],
)
def test_a_broken_task_set_upload_says_what_is_wrong_once(lang, expected):
    at = open_page("pages/eval.py", sb_lang=lang)
    at.radio(key="ev_source").set_value("upload").run()
    data = b'{"question": "2+2?", "answer": "4"}\nnot json\n'
    at.get("file_uploader")[0].set_value(("tasks.jsonl", data, "application/json")).run()
    assert not at.exception, [e.message for e in at.exception]
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert expected in error, error
    assert error.count("JSON") == 1, error


def test_without_a_detail_english_shows_the_cores_message_alone_and_chinese_names_the_reason():
    from agent_core.errors import TaskSetError
    from pages.ui.trace_problems import said

    exc = TaskSetError("tasks.jsonl is 7.2 MB; task sets are limited to 5 MB", reason="too_large")
    assert said("task_problems", exc.reason, str(exc), exc.detail, "en") == str(exc)
    assert said("task_problems", exc.reason, str(exc), exc.detail, "zh") == f"文件、某个任务或其中某个字段过大（{exc}）"
