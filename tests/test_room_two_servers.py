"""A room larger than one server: two `streamlit run app.py` servers on one real redis-server, the
trainer on server A and two participants on server B, every person a websocket session speaking the
app's own protocol (tests/st_client.py, with the fragments' timers a browser runs).

The primes story across the two: the trainer opens a room on A's Room page, runs Reflection on primes
in A's Playground in step mode with a breakpoint before the critic; the seats join on B by the
`?room=CODE` link, watch the run and its pause, get the trainer's question and vote; A's pause bar
counts both votes; Continue reveals the critic's REVISE on B. At the second pause the trainer asks
again, then the trainer's tab closes: the question is gone from both seats on B within the room's
presence window (in fact as soon as the run's end reaches the room).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time

import pytest

from agent_core.rooms import ALPHABET, CODE_LENGTH, ENV, Bounds, Rooms, store_from
from pages.ui import i18n
from tests.browser.harness import streamlit_app
from tests.redis_server import MARKS, redis_server
from tests.st_client import Session, to_primes

pytestmark = MARKS

#: the seat's poll box and pause bar, the trainer's pause bar (keyed containers of pages/ui)
SEAT_POLL, SEAT_PAUSE, TRAINER_PAUSE = "poll_seat", "rv_pause", "pg_pause"
#: the pause bar's moves the trainer uses: Ask the room, Continue
TRAINER_MOVES = ("pg_poll_open", "pg_step_continue")
#: a step of a run view: a call's prompt, a verdict, a draft, a diff, a thought (pages/ui/render.py)
STEP = re.compile(r"^(call-\d+-prompt|verdict-.+|draft-.+|diff-.+|thought-\d+)$")
CODE = re.compile(rf"room `([{ALPHABET}]{{{CODE_LENGTH}}})`")
#: how long after the trainer's tab closes its question may still be on a seat: the room's presence
#: window (a trainer unheard of for that long is away) and a margin for the seats' next look
GONE_WITHIN_S = Bounds().presence_s + 5.0
#: each step of the story gets this long (the offline model paces its replies to be watchable)
STEP_S = 30.0


def say(key: str, **values: object) -> str:
    """The page's English text for `key` (locales/en.toml), filled in."""
    said = i18n.t(key, "en", **values)
    assert said != key, f"no text {key!r} in the locale"
    return said


def steps(session: Session, view: str) -> set[str]:
    """The steps of a run view (`pg_view` on the trainer's Playground, `rv_view` on a seat) drawn so far."""
    return {k.removeprefix(f"{view}-") for k in session.blocks if STEP.match(k.removeprefix(f"{view}-"))}


def poll_choice(session: Session) -> str | None:
    """The key of the question's choices the seat is shown (one per poll: poll_choice_<poll id>)."""
    return next((k for k in session.widgets if k.startswith("poll_choice_") and session.showing(k)), None)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def two_servers(redis_url):
    """Servers A and B, offline and headless on 127.0.0.1, both on the one Redis (emptied first)."""
    store = store_from(redis_url)
    store._redis.flushdb()
    store.close()
    with contextlib.ExitStack() as stack:
        a = stack.enter_context(streamlit_app({ENV: redis_url}, log_name="two-servers-a.log"))
        b = stack.enter_context(streamlit_app({ENV: redis_url}, log_name="two-servers-b.log"))
        yield a, b


