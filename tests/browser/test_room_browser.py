"""A workshop room in real browsers, at 1280×720 (a projector) and 1440×1000: the
trainer opens a room, two participants join by its link, and the trainer steps primes (Reflection,
a breakpoint before the critic) and asks the room.

- Both seats see the question at the top of their page (above the trainer's run, which they watch
  live), vote, and the trainer's pause bar counts their votes with its moves on screen; Continue
  reveals the critic's verdict on both seats. A participant takes the run from there into their
  own Playground: the trainer's calls up to the fork are served from the record (drawn "recorded",
  the same calls as the trainer's trace) and the run goes on.
- A participant submits a variant (the critic's prompt edited in their Playground); the trainer
  opens it beside the default prompts in Compare and runs both lanes. Then the trainer asks the
  room again and closes their tab: the run ends, and the open question leaves every seat.

Screenshots go to test-artifacts/ (the 1440×1000 ones also to docs/img/, for the README).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from tests.browser.harness import download, pick, settle, shot

SIZES = {"1280x720": {"width": 1280, "height": 720}, "1440x1000": {"width": 1440, "height": 1000}}
BANNER, MOVES = ".st-key-pg_pause", ".st-key-pg_pause_moves"
# (a seat's script run follows the room and keys each box it draws again anew: poll_seat, poll_seat-2 ...)
SEAT_POLL, SEAT_PAUSE = "[class*='st-key-poll_seat']", "[class*='st-key-rv_pause']"
QUESTION = "What will the critic say?"
#: what the participant adds to the critic's prompt before submitting it
STRICT = "Be strict: answer REVISE unless every edge case (0, 1, 2, negatives) is handled."


@dataclass
class Room:
    """One room in three browser contexts: the trainer's page, paused before the critic's first
    review (call 2) of a stepped primes run, and two seats that joined by the link and watch it."""

    size: str
    trainer: object  # playwright Page
    seats: list
    contexts: list

    @property
    def viewport(self) -> dict[str, int]:
        return SIZES[self.size]


def on_screen(page, locator) -> list[str]:  # noqa: ANN001
    """The elements of `locator` (every visible match) whose bounding box is not wholly inside the window."""
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    out = []
    for i in range(locator.count()):
        item = locator.nth(i)
        if not item.is_visible():
            continue
        box = item.bounding_box()
        inside = box is not None and box["x"] >= 0 and box["y"] >= 0
        if not inside or box["x"] + box["width"] > width or box["y"] + box["height"] > height:
            out.append(f"{item.inner_text()!r} at {box}")
    return out


def scrolled(page, selector: str) -> float:  # noqa: ANN001
    """How far the element's scrolling ancestors are scrolled: its bounding box's y plus this is its
    place on the page (a seat that scrolled down to submit sees the question when it scrolls back up)."""
    return page.locator(selector).evaluate(
        "e => { let s = 0; for (let n = e.parentElement; n; n = n.parentElement) s += n.scrollTop; return s; }"
    )


_QUIET = """
([quietMs, timeout]) => new Promise((resolve, reject) => {
  const main = document.querySelector('[data-testid=stMain]') || document.body;
  let timer = setTimeout(done, quietMs);
  function done() { observer.disconnect(); clearTimeout(give); resolve(); }
  const observer = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(done, quietMs); });
  observer.observe(main, {childList: true, subtree: true, characterData: true});
  const give = setTimeout(() => { observer.disconnect(); reject(new Error('the seat never settled')); }, timeout);
})
"""


def quiet(seat, quiet_ms: int = 400, timeout_ms: int = 20_000) -> None:  # noqa: ANN001
    """A seat's Room page follows the room in one script run that never ends while the tab is open:
    wait until its drawing has been still for `quiet_ms` instead of for the run's end."""
    seat.evaluate(_QUIET, [quiet_ms, timeout_ms])


def go(page, name: str) -> None:  # noqa: ANN001
    """To another page inside the app (a reload would start a new session, outside the room)."""
    page.locator("[data-testid=stSidebarNav] a", has_text=name).first.click()
    settle(page)


