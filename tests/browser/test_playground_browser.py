"""The Playground in a real browser, on the offline model at its default (watchable) speed: what the
audience sees while a run is still going, how it ends, Stop, and the downloaded files.

Screenshots of every state go to test-artifacts/.
"""

from __future__ import annotations

import json
import time

from playwright.sync_api import expect

from agent_core.trace import VERSION as TRACE_VERSION
from tests.browser.harness import download, open_playground, pick, settle, shot, verdict, verdicts_in_order

FINAL = ".st-key-pg_view-final"
RUN, STOP = ".st-key-pg_run button", ".st-key-pg_stop button"
BLOCKS = ".st-key-pg_view-flow [data-testid=stExpander]"


def test_reflection_on_primes_shows_the_critique_and_the_diff_while_it_runs(page, app_url):
    open_playground(page, app_url)
    pick(page, "pg_variant", "Reflection")
    expect(page.locator(".st-key-pg_task_box")).to_contain_text("find_primes(n)")
    page.locator(RUN).click()

    expect(verdict(page, "REVISE")).to_be_visible()
    assert page.locator(FINAL).count() == 0, "the run should still be going"
    expect(page.locator(RUN)).to_be_disabled()
    expect(page.locator(STOP)).to_be_enabled()
    expect(verdict(page, "REVISE")).to_contain_text("Sieve of Eratosthenes")
    shot(page, "primes-1-critique-live")

    diff = page.locator(".st-key-pg_view-diff-1")
    expect(diff).to_be_visible()
    assert page.locator(FINAL).count() == 0, "the diff should arrive before the final answer"
    expect(diff).to_contain_text("Changes · lines")
    shot(page, "primes-2-diff-live")

    expect(page.locator(FINAL)).to_be_visible()
    expect(page.locator(".st-key-pg_view-end-pass")).to_contain_text("passed")
    expect(page.locator(RUN)).to_be_enabled()
    settle(page)
    assert verdicts_in_order(page) == ["REVISE", "PASS"]
    expect(page.locator(FINAL)).to_contain_text("is_prime")
    shot(page, "primes-3-final")

    trace = json.loads(download(page, "pg_dl-trace"))
    assert trace["version"] == TRACE_VERSION and trace["config"]["pattern"] == "reflection"
    assert [e["verdict"] for e in trace["events"] if e["kind"] == "verdict"] == ["REVISE", "PASS"]
    assert [e["version"] for e in trace["events"] if e["kind"] == "draft"] == [0, 1]
    assert trace["result"]["reason"] == "pass" and "is_prime" in trace["result"]["final_answer"]
    assert not [e for e in trace["events"] if e["kind"] == "token"]
    report = download(page, "pg_dl-report")
    assert report.startswith("# Reflection") and "find_primes" in report and "REVISE" in report


def test_plan_and_execute_on_order_99999_in_chinese_replans_retries_and_passes(page, app_url):
    open_playground(page, app_url)
    page.locator(".st-key-sb_lang button", has_text="中文").click()
    settle(page)
    pick(page, "pg_variant", "计划执行 + 反思器")  # the pattern picker speaks the run's language
    expect(page.locator(".st-key-pg_task_box")).to_contain_text("帮我查一下订单 99999 到了没")
    page.locator(RUN).click()

    expect(verdict(page, "REPLAN")).to_be_visible()
    assert page.locator(FINAL).count() == 0, "the run should still be going"
    expect(verdict(page, "REPLAN")).to_contain_text("同步")
    expect(page.get_by_text("重新规划 #1")).to_be_visible()  # block titles follow the page's language
    shot(page, "order-1-replan-live")

    expect(page.locator(FINAL)).to_be_visible()
    expect(page.locator(RUN)).to_be_enabled()
    settle(page)
    assert verdicts_in_order(page) == ["REPLAN", "RETRY", "PASS"]
    expect(page.locator(FINAL)).to_contain_text("99999")
    shot(page, "order-2-final")

    trace = json.loads(download(page, "pg_dl-trace"))
    assert trace["config"]["lang"] == "zh" and trace["config"]["reflector"] is True
    assert [e["verdict"] for e in trace["events"] if e["kind"] == "verdict"] == ["REPLAN", "RETRY", "PASS"]
    assert trace["result"]["llm_calls"] == 9
    report = download(page, "pg_dl-report")
    assert "REPLAN" in report and "最终答案" in report and "帮我查一下订单 99999 到了没" in report


def test_stop_ends_the_run_and_keeps_what_it_recorded(page, app_url):
    """How fast Stop lands is a benchmark figure (tests/bench/bench_ui.py), not a timed test."""
    open_playground(page, app_url)
    pick(page, "pg_variant", "ReAct + reflection advisor")
    page.locator(RUN).click()
    expect(page.locator(BLOCKS).nth(1)).to_be_visible()  # the second round is under way
    page.locator(STOP).click()
    expect(page.locator(".st-key-pg_view-end-stop")).to_contain_text("stopped")
    expect(page.locator(RUN)).to_be_enabled()
    expect(page.locator(".st-key-pg_variant input")).to_be_enabled()
    blocks = page.locator(BLOCKS).count()
    assert blocks >= 2
    time.sleep(1.5)  # the cut run must not go on in the background
    settle(page)
    assert page.locator(BLOCKS).count() == blocks
    assert page.locator(FINAL).count() == 0
    shot(page, "stop-1-stopped")
    trace = json.loads(download(page, "pg_dl-trace"))
    assert trace["result"]["reason"] == "stop" and trace["events"][-1]["kind"] == "run_finished"


def test_a_second_run_starts_on_a_clean_page(page, app_url):
    """The last run's blocks and answer must not linger, faded, under a new live run."""
    open_playground(page, app_url)
    pick(page, "pg_variant", "Reflection")
    page.locator(RUN).click()
    expect(page.locator(FINAL)).to_be_visible()
    settle(page)
    assert page.locator(BLOCKS).count() == 4
    page.locator(RUN).click()
    expect(page.locator(STOP)).to_be_enabled()  # the new run is under way
    expect(page.locator(FINAL)).to_be_hidden()
    visible = page.locator(BLOCKS).evaluate_all("els => els.filter(e => e.offsetParent !== null).length")
    assert visible <= 2, "only the new run's blocks should show"
    shot(page, "primes-4-second-run-live")
    expect(page.locator(FINAL)).to_be_visible()
    settle(page)
    assert page.locator(BLOCKS).count() == 4 and verdicts_in_order(page) == ["REVISE", "PASS"]


def test_run_pressed_from_the_prompt_editor_brings_the_run_forward(page, app_url):
    """The prompt editor is a tab beside the run: pressing Run there must not start a run out of sight."""
    open_playground(page, app_url)
    pick(page, "pg_variant", "Reflection")
    page.get_by_role("tab", name="Prompts").click()
    settle(page)
    expect(page.get_by_role("tab", name="Prompts")).to_have_attribute("aria-selected", "true")
    page.locator(RUN).click()
    expect(page.get_by_role("tab", name="The run")).to_have_attribute("aria-selected", "true")
    expect(page.locator(BLOCKS).first).to_be_visible()
    expect(page.locator(FINAL)).to_be_visible()
    settle(page)
