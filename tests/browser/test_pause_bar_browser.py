"""A pause you can see, and presenter mode that leaves room for the run, in a real browser on the
offline model, measured with bounding boxes at 1280×720 and 1440×1000, with presenter mode on and off:

- at every pause (Reflection before the critic, after one Step, ReAct and Plan-and-Execute stepped
  call by call) the pause bar's headline, its pending role and call, and its moves are on screen, none
  under the sticky head or under anything else, the newest step is in view above it, and there is no
  "Jump to latest"; the pending prompt opens in one click with its filled placeholders marked;
- in presenter mode the stuck head takes at most 40 % of a 720 px screen, and Run and Stop stay in
  reach while the page follows a streaming run;
- at the end of a run the final answer and the end badge are in view.

Waits are generous (a loaded 2-core machine) and wait for positions, never for a time.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.harness import ARTIFACTS, open_playground, pick, settle

SIZES = {"1280x720": (1280, 720), "1440x1000": (1440, 1000)}
RUN, STOP = ".st-key-pg_run button", ".st-key-pg_stop button"
BAR, FINAL = ".st-key-pg_pause", ".st-key-pg_view-final"
STEP = ".st-key-pg_step_step button"
#: what must be on screen at a pause: name -> selector (a move that a pause does not offer is skipped)
BAR_PARTS = {
    "headline": f"{BAR} h3",
    "role and call": ".st-key-pg_pause_where",
    "Step": STEP,
    "Continue": ".st-key-pg_step_continue button",
    "Edit": ".st-key-pg_step_edit button",
    "Answer": ".st-key-pg_step_answer button",
    "Ask the room": ".st-key-pg_poll_open button",
    "tally": f"{BAR} [data-testid=stMetric]",
    "Stop": ".st-key-pg_step_stop button",
    "prompt": ".st-key-pg_pause_prompt_open button",
}
#: the share of a 720 px screen the stuck head may take in presenter mode
HEAD_SHARE = 0.40
WAIT_MS = 60_000

#: Problems with what is on screen, as sentences (empty: all is well). `parts` are [name, selector,
#: required]: each must be drawn inside the band a person sees (below the header and a stuck head,
#: above the bottom of the window; from the window's top with `header`, for the header bar's own
#: controls) and be the topmost element at its centre (nothing covers it).
#: `newest`: the newest step block must end inside that band, above the pause bar. `jump`: whether
#: "Jump to latest" may show.
_ON_SCREEN = """([parts, newest, jump, inHeader]) => {
  const vh = innerHeight, out = [];
  const header = document.querySelector('[data-testid=stHeader]');
  let top = header ? header.getBoundingClientRect().bottom : 0;
  const head = document.querySelector('[data-testid=stLayoutWrapper]:has(> .st-key-pg_view-headline)');
  if (head && getComputedStyle(head).position === 'sticky') {
    const h = head.getBoundingClientRect();
    if (h.top <= top + 8 && h.bottom > top) top = h.bottom;
  }
  if (inHeader) top = 0;
  const px = (r) => `${Math.round(r.top)}..${Math.round(r.bottom)} px`;
  for (const [name, selector, required] of parts) {
    const el = [...document.querySelectorAll(selector)].find((e) => e.offsetParent !== null);
    if (!el) { if (required) out.push(`${name}: not drawn`); continue; }
    const r = el.getBoundingClientRect();
    if (r.top < top - 1 || r.bottom > vh + 1) { out.push(`${name} at ${px(r)}, outside ${Math.round(top)}..${vh} px`); continue; }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(el.contains(hit) || hit.contains(el))) out.push(`${name} at ${px(r)} is covered`);
  }
  if (newest) {
    const blocks = [...document.querySelectorAll('.st-key-pg_view-flow [data-testid=stExpander]')]
      .filter((b) => b.offsetParent !== null && !b.closest('[data-stale=true]'));
    const bar = document.querySelector('.st-key-pg_pause');
    const bottom = bar ? bar.getBoundingClientRect().top : vh;
    const last = blocks.length ? blocks[blocks.length - 1].getBoundingClientRect() : null;
    if (!last) out.push('no step drawn');
    else if (last.bottom > bottom + 2 || last.bottom < top) out.push(`the newest step ends at ${Math.round(last.bottom)} px, outside ${Math.round(top)}..${Math.round(bottom)} px`);
  }
  const button = document.querySelector('button.apg-jump');
  if (!jump && button && button.offsetParent !== null) out.push('"Jump to latest" shows');
  return out;
}"""

#: the texts drawn on a coloured background inside `selector`: a prompt's filled-in placeholder values
_FILLED = """(selector) => [...document.querySelectorAll(selector + ' span')]
  .filter((s) => !['rgba(0, 0, 0, 0)', 'transparent'].includes(getComputedStyle(s).backgroundColor))
  .map((s) => s.textContent)"""

#: the stuck head's height in px (0 when there is none)
_HEAD_PX = """() => {
  const head = document.querySelector('[data-testid=stLayoutWrapper]:has(> .st-key-pg_view-headline)');
  return head ? head.getBoundingClientRect().height : 0;
}"""


def shot(page, name: str) -> None:  # noqa: ANN001
    """What the window shows (not the whole page: growing the window would scroll the page)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _on_screen(
    page,
    parts: dict[str, str],
    *,
    newest: bool = False,
    jump: bool = False,  # noqa: ANN001
    required: tuple[str, ...] = (),
    header: bool = False,
    where: str = "",
) -> None:
    """Wait until every part is on screen (the page may still be following the run), else fail with
    the positions measured."""
    args = [[[n, s, n in required] for n, s in parts.items()], newest, jump, header]
    try:
        page.wait_for_function(f"(a) => ({_ON_SCREEN})(a).length === 0", arg=args, timeout=WAIT_MS)
    except Exception:  # noqa: BLE001 - the measured positions say more than the timeout
        problems = page.evaluate(_ON_SCREEN, args)
        shot(page, f"pause-bar-failed-{where}")
        raise AssertionError(f"{where}: {problems}") from None