@pytest.fixture(params=list(SIZES))
def room(request, browser, app_url) -> Iterator[Room]:  # noqa: ANN001
    expect.set_options(timeout=30_000)
    size = request.param
    contexts = [browser.new_context(viewport=SIZES[size], accept_downloads=True) for _ in range(3)]
    trainer, *seats = (c.new_page() for c in contexts)
    for p in (trainer, *seats):
        p.set_default_timeout(30_000)
    try:
        trainer.goto(f"{app_url}/room")
        trainer.locator(".st-key-room_open button").click()
        head = trainer.locator(".st-key-room_trainer_head")
        expect(head).to_contain_text("You are the trainer of room")
        code = re.search(r"room\s+([A-Z0-9]{6})", head.inner_text()).group(1)
        for seat in seats:  # by the join link
            seat.goto(f"{app_url}/room?room={code}")
            expect(seat.locator(".st-key-room_seat_head")).to_contain_text(f"You are in room {code}")
            expect(seat.get_by_text("Waiting for the trainer's run")).to_be_visible()

        # the trainer goes to the Playground inside the app (the session, and so the room, comes along)
        trainer.get_by_role("link", name="Run in the Playground").click()
        trainer.locator(".st-key-pg_run button").wait_for()
        settle(trainer)
        pick(trainer, "pg_variant", "Reflection")
        expect(trainer.locator(".st-key-pg_task_box")).to_contain_text("find_primes(n)")
        trainer.locator(".st-key-pg_step label").click()
        settle(trainer)
        box = trainer.locator(".st-key-pg_step_breaks input")
        box.click()
        box.press("Backspace")
        trainer.get_by_role("option", name="before the critic", exact=True).click()
        trainer.keyboard.press("Escape")
        settle(trainer)
        pause_at_the_critic(trainer, seats, call=2)
        yield Room(size, trainer, seats, contexts)
    finally:
        for c in contexts:
            c.close()


def pause_at_the_critic(trainer, seats, call: int) -> None:  # noqa: ANN001
    """Run (or, with call 4, Continue) and wait until the trainer's page and every seat show the pause."""
    if call == 2:
        trainer.locator(".st-key-pg_run button").click()
        expect(trainer.locator(BANNER)).to_contain_text("The critic is about to review draft 0.")
    else:
        trainer.locator(".st-key-pg_step_continue button").click()
        expect(trainer.locator(BANNER)).to_contain_text("The critic is about to review draft 1.")
    settle(trainer)
    for seat in seats:  # the run and its pause, live on every seat, the pending prompt one click away
        expect(seat.locator(SEAT_PAUSE)).to_contain_text(
            f"the critic is about to be called (call {call})", timeout=10_000
        )


#: Every toast's text as it appears on the page, from now on, in window.__toasts (a toast lasts 10 s)
_TOASTS = """
() => {
  window.__toasts = [];
  if (window.__toastWatch) return;
  window.__toastWatch = new MutationObserver(() => {
    for (const toast of document.querySelectorAll('[data-testid=stToast]')) {
      if (!toast.dataset.seen) { toast.dataset.seen = '1'; window.__toasts.push(toast.textContent); }
    }
  });
  window.__toastWatch.observe(document.body, {childList: true, subtree: true});
}
"""


def ask_the_room(room: Room, call: int) -> None:
    """The trainer asks at call `call`; both seats get the question with a toast naming that call, at the
    top of their page."""
    for seat in room.seats:
        seat.evaluate(_TOASTS)
    room.trainer.locator(".st-key-pg_poll_open button").click()
    settle(room.trainer)
    expect(room.trainer.locator(BANNER)).to_contain_text("0 vote(s) so far")
    for seat in room.seats:
        expect(seat.locator(SEAT_POLL)).to_contain_text(QUESTION, timeout=10_000)
    said = f"{QUESTION} · call {call}"
    for i, seat in enumerate(room.seats):  # each seat's toast, seen as it came (one lasts 10 s)
        try:
            seat.wait_for_function("q => window.__toasts.some(t => t.includes(q))", arg=said, timeout=10_000)
        except Exception:
            raise AssertionError(f"no toast on seat {i}: {seat.evaluate('() => window.__toasts')}") from None
    for seat in room.seats:
        quiet(seat)
        poll, run = seat.locator(SEAT_POLL).bounding_box(), seat.locator(SEAT_PAUSE).bounding_box()
        assert poll is not None and run is not None and poll["y"] < run["y"], "the question comes before the run"
        top = poll["y"] + scrolled(seat, SEAT_POLL)
        assert 0 <= top < room.viewport["height"], f"the question is below the page's first screen: {top:.0f} px"


