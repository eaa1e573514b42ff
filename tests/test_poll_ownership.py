"""Nobody opens, closes, reveals or votes twice in another's poll; a poll closes with its run.

A poll belongs to a room and one run of it (agent_core.rooms). Several AppTest sessions share the
process-wide rooms, as the sessions of one server do: a trainer with a paused run, participants with
paused runs of their own, a trainer of another room, a session that joined nothing.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agent_core.rooms import MemoryStore, RoomError, Rooms, rooms
from pages.ui.room_cast import Cast
from tests.app_pages import connect, open_page
from tests.fake_openai_server import Fail, FakeOpenAIServer, Reply
from tests.step_mode import P, record, run_in_steps, settle
from tests.waits import fresh_rooms, wait_for  # noqa: F401 - fresh_rooms: a fixture

pytestmark = pytest.mark.usefixtures("fresh_rooms")


def in_a_room(at, code: str | None = None):  # noqa: ANN001, ANN201 - an AppTest
    """Open a room as its trainer (no code) or join `code` as a participant, from the Room page."""
    at.switch_page("pages/room.py").run()
    if code is None:
        at.button(key="room_open").click().run()
    else:
        at.text_input(key="room_typed").input(code).run()
        at.button(key="room_join").click().run()
    return at.session_state["room_code"]


def paused_primes(at, people: tuple[str, ...] = ()):  # noqa: ANN001, ANN201
    at.switch_page("pages/playground.py").run()
    run_in_steps(at, "reflection", "role:critic", scenario="primes", people=people)
    settle(at)
    return at


def trainer_with_poll():
    trainer = open_page("pages/home.py")
    code = in_a_room(trainer)
    paused_primes(trainer)
    trainer.button(key=f"{P}_poll_open").click().run()
    state = rooms().poll(code)
    assert state is not None and state.is_open and state.run_id == record(trainer).run_id and state.call == 2
    return trainer, code, state


def seat(code: str):  # noqa: ANN201
    at = open_page("pages/home.py")
    in_a_room(at, code)
    return at


# --- nobody opens, closes or reveals another's poll -------------------------------------------------


def test_a_participants_own_paused_run_has_no_ask_and_cannot_touch_the_trainers_poll():
    trainer, code, state = trainer_with_poll()
    participant = paused_primes(seat(code))  # a paused run of their own, in their own Playground
    assert not [b for b in participant.button if b.key == f"{P}_poll_open"], "only the room's trainer asks"
    participant.button(key=f"{P}_step_continue").click().run()  # their run goes on, to its verdict
    settle(participant)
    participant.button(key=f"{P}_step_stop").click().run()  # and ends
    after = rooms().poll(code)
    assert after.id == state.id and after.is_open and after.answer is None, "their run is not the room's"
    assert rooms().run(code)["run_id"] == record(trainer).run_id
    trainer.button(key=f"{P}_step_stop").click().run()


def test_nobody_without_the_trainers_secret_opens_closes_reveals_or_ends_anything():
    trainer, code, state = trainer_with_poll()
    other = open_page("pages/home.py")
    other_code = in_a_room(other)  # the trainer of another room
    other_secret = other.session_state["room_secret"]
    run_id = record(trainer).run_id
    for secret in (other_secret, "", "guess" * 8):
        for attempt in (
            lambda s: rooms().close_poll(code, s, state.id),
            lambda s: rooms().reveal(code, s, state.id, "PASS"),
            lambda s: rooms().open_poll(code, s, run_id, 4, "critic", ("PASS", "REVISE")),
            lambda s: rooms().end_run(code, s, run_id),
            lambda s: rooms().start_run(code, s, {"run_id": "forged-run", "task": "", "config": {}}),
        ):
            with pytest.raises(RoomError) as refused:
                attempt(secret)
            assert refused.value.why == "not_trainer"
    # a cast made with a guessed secret publishes nothing and closes nothing: it only notes why
    fake = SimpleNamespace(run_id="forged-run", task="", config={}, models={}, bound=1, fork=None, handle=None)
    forged = Cast(rooms(), code, "guess" * 8, fake).start()
    assert not forged.on and forged.problem is not None
    after = rooms().poll(code)
    assert after.id == state.id and after.is_open and rooms().run(code)["run_id"] == run_id
    assert rooms().poll(other_code) is None
    trainer.button(key=f"{P}_step_stop").click().run()


def test_nobody_votes_twice_outside_the_choices_or_without_joining():
    trainer, code, state = trainer_with_poll()
    voter = seat(code)
    me = voter.session_state["room_me"]
    with pytest.raises(RoomError) as refused:
        rooms().vote(code, "a" * 32, state.id, "PASS")  # never joined
    assert refused.value.why == "not_joined"
    rooms().vote(code, me, state.id, "PASS")
    rooms().vote(code, me, state.id, "REVISE")
    for bad in ("RETRY", ["PASS"]):
        with pytest.raises(RoomError) as refused:
            rooms().vote(code, me, state.id, bad)
        assert refused.value.why == "bad_choice"
    assert rooms().poll(code).tally == {"REVISE": 1}, "one vote per seat: the last choice counts"
    assert "room_me" not in trainer.session_state or not any(
        b.key == f"poll_choice_{state.id}" for b in trainer.get("button_group")
    ), "the trainer has no vote in their own poll"
    trainer.button(key=f"{P}_step_stop").click().run()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_room_whose_polls_are_used_up_refuses_a_new_one_and_says_so(lang):
    trainer, code, state = trainer_with_poll()
    secret, run_id = trainer.session_state["room_secret"], record(trainer).run_id
    used = 1
    while True:  # the room's bound, reached by the trainer's own asks (one open at a time)
        try:
            rooms().open_poll(code, secret, run_id, 100 + used, "critic", ("PASS", "REVISE"))
        except RoomError as exc:
            assert exc.why == "full"
            break
        used += 1
    assert used == rooms().bounds.polls
    trainer.session_state["sb_lang"] = lang
    trainer.run()
    trainer.button(key=f"{P}_poll_open").click().run()
    said = "This room is full: it holds at most 50 polls." if lang == "en" else "房间已满：最多容纳 50 个投票。"
    assert any(said in w.value for w in trainer.warning), [w.value for w in trainer.warning]
    trainer.button(key=f"{P}_step_stop").click().run()


# --- a poll closes with its run ---------------------------------------------------------------------


def test_a_poll_closes_when_its_run_is_stopped_and_no_seat_shows_it():
    trainer, code, state = trainer_with_poll()
    voter = seat(code)
    voter.run()
    assert any(b.key == f"poll_choice_{state.id}" for b in voter.get("button_group"))
    handle = record(trainer).handle
    trainer.button(key=f"{P}_step_stop").click().run()
    assert handle.join(5)
    wait_for(lambda: rooms().run(code)["ended"])
    after = rooms().poll(code)
    assert not after.is_open and after.answer is None
    voter.run()
    assert not any((b.key or "").startswith("poll_choice_") for b in voter.get("button_group"))
    with pytest.raises(RoomError):
        rooms().vote(code, voter.session_state["room_me"], state.id, "PASS")


def test_an_answered_poll_takes_no_more_votes():
    trainer, code, state = trainer_with_poll()
    voter = seat(code)
    voter.run()
    voter.segmented_control(key=f"poll_choice_{state.id}").set_value("PASS").run()
    trainer.button(key=f"{P}_step_continue").click().run()
    settle(trainer)  # the critic said REVISE; the run pauses before the next critique
    wait_for(lambda: rooms().poll(code).answer is not None)
    after = rooms().poll(code)
    assert after.answer == "REVISE" and not after.is_open and after.tally == {"PASS": 1}
    late = seat(code)
    with pytest.raises(RoomError):
        rooms().vote(code, late.session_state["room_me"], state.id, "REVISE")
    voter.run()
    assert any("The critic said **REVISE** · 0 of 1 predicted it" in m.value for m in voter.markdown)
    trainer.button(key=f"{P}_step_stop").click().run()


def test_a_poll_closes_when_its_run_is_left_idle(monkeypatch):
    monkeypatch.setenv("AGENT_PLAYGROUND_STEP_IDLE_S", "1")
    trainer, code, _state = trainer_with_poll()
    assert record(trainer).handle.join(10), "the paused run ended on its idle time"
    wait_for(lambda: rooms().run(code)["ended"])  # nobody clicked: the run's own thread said so
    assert not rooms().poll(code).is_open and rooms().pause(code) is None


def test_a_poll_closes_when_its_run_fails():
    with FakeOpenAIServer(Fail(500, "the model crashed")) as server:
        server.push(Reply("A first draft."))
        at = open_page("pages/home.py")
        code = in_a_room(at)
        at.switch_page("pages/playground.py").run()
        connect(at, server.url)
        at.selectbox(key=f"{P}_variant").select("reflection").run()
        at.toggle(key=f"{P}_step").set_value(True).run()
        at.multiselect(key=f"{P}_step_breaks").set_value(["role:critic"]).run()
        at.button(key=f"{P}_run").click().run()
        settle(at)
        at.button(key=f"{P}_poll_open").click().run()
        assert rooms().poll(code).is_open
        at.button(key=f"{P}_step_continue").click().run()
        assert record(at).handle.join(10)
    settle(at)
    assert record(at).events[-1].reason == "error"
    wait_for(lambda: rooms().run(code)["ended"])
    assert not rooms().poll(code).is_open and rooms().poll(code).answer is None


def test_a_poll_is_not_open_once_the_trainer_is_gone():
    clock = [1000.0]
    room = Rooms(MemoryStore(), clock=lambda: clock[0])
    code, secret = room.open()
    room.start_run(code, secret, {"run_id": "run-a", "task": "t", "config": {}, "models": {}, "bound": 3})
    room.heartbeat(code, secret)
    opened = room.open_poll(code, secret, "run-a", 2, "critic", ("PASS", "REVISE"))
    assert room.poll(code).is_open and opened.is_open
    clock[0] += room.bounds.presence_s + 1  # the trainer's tab closed: no heartbeat since
    assert not room.poll(code).is_open
