"""A workshop room in real browsers at 1280×720: the trainer opens a room, two participants join by its
link, the trainer steps primes to the critic and asks the room; both seats see the question at the top
of their page (above the trainer's run, which they watch live), vote, and see the real verdict when the
trainer goes on; the trainer's tally counts their votes in the pause bar.

Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.harness import pick, settle, shot

VIEWPORT = {"width": 1280, "height": 720}
BANNER = ".st-key-pg_pause"
SEAT_POLL, SEAT_PAUSE = ".st-key-poll_seat", ".st-key-rv_pause"


def in_view(page, selector: str) -> bool:  # noqa: ANN001
    """Whether the element's top is inside the window (the question must not wait below the fold)."""
    box = page.locator(selector).bounding_box()
    return box is not None and 0 <= box["y"] < VIEWPORT["height"]


def test_two_seats_watch_the_trainers_run_vote_and_see_the_verdict(browser, app_url):
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(3)]
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
        trainer.locator(".st-key-pg_run button").click()
        expect(trainer.locator(BANNER)).to_contain_text("The critic is about to review draft 0.")
        settle(trainer)

        for seat in seats:  # the run and its pause, live on every seat, the pending prompt one click away
            expect(seat.locator(SEAT_PAUSE)).to_contain_text(
                "the critic is about to be called (call 2)", timeout=10_000
            )
            expect(seat.locator(".st-key-rv_view-flow")).to_contain_text("Draft 0")
        shot(seats[0], "room-1-seat-paused")

        trainer.locator(".st-key-pg_poll_open button").click()
        settle(trainer)
        expect(trainer.locator(BANNER)).to_contain_text("0 vote(s) so far")
        for seat in seats:  # the question arrives with a toast, at the top of the page
            expect(seat.locator(SEAT_POLL)).to_contain_text("What will the critic say?", timeout=10_000)
            expect(seat.locator("[data-testid=stToast]")).to_contain_text("What will the critic say?")
        for seat, choice in zip(seats, ("REVISE", "PASS"), strict=True):
            assert in_view(seat, SEAT_POLL), "the question is at the top of the seat's page"
            seat_poll = seat.locator(SEAT_POLL).bounding_box()
            seat_run = seat.locator(SEAT_PAUSE).bounding_box()
            assert seat_poll["y"] < seat_run["y"], "the question comes before the run"
            seat.locator(SEAT_POLL).get_by_role("radio", name=choice).click()
            expect(seat.locator(SEAT_POLL)).to_contain_text(f"Your vote: {choice}")
        shot(seats[1], "room-2-seat-voted")

        revise = trainer.locator(f"{BANNER} [data-testid=stMetric]", has_text="REVISE")
        expect(revise.locator("[data-testid=stMetricValue]")).to_have_text("1", timeout=10_000)
        expect(trainer.locator(BANNER)).to_contain_text("2 vote(s) so far")
        moves = trainer.locator(".st-key-pg_step_continue button").bounding_box()
        assert moves is not None and moves["y"] + moves["height"] <= VIEWPORT["height"], "the moves are on screen"
        shot(trainer, "room-3-trainer-tally")

        trainer.locator(".st-key-pg_step_continue button").click()
        expect(trainer.locator(BANNER)).to_contain_text("The critic is about to review draft 1.")
        for seat in seats:
            expect(seat.locator(SEAT_POLL)).to_contain_text(
                "The critic said REVISE · 1 of 2 predicted it", timeout=10_000
            )
        shot(seats[0], "room-4-seat-revealed")
        settle(trainer)
        trainer.locator(".st-key-pg_step_stop button").click()
        expect(trainer.locator(".st-key-pg_view-end-stop")).to_contain_text("stopped")
        for seat in seats:  # the run is over on every seat, and no question stays
            expect(seat.locator(".st-key-rv_view-end-stop")).to_contain_text("stopped", timeout=10_000)
            expect(seat.locator(SEAT_PAUSE)).to_have_count(0)
    finally:
        for c in contexts:
            c.close()