def calls(trace: dict) -> list[tuple]:
    """A trace's model calls, as what makes a call the same call: who made it, on which model, what it
    was sent and what it got."""
    keys = ("role", "model", "messages", "new_messages", "reply_message")
    return [
        tuple(json.dumps(e.get(k), sort_keys=True) for k in keys) for e in trace["events"] if e["kind"] == "llm_call"
    ]


def test_the_seats_vote_see_the_verdict_and_one_takes_the_run_from_there(room: Room):
    trainer, seats, size = room.trainer, room.seats, room.size
    for seat in seats:
        expect(seat.locator(".st-key-rv_view-flow")).to_contain_text("Draft 0")
    ask_the_room(room, call=2)
    shot(seats[0], f"room-seat-question-{size}")
    for seat, choice in zip(seats, ("REVISE", "PASS"), strict=True):
        seat.locator(SEAT_POLL).get_by_role("radio", name=choice).click()
        expect(seat.locator(SEAT_POLL)).to_contain_text(f"Your vote: {choice}")

    revise = trainer.locator(f"{BANNER} [data-testid=stMetric]", has_text="REVISE")
    expect(revise.locator("[data-testid=stMetricValue]")).to_have_text("1", timeout=10_000)
    expect(trainer.locator(BANNER)).to_contain_text("2 vote(s) so far")
    settle(trainer)
    buttons = trainer.locator(f"{MOVES} button")
    assert buttons.count() >= 3, "Step, Continue and Stop at least"
    assert not on_screen(trainer, buttons), f"pause bar buttons off screen: {on_screen(trainer, buttons)}"
    tally = trainer.locator(f"{BANNER} [data-testid=stMetric]")
    assert tally.count() == 2 and not on_screen(trainer, tally), "the tally is on screen with the buttons"
    shot(trainer, f"room-trainer-tally-{size}")

    pause_at_the_critic(trainer, seats, call=4)  # Continue: the critic answers, and the run waits again
    for seat in seats:
        expect(seat.locator(SEAT_POLL)).to_contain_text("The critic said REVISE · 1 of 2 predicted it")
    expect(seats[0].locator(SEAT_POLL)).to_contain_text("You said REVISE")
    shot(seats[0], f"room-seat-revealed-{size}")

    # a participant takes it from here: calls 1-3 are the trainer's, call 4 on is theirs (offline)
    seat = seats[0]
    take = seat.locator("[class*='st-key-room_take'] button:visible")  # one of two a help text makes
    expect(take).to_be_enabled()
    take.click()
    editor = seat.locator(".st-key-fork_editor")
    expect(editor).to_contain_text("Fork at call 4")
    settle(seat)
    assert seat.url.endswith("/playground")
    editor.locator("[class*=st-key-fork_run_] button:visible").click()
    expect(seat.locator(".st-key-pg_view-end-pass")).to_be_visible(timeout=60_000)
    settle(seat)
    flow = seat.locator(".st-key-pg_view-flow")
    assert flow.locator(".stMarkdownBadge:visible", has_text="recorded").count() == 3, "calls 1-3 are drawn as served"
    mine = json.loads(download(seat, "pg_dl-trace"))

    trainer.locator(".st-key-pg_step_stop button").click()
    expect(trainer.locator(".st-key-pg_view-end-stop")).to_contain_text("stopped")
    theirs = json.loads(download(trainer, "pg_dl-trace"))
    assert len(calls(theirs)) == 3, "the trainer stopped before the critic's second review"
    assert calls(mine)[:3] == calls(theirs), "the fork's prefix is the trainer's calls, to the byte"
    assert len(calls(mine)) > 3 and mine["result"]["reason"] == "pass", "and it ran on from there"
    assert mine["config"]["pattern"] == "reflection" and mine["run_id"] != theirs["run_id"]
    watching = seats[1]  # the seat still on the Room page: the run is over there, its pause gone; the
    # answered question stays, with its answer, while that run is the room's (no vote to cast in it)
    expect(watching.locator(".st-key-rv_view-end-stop")).to_contain_text("stopped", timeout=10_000)
    expect(watching.locator(SEAT_PAUSE)).to_have_count(0)
    expect(watching.locator(SEAT_POLL)).to_contain_text("The critic said REVISE")
    expect(watching.locator(f"{SEAT_POLL} [role=radio]")).to_have_count(0)


