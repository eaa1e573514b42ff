"""Step mode in a real browser, on the offline model: a trainer steps through primes one call at a
time, and a paused run survives a walk to another page and back until Stop ends it (the room's
prediction poll, which belongs to a workshop room, is tests/browser/test_room_browser.py's).

Screenshots of every pause go to test-artifacts/.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

import agent_core as ac
from agent_core import events as ev
from agent_core.offline import OfflineModel
from tests.browser.harness import open_playground, pick, settle, shot, verdicts_in_order

BANNER, FINAL = ".st-key-pg_pause", ".st-key-pg_view-final"
STEP, CONTINUE, STOP = (f".st-key-pg_step_{name} button" for name in ("step", "continue", "stop"))
RUN = ".st-key-pg_run button"


def step_mode(page, url: str, breakpoint: str | None = None) -> None:  # noqa: ANN001
    """Reflection on primes with Step mode on; `breakpoint` (an option's label) replaces the default
    "before every model call"."""
    open_playground(page, url)
    pick(page, "pg_variant", "Reflection")
    expect(page.locator(".st-key-pg_task_box")).to_contain_text("find_primes(n)")
    page.locator(".st-key-pg_step label").click()
    settle(page)
    expect(page.locator(".st-key-pg_step_breaks")).to_contain_text("before every model call")
    if breakpoint is not None:
        box = page.locator(".st-key-pg_step_breaks input")
        box.click()
        box.press("Backspace")  # drops the default chip
        page.get_by_role("option", name=breakpoint, exact=True).click()
        page.keyboard.press("Escape")
        settle(page)
        expect(page.locator(".st-key-pg_step_breaks")).not_to_contain_text("before every model call")
        expect(page.locator(".st-key-pg_step_breaks")).to_contain_text(breakpoint)


def run_id(page) -> str:  # noqa: ANN001
    """The id in the run's header ("Run `abc123` · …")."""
    caption = page.locator(".st-key-pg_head").inner_text()
    found = re.search(r"Run\s+(\w+)", caption)
    assert found, caption
    return found.group(1)


def plain_primes() -> tuple[list[str], list[str]]:
    """The roles of the model calls and the verdicts of the unpaused offline run."""
    config, task = ac.for_scenario("primes", "en")
    events = list(ac.stream(task, config, OfflineModel()))
    return (
        [e.role for e in events if isinstance(e, ev.LlmCall)],
        [e.verdict for e in events if isinstance(e, ev.VerdictEvent)],
    )


def headlines(roles: list[str], verdicts: list[str]) -> list[str]:
    """What the banner should say at each pause when Step is pressed from the first call to the end:
    before every call the role about to run, after every verdict the verdict itself."""
    out, drafts, verdict_iter = [], 0, iter(verdicts)
    for call, role in enumerate(roles, 1):
        if role == "critic":
            out.append(f"The critic is about to review draft {drafts}.")
            out.append(f"The critic has given its verdict: {next(verdict_iter)}.")
            drafts += 1
        else:
            out.append(f"The {role} is about to be called (call {call}).")
    return out


def test_stepping_through_primes_names_every_next_role_and_ends_with_pass(page, app_url):
    roles, verdicts = plain_primes()
    assert roles == ["actor", "critic", "refiner", "critic"] and verdicts == ["REVISE", "PASS"]
    expected = headlines(roles, verdicts)
    step_mode(page, app_url)
    page.locator(RUN).click()

    for number, headline in enumerate(expected, 1):
        banner = page.locator(BANNER)
        expect(banner).to_contain_text(headline)
        settle(page)
        expect(banner.locator("h3")).to_have_text(re.compile(re.escape(headline)))
        assert page.locator(FINAL).count() == 0, f"pause {number}: the run should still be going"
        expect(page.locator(STEP)).to_be_enabled()
        if "is about to" in headline:  # before a call the pending prompt is on show
            expect(banner).to_contain_text("template")
        shot(page, f"step-{number}-paused")
        page.locator(STEP).click()

    expect(page.locator(FINAL)).to_be_visible()
    expect(page.locator(".st-key-pg_view-end-pass")).to_contain_text("passed")
    settle(page)
    expect(page.locator(BANNER)).to_have_count(0)
    expect(page.locator(FINAL)).to_contain_text("is_prime")
    assert verdicts_in_order(page) == verdicts
    expect(page.locator(RUN)).to_be_enabled()
    shot(page, f"step-{len(expected) + 1}-final")


def test_a_paused_run_survives_another_page_and_stop_ends_it(page, app_url):
    step_mode(page, app_url, breakpoint="before the critic")
    page.locator(RUN).click()
    expect(page.locator(BANNER)).to_contain_text("The critic is about to review draft 0.")
    settle(page)
    paused_id = run_id(page)

    page.get_by_role("tab", name="Prompts").click()  # a tab click reruns the page: the pause holds
    page.get_by_role("tab", name="The run").click()  # (the prompt editor is a tab beside the run)
    expect(page.locator(BANNER)).to_contain_text("The critic is about to review draft 0.")

    page.locator("[data-testid=stSidebarNav] a", has_text="Learn").click()
    page.locator(".st-key-learn_open_reflection button").wait_for(state="attached")
    settle(page)
    expect(page.locator(BANNER)).to_have_count(0)
    page.locator("[data-testid=stSidebarNav] a", has_text="Playground").click()
    expect(page.locator(BANNER)).to_contain_text("The critic is about to review draft 0.")
    settle(page)
    assert run_id(page) == paused_id, "the same run, not a new one"
    expect(page.locator(RUN)).to_be_disabled()
    assert page.locator(FINAL).count() == 0
    shot(page, "step-tab-switch-still-paused")

    page.locator(STOP).click()
    expect(page.locator(".st-key-pg_view-end-stop")).to_contain_text("stopped")
    settle(page)
    expect(page.locator(BANNER)).to_have_count(0)
    expect(page.locator(RUN)).to_be_enabled()
    assert run_id(page) == paused_id
    assert page.locator(FINAL).count() == 0
    shot(page, "step-stopped")
