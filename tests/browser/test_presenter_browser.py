"""A projector's view of the Playground, in a real browser at 1280×720 on the offline model at its
default (watchable) speed: presenter mode puts the verdict, its feedback and the latest diff above
the fold; the page follows the newest step while a run streams and lets go when the person scrolls
up; the end of a run neither hides the run area for a frame nor moves the page.

Frames are sampled in the page itself (a requestAnimationFrame loop), not by polling from Python,
so a blink of a few frames cannot slip between two samples. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.browser.harness import ARTIFACTS, open_playground, pick, settle, shot

W, H = 1280, 720
RUN, STOP, FINAL = ".st-key-pg_run button", ".st-key-pg_stop button", ".st-key-pg_view-final"
AREA, FLOW = ".st-key-pg_run_area", ".st-key-pg_view-flow"
HEAD = ".st-key-pg_view-headline"
MAIN = "[data-testid=stMain]"

#: Records, every animation frame: time, the run area's height, the step blocks' height, the page's
#: scroll position, whether this run's final answer is drawn, whether a script run is going, and whether
#: the run is drawn live (its follow mark is fresh: the live script run has not ended).
SAMPLER = """() => {
  window.__frames = [];
  const main = document.querySelector('[data-testid=stMain]');
  const app = document.querySelector('[data-testid=stApp]');
  // this run's final answer: on screen, and not a leftover of the last run (stale until replaced)
  const finalDrawn = () => [...document.querySelectorAll('.st-key-pg_view-final')]
    .some(f => f.offsetParent !== null && !f.closest('[data-stale=true]'));
  const tick = () => {
    const area = document.querySelector('.st-key-pg_run_area');
    const flow = document.querySelector('.st-key-pg_view-flow');
    window.__frames.push([performance.now(), area ? area.getBoundingClientRect().height : -1,
      flow ? flow.getBoundingClientRect().height : -1, main.scrollTop,
      finalDrawn(), app.dataset.testScriptState === 'running',
      [...document.querySelectorAll('.apg-follow[data-live="1"]')].some(m => !m.closest('[data-stale=true]'))]);
    if (!window.__stopFrames) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""

#: Where the newest step block is against the viewport: [top, bottom, viewport height], or null.
NEWEST = """() => {
  const blocks = [...document.querySelectorAll('.st-key-pg_view-flow [data-testid=stExpander]')]
    .filter(b => b.offsetParent !== null);
  if (!blocks.length) return null;
  const r = blocks[blocks.length - 1].getBoundingClientRect();
  return [r.top, r.bottom, innerHeight];
}"""


@pytest.fixture
def projector(browser):  # noqa: ANN001, ANN201
    """A page at a projector's 1280×720."""
    expect.set_options(timeout=30_000)
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()


def _presenting(page, url: str, variant: str) -> None:  # noqa: ANN001
    open_playground(page, url)
    pick(page, "pg_variant", variant)
    page.locator(".st-key-presenter_on label").click()
    settle(page)
    expect(page.locator("[data-testid=stSidebar]")).to_be_hidden()
    expect(page.locator(".st-key-pg_variant")).to_be_hidden()  # the setup goes; Run stays
    expect(page.locator(RUN)).to_be_visible()


def _start(page, blocks: int = 1) -> None:  # noqa: ANN001
    """Press Run and wait until the new run has drawn `blocks` step blocks of its own (the last run's
    blocks stay on screen until the new script run hides them)."""
    page.locator(RUN).click()
    expect(page.locator(STOP)).to_be_enabled()
    expect(page.locator(FINAL)).to_be_hidden()
    expect(page.locator(f"{FLOW} [data-testid=stExpander]:visible").nth(blocks - 1)).to_be_visible()


def _finish(page) -> None:  # noqa: ANN001
    expect(page.locator(FINAL)).to_be_visible(timeout=60_000)
    expect(page.locator(RUN)).to_be_enabled(timeout=60_000)
    settle(page)


def _box(page, selector: str) -> dict:  # noqa: ANN001
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not drawn"
    return box


def _above_the_fold(page, selector: str, *, whole: bool = True) -> None:  # noqa: ANN001
    box = _box(page, selector)
    assert box["y"] >= 0 and (box["y"] + box["height"] if whole else box["y"] + 60) <= H, (selector, box)


def _label_px(page) -> list[float]:  # noqa: ANN001
    """The on-screen size of every graph label: its font size in the SVG times the SVG's scale."""
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid=stGraphVizChart] svg')].flatMap(svg => {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return [...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size')) * scale);
    })""")


def test_presenter_mode_shows_verdict_feedback_and_diff_above_the_fold_on_primes(projector, app_url):
    page = projector
    _presenting(page, app_url, "Reflection")
    page.locator(RUN).click()
    _finish(page)
    page.evaluate(f"() => {{ document.querySelector('{MAIN}').scrollTop = 0; }}")
    time.sleep(0.3)
    page.screenshot(path=str(ARTIFACTS / "presenter-1-primes.png"))  # the first screen, as the room sees it
    _above_the_fold(page, f"{HEAD} .apg-trail")
    trail = page.locator(f"{HEAD} .apg-trail")
    expect(trail.locator("[data-verdict=REVISE]")).to_be_visible()
    expect(trail.locator("[data-verdict=PASS]")).to_be_visible()
    feedback = page.locator(f"{HEAD} [data-testid=stVerticalBlock]", has_text="Feedback").last
    assert feedback.bounding_box()["y"] + feedback.bounding_box()["height"] <= H
    _above_the_fold(page, ".st-key-pg_view-latest-diff .apg-diff", whole=False)
    # the key line of the round, on screen: trial division struck through, the sieve underlined
    key_line = page.locator(".st-key-pg_view-latest-diff ins", has_text="Sieve of Eratosthenes").first
    assert key_line.bounding_box()["y"] + key_line.bounding_box()["height"] <= H
    struck = page.locator(".st-key-pg_view-latest-diff del", has_text="trial").first
    assert struck.bounding_box()["y"] <= H
    # the graph's labels are at least 14 px, wherever the graph is on the page
    sizes = _label_px(page)
    assert sizes and min(sizes) >= 14, sizes


def test_presenter_mode_shows_the_replan_its_analysis_and_the_retry_diff_on_order_99999(projector, app_url):
    page = projector
    _presenting(page, app_url, "Plan-and-Execute + Reflector")
    expect(page.locator(".st-key-pg_run_area")).to_be_visible()
    page.locator(RUN).click()
    _finish(page)
    page.evaluate(f"() => {{ document.querySelector('{MAIN}').scrollTop = 0; }}")
    time.sleep(0.3)
    page.screenshot(path=str(ARTIFACTS / "presenter-2-order-99999.png"))
    _above_the_fold(page, f"{HEAD} .apg-trail")
    trail = page.locator(f"{HEAD} .apg-trail")
    for name in ("REPLAN", "RETRY", "PASS"):
        expect(trail.locator(f"[data-verdict={name}]")).to_be_visible()
    # amber, not red: a re-plan is the pattern at work
    colour = trail.locator("[data-verdict=REPLAN]").evaluate("e => getComputedStyle(e).color")
    assert colour == "rgb(120, 53, 15)", colour
    errors = page.locator("[data-testid=stAlertContentError]").all_inner_texts()
    assert not errors, errors
    feedback = page.locator(f"{HEAD} [data-testid=stVerticalBlock]", has_text="Feedback").last
    assert feedback.bounding_box()["y"] + feedback.bounding_box()["height"] <= H
    _above_the_fold(page, ".st-key-pg_view-latest-diff .apg-diff", whole=False)
    expect(page.locator(".st-key-pg_view-latest-diff")).to_contain_text("step 4, attempt 1")
    sizes = _label_px(page)
    assert sizes and min(sizes) >= 14, sizes


def _newest_in_view(page, samples: int, *, until_final: bool) -> tuple[int, int, int]:  # noqa: ANN001
    """(samples taken while a step was streaming, samples with the newest step on screen, the longest run
    of samples in a row without it), one each 0.2 s; a sample with no step is skipped, one after the final
    answer is skipped or ends it (`until_final`)."""
    seen = shown = missed = longest = 0
    for _ in range(samples):
        time.sleep(0.2)
        if page.locator(FINAL).count():
            if until_final:
                break
            continue
        where = page.evaluate(NEWEST)
        if where is None:  # no step block drawn at this instant (a redraw between two): not a sample
            continue
        seen += 1
        top, bottom, height = where
        if bottom > 0 and top < height and bottom <= height + 2:
            shown, missed = shown + 1, 0
        else:
            missed += 1
            longest = max(longest, missed)
    return seen, shown, longest


def _followed(seen: int, shown: int, longest: int, least: int) -> None:
    """The page followed: the newest step on screen in at least 80 % of the samples, and never off it for
    more than two samples (0.4 s) in a row. A sample can land in the frame between a new block's drawing
    and the scroll to it, and on a loaded machine a few do; a page that does not follow fails both (the
    issue saw the newest step below the fold in 18 of 20 samples)."""
    assert seen >= least, f"only {seen} samples while a step was streaming"
    assert shown >= 0.8 * seen and longest <= 2, (
        f"the newest step was in view in {shown} of {seen} samples, off it {longest} samples in a row at most"
    )


def test_the_newest_step_stays_in_view_at_the_watchable_speed(projector, app_url):
    """The issue: in 18 of 20 samples the newest step was below the fold, and the page never scrolled."""
    page = projector
    open_playground(page, app_url)
    pick(page, "pg_variant", "Reflection")
    _start(page)
    _followed(*_newest_in_view(page, 20, until_final=True), least=10)
    _finish(page)


def test_the_newest_step_stays_in_view_and_scrolling_up_lets_go(projector, app_url):
    page = projector
    open_playground(page, app_url)
    pick(page, "pg_variant", "ReAct + reflection advisor")
    # the slow offline speed, so the run outlasts the scrolling below
    page.locator(".st-key-sb_offline_speed input[type=range]").press("End")
    settle(page)
    expect(page.locator(".st-key-sb_offline_speed")).to_contain_text("Slow")
    _start(page)
    _followed(*_newest_in_view(page, 12, until_final=False), least=6)  # about 2.5 s of a streaming run
    shot(page, "follow-1-newest-in-view")

    # the person scrolls up: the page stays where they put it, and offers the way back
    page.mouse.move(W / 2, H / 2)
    page.mouse.wheel(0, -500)
    time.sleep(0.3)
    held = page.evaluate(f"() => document.querySelector('{MAIN}').scrollTop")
    jump = page.locator("button.apg-jump")
    assert page.locator(FINAL).count() == 0, "the run should still be going"
    expect(jump).to_be_visible()
    time.sleep(1.0)
    now = page.evaluate(f"() => document.querySelector('{MAIN}').scrollTop")
    assert abs(now - held) <= 2, f"scrolled up to {held}, but the page moved to {now}"
    page.screenshot(path=str(ARTIFACTS / "follow-2-scrolled-up.png"))
    jump.click()
    time.sleep(0.5)
    assert page.locator(FINAL).count() == 0, "the run should still be going"
    expect(jump).to_be_hidden()
    where = page.evaluate(NEWEST)
    assert where[1] <= where[2] + 2 and where[1] > 0, f"the newest step is not in view after the jump: {where}"
    _finish(page)


def _frames(page) -> list[list]:  # noqa: ANN001
    page.evaluate("() => { window.__stopFrames = true; }")
    return page.evaluate("() => window.__frames")


@pytest.mark.parametrize(("variant", "runs"), [("ReAct", 3), ("Reflection", 2)])
def test_the_end_of_a_run_never_hides_the_run_area(projector, app_url, variant, runs):
    """The blink came in some runs and not others (3 of 3 weather runs, about 1 in 4 others): several runs."""
    page = projector
    open_playground(page, app_url)
    pick(page, "pg_variant", variant)
    for n in range(runs):
        _start(page)
        page.evaluate(SAMPLER)
        _finish(page)
        time.sleep(1.0)
        frames = _frames(page)
        # the last frame of the live drawing, then every frame after it, to the redrawn finished run
        last = max(i for i, f in enumerate(frames) if f[6])
        after = frames[last:]
        assert len(after) >= 5 and after[-1][4], "too few frames sampled across the end of the run"
        # Frames come every 20-100 ms here, so the last live one may still show the last reply
        # streaming, which its call's caption then replaces: the redrawn run can be a little shorter
        # than that frame. What must never happen is a frame lower than both the live and the
        # redrawn run (the old blink: the area empty for 0.3-0.5 s, the blocks at 0 px).
        for i, name in ((1, "run area"), (2, "step blocks")):
            floor = min(after[0][i], after[-1][i])
            lowest = min(f[i] for f in after)
            assert lowest >= floor - 2, (
                f"run {n + 1}: the {name} fell to {lowest:.0f} px between the live "
                f"{after[0][i]:.0f} px and the redrawn {after[-1][i]:.0f} px"
            )
        page.evaluate("() => { window.__stopFrames = false; }")
    shot(page, f"no-blink-{variant.lower()}")


def test_the_scroll_position_is_kept_at_the_end_of_a_run(projector, app_url):
    page = projector
    open_playground(page, app_url)
    pick(page, "pg_variant", "Reflection")
    _start(page, blocks=2)
    # at the bottom, as a person reading the newest step would be
    page.evaluate(f"() => {{ const m = document.querySelector('{MAIN}'); m.scrollTop = m.scrollHeight; }}")
    page.evaluate(SAMPLER)
    _finish(page)
    time.sleep(1.0)
    frames = _frames(page)
    first = next(i for i, f in enumerate(frames) if f[4])
    tops = [f[3] for f in frames[first:]]
    drops = [b - a for a, b in zip(tops, tops[1:], strict=False) if b < a - 2]
    assert not drops, f"the page jumped up by {-min(drops):.0f} px at the end of the run"
    assert tops[-1] >= tops[0] - 2

    # and where the person scrolled up to, the page stays, through the end of the next run
    _start(page, blocks=3)
    page.mouse.move(W / 2, H / 2)
    page.mouse.wheel(0, -300)
    time.sleep(0.5)
    page.evaluate(SAMPLER)
    _finish(page)
    time.sleep(1.0)
    tops = [f[3] for f in _frames(page)]
    assert max(tops) - min(tops) <= 2, f"the page moved between {min(tops):.0f} and {max(tops):.0f} px"
    shot(page, "scroll-kept")


def test_compare_follows_its_lanes_into_view_while_they_run(projector, app_url):
    """The issue's Compare: at 1280×720 the lanes ran entirely below the fold, and the page never moved."""
    page = projector
    page.goto(f"{app_url}/compare")
    page.locator(".st-key-cmp_run button").wait_for()
    settle(page)
    page.locator(".st-key-cmp_preset_executor button").first.click()  # offered offline: scripts play both lanes
    settle(page)
    page.locator(".st-key-cmp_run button").click()
    expect(page.locator(".st-key-cmp_lane0-flow [data-testid=stExpander]").first).to_be_visible()
    time.sleep(1.5)
    moved = page.evaluate(f"() => document.querySelector('{MAIN}').scrollTop")
    seen = page.evaluate("""() => [0, 1, 2, 3].map(i => {
      const blocks = [...document.querySelectorAll(`.st-key-cmp_lane${i}-flow [data-testid=stExpander]`)]
        .filter(b => b.offsetParent !== null);
      if (!blocks.length) return null;
      const r = blocks[blocks.length - 1].getBoundingClientRect();
      return [r.top, r.bottom];
    })""")
    page.screenshot(path=str(ARTIFACTS / "follow-3-compare-lanes.png"))  # what the room sees, mid-run
    drawn = [s for s in seen if s is not None]
    assert drawn, "no lane has drawn a step yet"
    assert any(top < H and bottom > 0 for top, bottom in drawn), f"every lane's newest step is off screen: {seen}"
    assert moved > 0, "the page never moved"
    page.locator(".st-key-cmp_stop button").click()
    settle(page)


