"""Replay in a real browser: a bundled trace played to the end at 2× (the run grows step by step, then
the final answer), and a file that is not a trace met with one clear message.

Screenshots go to test-artifacts/.
"""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.harness import settle, shot

PLAY, PAUSE = ".st-key-rp_play button", ".st-key-rp_pause button"
FINAL = ".st-key-rp_view-final"
BLOCKS = ".st-key-rp_view-flow [data-testid=stExpander]"


def open_replay(page, url: str) -> None:  # noqa: ANN001 - playwright Page
    page.goto(f"{url}/replay")
    page.locator(PLAY).first.wait_for(timeout=30_000)
    settle(page)


def test_a_bundled_trace_plays_to_its_final_answer(page, app_url):
    open_replay(page, app_url)
    expect(page.locator(".st-key-rp_card")).to_contain_text("Order 99999")
    expect(page.locator(FINAL)).to_be_visible()  # opened whole
    shot(page, "replay-0-opened")

    page.locator(".st-key-rp_speed button", has_text="2×").click()
    settle(page)
    page.locator(PLAY).first.click()
    expect(page.locator(PAUSE).first).to_be_visible()
    expect(page.locator("[class*='st-key-rp_view-verdict-'][class*='-REPLAN']")).to_be_visible(timeout=10_000)
    assert page.locator(FINAL).count() == 0, "the replay should still be going"
    assert page.locator("[data-testid=stProgress]").count() == 1
    shot(page, "replay-1-playing")

    expect(page.locator(FINAL)).to_be_visible(timeout=20_000)
    expect(page.locator(FINAL)).to_contain_text("99999")
    expect(page.locator(PLAY).first).to_be_visible()
    settle(page)
    expect(page.get_by_text("Event 25 of 25")).to_be_visible()
    assert page.locator(BLOCKS).count() == 5
    shot(page, "replay-2-played")


def test_a_file_that_is_not_a_trace_gets_a_clear_message(page, app_url, tmp_path):
    open_replay(page, app_url)
    page.locator(".st-key-rp_source button", has_text="A trace file").click()
    settle(page)
    bad = tmp_path / "not-a-trace.json"
    bad.write_text('{"version": 1, "config": {}}', encoding="utf-8")
    page.locator(".st-key-rp_upload input[type=file]").set_input_files(str(bad))
    error = page.locator("[data-testid=stAlertContentError]")
    expect(error).to_contain_text("not-a-trace.json cannot be replayed")
    expect(error).to_contain_text("missing field(s) events")
    settle(page)
    shot(page, "replay-3-bad-file")
    page.locator(".st-key-rp_source button", has_text="A bundled example").click()
    expect(page.locator(FINAL)).to_be_visible()