def test_a_submitted_variant_runs_beside_the_default_and_a_closed_tab_takes_its_poll_along(room: Room):
    trainer, seats = room.trainer, room.seats
    # a participant edits the critic's prompt in their own Playground and sends it to the room
    seat = seats[1]
    go(seat, "Playground")
    pick(seat, "pg_variant", "Reflection")
    seat.get_by_role("tab", name="Prompts").click()
    seat.get_by_text("critic · ", exact=False).first.click()  # open the critic's expander
    critic = seat.locator(".st-key-pg_prompt_reflection_critic textarea")
    critic.fill(critic.input_value() + "\n" + STRICT)
    critic.press("Control+Enter")
    settle(seat)
    seat.locator(".st-key-room_badge a").click()  # back to the room, from the sidebar's badge
    quiet(seat)
    form = seat.locator(".st-key-room_sub_form")
    expect(form).to_contain_text("critic +")
    form.locator(".st-key-room_sub_name input").fill("Strict critic")
    form.locator(".st-key-room_sub_name input").press("Enter")
    quiet(seat)
    form.locator(".st-key-room_sub_submit button").click()
    expect(form).to_contain_text("Sent to the room as Strict critic")

    # the trainer ends this run, opens the submission beside the default in Compare, and runs both
    trainer.locator(".st-key-pg_step_stop button").click()
    expect(trainer.locator(".st-key-pg_view-end-stop")).to_contain_text("stopped")
    settle(trainer)
    trainer.locator(".st-key-room_badge a").click()
    panel = trainer.locator(".st-key-room_sub_panel")
    expect(panel).to_contain_text("Strict critic")
    settle(trainer)
    panel.locator(".st-key-room_sub_picked input").click()
    trainer.keyboard.type("Strict")  # typed, as pick() does: the list opens on it
    trainer.get_by_role("option", name=re.compile("^Strict critic · Reflection")).click()
    trainer.keyboard.press("Escape")
    settle(trainer)
    panel.locator(".st-key-room_sub_open button").click()
    trainer.locator(".st-key-cmp_run button").wait_for()
    settle(trainer)
    assert trainer.url.endswith("/compare")
    trainer.locator(".st-key-cmp_run button").click()
    for lane in (0, 1):
        expect(trainer.locator(f"[class*='st-key-cmp_lane{lane}-end-']")).to_be_visible(timeout=90_000)
    settle(trainer)
    export = json.loads(download(trainer, "cmp_export"))
    names = [lane["name"] for lane in export["lanes"]]
    assert len(names) == 2 and names[1] == "B · Strict critic", names
    prompts = [lane["config"].get("prompts") or {} for lane in export["lanes"]]
    assert STRICT not in json.dumps(prompts[0]) and prompts[1]["critic"].endswith(STRICT), prompts
    assert [lane["result"]["reason"] for lane in export["lanes"]] == ["pass", "pass"]

    # a new run, a first question answered and a second one open; then the trainer's tab closes
    go(trainer, "Playground")
    pause_at_the_critic(trainer, seats, call=2)
    ask_the_room(room, call=2)
    pause_at_the_critic(trainer, seats, call=4)
    for s in seats:
        expect(s.locator(SEAT_POLL)).to_contain_text("The critic said REVISE · 0 of 0 predicted it")
    ask_the_room(room, call=4)  # within 10 s of the first question: its toast may still be up
    room.contexts[0].close()
    closed = time.monotonic()
    for s in seats:
        expect(s.locator(SEAT_POLL)).to_have_count(0, timeout=8_000)
        expect(s.locator("[class*='st-key-rv_view-end-']").first).to_be_visible()
    assert time.monotonic() - closed < 8.0, "the question left the seats within a few seconds"