def test_compare_keeps_run_and_stop_in_the_header_in_presenter_mode(projector, app_url):
    """At 1280×720 Compare's Run/Stop row scrolled away while the lanes streamed; in presenter mode it rides
    in the header bar, as the Playground's does, so Stop is on screen wherever the page has followed to."""
    page = projector
    page.goto(f"{app_url}/compare")
    page.locator(".st-key-cmp_run button").wait_for()
    settle(page)
    page.locator(".st-key-cmp_preset_executor button").first.click()
    settle(page)
    page.locator(".st-key-presenter_on label").click()
    settle(page)
    page.locator(".st-key-cmp_run button").click()
    expect(page.locator(".st-key-cmp_lane0-flow [data-testid=stExpander]").first).to_be_visible()
    page.evaluate(f"() => document.querySelector('{MAIN}').scrollTo(0, 1e6)")  # the bottom of the lanes
    time.sleep(0.5)
    assert page.evaluate(f"() => document.querySelector('{MAIN}').scrollTop") > 0, "the page never scrolled"
    stop = page.locator(".st-key-cmp_stop button")
    expect(stop).to_be_enabled()
    box = stop.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 80, f"Stop is not in the header: {box}"
    shot(page, "presenter-compare-stop-in-header")
    stop.click()
    settle(page)
    expect(page.locator(".st-key-cmp_run button")).to_be_enabled()


