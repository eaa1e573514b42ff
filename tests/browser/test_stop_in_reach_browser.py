"""Stop stays in reach while the page follows a run, at 1280×720 and 1440×1000, out of presenter mode.

The page follows the newest step, so Stop — drawn above the run — was two to four screens up after a
few steps (the Playground's beside the setup, Compare's above the lanes, a Replay fork's in its head):
a person had to scroll against the following to reach it, and a click on it could land on a step the
page had just scrolled under the pointer (how the Stop browser tests failed on loaded CI machines).
Now it floats at the bottom of the screen while it can be pressed, and one click there ends the run.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.harness import open_playground, pick, settle, shot
from tests.browser.test_compare_browser import LONG, open_compare

#: the page's own scroller has followed the run this far down: Stop's place in the page is off screen
FOLLOWED_PX = 600
#: Stop's place is checked this many times, this far apart, while the run goes on
SAMPLES, SAMPLE_GAP_MS = 3, 1000

#: where the Stop button is against the viewport, and whether a click at its centre reaches it
_PLACE = """
sel => {
  const b = document.querySelector(sel), r = b.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {top: r.top, bottom: r.bottom, height: innerHeight, hit: b.contains(hit),
          scrolled: document.querySelector('[data-testid=stMain]').scrollTop};
}
"""


def _slow(page) -> None:  # noqa: ANN001
    page.locator(".st-key-sb_offline_speed input[type=range]").press("End")  # slow: the run lasts
    settle(page)


def _playground(page, url: str) -> tuple[str, str]:  # noqa: ANN001
    open_playground(page, url)
    pick(page, "pg_variant", "Plan-and-Execute + Reflector")
    _slow(page)
    page.locator(".st-key-pg_run button").click()
    return ".st-key-pg_stop button", ".st-key-pg_view-end-stop"


def _compare(page, url: str) -> tuple[str, str]:  # noqa: ANN001
    open_compare(page, url, LONG)
    _slow(page)
    page.locator(".st-key-cmp_run button").click()
    return ".st-key-cmp_stop button", "[class*='st-key-cmp_lane0-end-stop']"


def _replay_fork(page, url: str) -> tuple[str, str]:  # noqa: ANN001
    page.goto(f"{url}/replay")
    page.locator(".st-key-rp_play button").first.wait_for(timeout=30_000)
    settle(page)
    _slow(page)
    page.locator(".st-key-rp_view-fork-4 button:visible").click()
    editor = page.locator(".st-key-fork_editor")
    editor.get_by_text("Let the model answer").click()
    settle(page)
    editor.locator("[class*=st-key-fork_run_] button:visible").click()
    return ".st-key-rp_fork_stop button", ".st-key-rp_view-end-stop"


@pytest.mark.parametrize("size", [(1280, 720), (1440, 1000)], ids=["720p", "1000"])
@pytest.mark.parametrize("start", [_playground, _compare, _replay_fork], ids=["playground", "compare", "replay-fork"])
def test_stop_stays_on_screen_while_the_page_follows_the_run(browser, app_url, start, size):  # noqa: ANN001
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        button, stopped = start(page, app_url)
        page.wait_for_function(
            "px => document.querySelector('[data-testid=stMain]').scrollTop > px", arg=FOLLOWED_PX, timeout=30_000
        )
        for _ in range(SAMPLES):  # as the run goes on and the page follows it
            place = page.evaluate(_PLACE, button)
            assert 0 <= place["top"] and place["bottom"] <= place["height"], f"Stop off screen: {place}"
            assert place["hit"], f"something covers Stop: {place}"
            page.wait_for_timeout(SAMPLE_GAP_MS)
        shot(page, f"stop-in-reach-{start.__name__.strip('_')}-{size[1]}")
        page.locator(button).click(no_wait_after=True)
        expect(page.locator(stopped)).to_contain_text("stopped")
        # the page was not scrolled up to reach it
        assert page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTop") > 0
    finally:
        context.close()