async def story(url_a: str, url_b: str, redis_url: str) -> float:
    """The whole story; returns the seconds the question stayed on B after the trainer's tab closed."""
    critic = i18n.role_labels("en").get("critic", "critic")
    ask = say("poll.question", role=critic)
    trainer = Session(url_a, timers=True)
    seats = [Session(url_b, timers=True), Session(url_b, timers=True)]
    room = Rooms(store_from(redis_url))  # the store as a third reader, to check what the pages say
    async with contextlib.AsyncExitStack() as stack:
        for seat in seats:
            await stack.enter_async_context(seat)
        await trainer.__aenter__()
        try:
            # A: the trainer opens a room on the Room page
            await trainer.open("room")
            await trainer.wait_for(lambda s: "room_open" in s.widgets, STEP_S)
            await trainer.click("room_open")
            await trainer.wait_for(lambda s: any(CODE.search(b) for b in s.texts), STEP_S)
            code = next(m.group(1) for b in trainer.texts if (m := CODE.search(b)))

            # B: two participants join by the link
            for seat in seats:
                await seat.open("room", query=f"room={code}")
            for seat in seats:
                await seat.wait_for(lambda s: s.showing("room_seat_head") and s.saw(say("room.no_run")), STEP_S)
                assert seat.saw(say("room.you_sit", code=f"`{code}`"))
            assert room.info(code).participants == 2

            # A: Reflection on primes, step mode, a breakpoint before the critic, Run
            await to_primes(trainer)
            await trainer.wait_for(lambda s: "pg_step" in s.widgets, STEP_S)  # drawn after Run and the task
            await trainer.toggle("pg_step", True)
            await trainer.settled(STEP_S)
            await trainer.wait_for(lambda s: "pg_step_breaks" in s.widgets, STEP_S)
            await trainer.choose("pg_step_breaks", say("step_view.role", role=critic), many=True)
            await trainer.settled(STEP_S)
            await trainer.click("pg_run")
            await trainer.wait_for(lambda s: all(map(s.showing, (TRAINER_PAUSE, *TRAINER_MOVES))), STEP_S)

            # B: the run and its pause on both seats: every step the trainer sees, and the pending call
            paused = say("room.paused_call", role=critic, call=2)
            assert {"call-1-prompt", "draft-0"} <= steps(trainer, "pg_view")
            for seat in seats:
                await seat.wait_for(lambda s: s.showing_nth(SEAT_PAUSE) and s.saw(paused), STEP_S)
                assert steps(trainer, "pg_view") <= steps(seat, "rv_view"), (steps(trainer, "pg_view"), seat.blocks)
                assert any(k.startswith("draft-") for k in steps(seat, "rv_view"))
            assert not any(s.showing_nth(SEAT_POLL) for s in seats), "no question before the trainer asks"

            # A asks the room; B sees the question at the top and votes
            await trainer.click("pg_poll_open")
            await trainer.wait_for(lambda s: s.saw(say("poll.open", n=0)), STEP_S)
            for seat in seats:
                await seat.wait_for(lambda s: s.showing_nth(SEAT_POLL) and poll_choice(s) is not None, STEP_S)
                assert seat.saw(f"### :material/how_to_vote: {ask}")
            first = poll_choice(seats[0])
            for seat, choice in zip(seats, ("REVISE", "PASS"), strict=True):
                await seat.choose(first, choice, many=True)
            for seat, choice in zip(seats, ("REVISE", "PASS"), strict=True):
                await seat.wait_for(lambda s, c=choice: s.saw(say("poll.voted", choice=c, role=critic)), STEP_S)

            # A's pause bar counts both votes (its tally looks at the room every second)
            await trainer.wait_for(lambda s: s.saw(say("poll.open", n=2)), STEP_S)
            assert room.poll(code).tally == {"REVISE": 1, "PASS": 1}

            # A goes on; B sees the critic's real verdict, and who predicted it
            went_on = trainer.runs_finished
            await trainer.click("pg_step_continue")
            revealed = say("poll.answer", role=critic, answer="REVISE", right=1, n=2)
            for seat in seats:
                await seat.wait_for(lambda s: s.showing_nth(SEAT_POLL) and s.saw(revealed), STEP_S)

            # the second pause before the critic: A asks again, B sees the new question
            again = say("room.paused_call", role=critic, call=4)
            for seat in seats:
                await seat.wait_for(lambda s: s.showing_nth(SEAT_PAUSE) and s.saw(again), STEP_S)
            # (the Playground's script draws the run live until it pauses: a page drawn since Continue is there)
            await trainer.wait_for(
                lambda s: s.runs_finished > went_on and all(map(s.showing, (TRAINER_PAUSE, *TRAINER_MOVES))), STEP_S
            )
            await trainer.click("pg_poll_open")
            for seat in seats:
                await seat.wait_for(lambda s: poll_choice(s) not in (None, first), STEP_S)
            assert room.poll(code).is_open

            # A's tab closes: the question is gone from B, and the run is over there
            await trainer.__aexit__()
            closed = time.monotonic()
            for seat in seats:
                await seat.wait_for(lambda s: not s.showing_nth(SEAT_POLL), GONE_WITHIN_S)
            gone = time.monotonic() - closed
            for seat in seats:
                # the end drawn, and the pause bar gone with it (the same look of the seat's, one message after)
                await seat.wait_for(lambda s: s.showing("rv_view-end-stop") and not s.showing_nth(SEAT_PAUSE), STEP_S)
            assert not room.poll(code).is_open
            return gone
        finally:
            if not trainer.closed:
                await trainer.__aexit__()
            room.store.close()


def test_a_trainer_on_one_server_and_participants_on_the_other(two_servers, redis_url):
    url_a, url_b = two_servers
    gone = asyncio.run(asyncio.wait_for(story(url_a, url_b, redis_url), timeout=120))
    assert gone < GONE_WITHIN_S, f"the question stayed on B {gone:.1f} s after the trainer's tab closed"