def test_replay_follows_the_newest_step_while_it_plays(projector, app_url):
    page = projector
    page.goto(f"{app_url}/replay")
    page.locator(".st-key-rp_play button").first.wait_for()
    settle(page)
    page.locator(".st-key-rp_play button").first.click()
    expect(page.locator(".st-key-rp_pause button").first).to_be_visible()
    expect(page.locator(".st-key-rp_view-flow [data-testid=stExpander]").nth(2)).to_be_visible(timeout=20_000)
    time.sleep(0.5)
    playing = page.locator(".st-key-rp_view-final").count() == 0
    moved = page.evaluate(f"() => document.querySelector('{MAIN}').scrollTop")
    where = page.evaluate("""() => {
      const blocks = [...document.querySelectorAll('.st-key-rp_view-flow [data-testid=stExpander]')]
        .filter(b => b.offsetParent !== null);
      const r = blocks[blocks.length - 1].getBoundingClientRect();
      return [r.top, r.bottom, innerHeight];
    }""")
    page.screenshot(path=str(ARTIFACTS / "follow-4-replay-playing.png"))
    assert playing, "the replay should still be playing"
    assert moved > 0, "the page never moved"
    assert where[1] > 0 and where[0] < where[2] and where[1] <= where[2] + 2, f"newest step off screen: {where}"