def _presenter(page, on: bool) -> None:  # noqa: ANN001
    toggle = page.locator(".st-key-presenter_on")
    if toggle.locator("input").is_checked() != on:
        toggle.locator("label").click()
        settle(page)
    sidebar = expect(page.locator("[data-testid=stSidebar]"))
    if on:
        sidebar.to_be_hidden()
    else:
        sidebar.to_be_visible()


def _size(page, name: str) -> None:  # noqa: ANN001
    w, h = SIZES[name]
    page.set_viewport_size({"width": w, "height": h})


def _fast(page) -> None:  # noqa: ANN001
    """The offline model's fast pace (200 tokens/s): the sidebar's speed slider, one step from Instant."""
    speed = page.locator(".st-key-sb_offline_speed input[type=range]")
    speed.press("Home")
    settle(page)
    speed.press("ArrowRight")
    settle(page)
    expect(page.locator(".st-key-sb_offline_speed")).to_contain_text("Fast")


def _step_mode(page, url: str, variant: str, breakpoint: str | None = None, *, room: bool = False) -> None:  # noqa: ANN001
    if room:  # as a room's trainer: Ask the room is offered only there
        page.goto(f"{url}/room")
        page.locator(".st-key-room_open button").click()
        expect(page.locator(".st-key-room_trainer_head")).to_contain_text("You are the trainer of room")
        # inside the app, so the session (and the room) comes along; a reload would leave it
        page.get_by_role("link", name="Run in the Playground").click()
        page.locator(".st-key-pg_run button").wait_for(timeout=30_000)
        settle(page)
    else:
        open_playground(page, url)
    _fast(page)
    pick(page, "pg_variant", variant)
    page.locator(".st-key-pg_step label").click()
    settle(page)
    if breakpoint is not None:
        box = page.locator(".st-key-pg_step_breaks input")
        box.click()
        box.press("Backspace")  # drops the default chip, "before every model call"
        page.get_by_role("option", name=breakpoint, exact=True).click()
        page.keyboard.press("Escape")
        settle(page)
        expect(page.locator(".st-key-pg_step_breaks")).to_contain_text(breakpoint)


def _paused(page, headline: str) -> None:  # noqa: ANN001
    expect(page.locator(f"{BAR} h3")).to_contain_text(headline, timeout=WAIT_MS)
    settle(page)


def _paused_before(page, call: int) -> None:  # noqa: ANN001
    """Wait for the pause before model call `call` (its bar names the call)."""
    expect(page.locator(BAR_PARTS["role and call"])).to_contain_text(f"Call {call} ·", timeout=WAIT_MS)
    settle(page)


def _everywhere(
    page,
    parts: dict[str, str],
    required: tuple[str, ...],
    where: str,  # noqa: ANN001
    combos: tuple[tuple[str, bool], ...],
) -> None:
    """The bar on screen in each (size, presenter mode) of `combos`, switched while the run stays paused."""
    for size, presenting in combos:
        _size(page, size)
        _presenter(page, presenting)
        tag = f"{where}-{size}-{'presenter' if presenting else 'normal'}"
        _on_screen(page, parts, newest=True, required=required, where=tag)
        if presenting and size == "1280x720":
            head = page.evaluate(_HEAD_PX)
            assert head <= HEAD_SHARE * 720, f"{tag}: the stuck head is {head:.0f} px of 720"
        shot(page, f"pause-bar-{tag}")


ALL = (("1280x720", False), ("1440x1000", False), ("1440x1000", True), ("1280x720", True))


def test_the_pause_bar_stays_on_screen_before_the_critic_and_after_one_step(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        _step_mode(page, app_url, "Reflection", breakpoint="before the critic", room=True)
        page.locator(RUN).click()
        _paused(page, "The critic is about to review draft 0.")
        expect(page.locator(BAR_PARTS["role and call"])).to_contain_text(re.compile("Call 2 · critic", re.I))
        required = ("headline", "role and call", "Step", "Continue", "Edit", "Answer", "Ask the room", "Stop", "prompt")
        _everywhere(page, BAR_PARTS, required, "critic", ALL)

        # the pending prompt, one click away, its filled placeholders marked, inside the window
        page.locator(BAR_PARTS["prompt"]).click()
        prompt = page.locator(".st-key-pg_pause_prompt")
        expect(prompt).to_contain_text("highlighted: the values filled into {draft}, {task}")
        expect(prompt).to_contain_text("find_primes")
        filled = page.evaluate(_FILLED, ".st-key-pg_pause_prompt")
        assert any("find_primes(n)" in f for f in filled), f"the filled-in task is not marked: {filled}"
        box = prompt.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 720 + 1, f"the prompt at {box}"
        shot(page, "pause-bar-prompt-open")
        page.keyboard.press("Escape")
        expect(prompt).to_be_hidden()

        # the room is asked: its tally joins the bar, on screen with the moves
        page.locator(BAR_PARTS["Ask the room"]).click()
        settle(page)
        expect(page.locator(BAR)).to_contain_text("0 vote(s) so far")
        _on_screen(page, BAR_PARTS, newest=True, required=("headline", "Step", "Stop", "tally"), where="tally")

        # one Step: the critic's verdict lands, and the bar is on screen again, in every size and mode
        page.locator(STEP).click()
        _paused(page, "The critic has given its verdict: REVISE.")
        _everywhere(page, BAR_PARTS, ("headline", "role and call", "Step", "Continue", "Stop"), "after-step", ALL[::-1])
        page.locator(BAR_PARTS["Stop"]).click()
        expect(page.locator(".st-key-pg_view-end-stop")).to_be_visible(timeout=WAIT_MS)
    finally:
        context.close()


@pytest.mark.parametrize("variant", ["ReAct", "Plan-and-Execute"])
def test_the_pause_bar_stays_on_screen_when_stepping_react_and_plan_and_execute(browser, app_url, variant):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        _step_mode(page, app_url, variant)
        page.locator(RUN).click()
        _paused_before(page, 1)
        # Step to the pause before call 3 (Step also stops at a verdict): the page has steps to follow,
        # and the bar is drawn again at each pause
        where = page.locator(BAR_PARTS["role and call"])
        for _ in range(6):
            if "Call 3 ·" in where.inner_text():
                break
            before = where.inner_text()
            page.locator(STEP).click()
            expect(where).not_to_have_text(before, timeout=WAIT_MS)
            settle(page)
        _paused_before(page, 3)
        required = ("headline", "role and call", "Step", "Continue", "Edit", "Answer", "Stop", "prompt")
        _everywhere(page, BAR_PARTS, required, variant.lower(), (("1440x1000", False), ("1280x720", True)))
        page.locator(BAR_PARTS["Stop"]).click()
        expect(page.locator(".st-key-pg_view-end-stop")).to_be_visible(timeout=WAIT_MS)
    finally:
        context.close()


END = {"final answer": FINAL, "end badge": "[class*='st-key-pg_view-end-']"}


@pytest.mark.parametrize("variant", ["ReAct + reflection advisor", "Plan-and-Execute", "Direct — one call (baseline)"])
def test_the_end_of_a_run_comes_into_view(page, app_url, variant):
    """At 1440×1000, presenter mode off: the weather report, order 99999 and the umbrella question."""
    open_playground(page, app_url)
    _fast(page)
    pick(page, "pg_variant", variant)
    page.locator(RUN).click()
    expect(page.locator(FINAL)).to_be_visible(timeout=WAIT_MS)
    expect(page.locator(RUN)).to_be_enabled(timeout=WAIT_MS)
    settle(page)
    _on_screen(page, END, required=tuple(END), where=f"end-{variant.split()[0].lower()}")
    shot(page, f"pause-bar-end-{variant.split()[0].lower()}")


def test_presenter_mode_keeps_run_and_stop_in_reach_and_the_end_in_view(browser, app_url):
    """1280×720, presenter mode, the weather report at the watchable pace: while the page follows the
    streaming run, Stop is on screen; the stuck head stays within 40 % of the screen; the end is in view."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        open_playground(page, app_url)
        pick(page, "pg_variant", "ReAct + reflection advisor")
        _presenter(page, True)
        page.locator(RUN).click()
        expect(page.locator(STOP)).to_be_enabled(timeout=WAIT_MS)
        # the page has followed the run down: Run and Stop would have scrolled away with the setup
        page.wait_for_function("() => document.querySelector('[data-testid=stMain]').scrollTop > 300", timeout=WAIT_MS)
        assert page.locator(FINAL).count() == 0, "the run should still be streaming"
        _on_screen(
            page, {"Run": RUN, "Stop": STOP}, jump=True, required=("Run", "Stop"), header=True, where="streaming"
        )
        expect(page.locator(STOP)).to_be_enabled()
        shot(page, "pause-bar-presenter-streaming")
        expect(page.locator(FINAL)).to_be_visible(timeout=WAIT_MS)
        expect(page.locator(RUN)).to_be_enabled(timeout=WAIT_MS)
        settle(page)
        _on_screen(page, END, required=tuple(END), where="presenter-end")
        head = page.evaluate(_HEAD_PX)
        assert 0 < head <= HEAD_SHARE * 720, f"the stuck head is {head:.0f} px of 720"
        shot(page, "pause-bar-presenter-end")
    finally:
        context.close()
