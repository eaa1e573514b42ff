"""A workshop room in the pages: the trainer opens it, participants join by link or by typing its code,
the trainer steps Reflection on primes to the critic and asks the room, and every seat sees the run,
the pause and the question at the top, votes, and sees the critic's real verdict.

Several AppTest sessions in one process share the process-wide MemoryStore that `rooms()` is, as the
sessions of one server do.
"""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from agent_core import events as ev
from agent_core.rooms import rooms
from tests.app_pages import APP, keyed
from tests.step_mode import P, record, run_in_steps, settle
from tests.waits import fresh_rooms, wait_for  # noqa: F401 - fresh_rooms: a fixture

ROOM = "pages/room.py"
SAID = {
    "en": {
        "trainer": "You are the trainer of room",
        "seat": "You are in room",
        "question": "What will the critic say?",
        "paused": "The trainer paused the run: the **critic** is about to be called (call 2).",
        "voted": "Your vote: **PASS**. Waiting for the critic…",
        "answer": "The critic said **REVISE** · 0 of 1 predicted it",
        "ask": "Ask the room: what will the critic say?",
        "no_room": "This room does not exist or has expired.",
        "bad_code": "That is not a room code",
    },
    "zh": {
        "trainer": "你是房间",
        "seat": "你在房间",
        "question": "评审员会给出什么结论？",
        "paused": "讲师暂停了运行：**评审员** 即将被调用（第 2 次调用）。",
        "voted": "你的选择：**PASS**。等待评审员的结论…",
        "answer": "评审员的结论是 **REVISE** · 1 人中有 0 人猜对",
        "ask": "问问大家：评审员会怎么说？",
        "no_room": "该房间不存在或已过期。",
        "bad_code": "这不是房间码",
    },
}


pytestmark = pytest.mark.usefixtures("fresh_rooms")


def page(lang: str, page_: str = ROOM, **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["sb_offline_speed"] = "instant"
    at.session_state["sb_lang"] = lang
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page_).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def trainer_opens(lang: str) -> tuple[AppTest, str]:
    trainer = page(lang)
    trainer.button(key="room_open").click().run()
    assert any(SAID[lang]["trainer"] in m for m in texts(trainer)), texts(trainer)
    return trainer, trainer.session_state["room_code"]


def step_to_the_critic(trainer: AppTest) -> None:
    """Reflection on primes in step mode, breakpoint before the critic: the run waits at call 2."""
    trainer.switch_page("pages/playground.py").run()
    run_in_steps(trainer, "reflection", "role:critic", scenario="primes")
    settle(trainer)
    assert record(trainer).handle.pending.call == 2


def seat_sees(seat: AppTest, check) -> None:  # noqa: ANN001 - a () -> bool on the seat's page
    until = time.monotonic() + 10
    while True:
        seat.run()
        assert not seat.exception, [e.message for e in seat.exception]
        if check():
            return
        if time.monotonic() > until:
            raise AssertionError(texts(seat))
        time.sleep(0.05)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_room_story_open_join_watch_ask_vote_reveal(lang):
    w = SAID[lang]
    trainer, code = trainer_opens(lang)
    by_link = page(lang, room=code.lower())  # ?room= joins, whatever case the link has
    assert by_link.session_state["room_code"] == code and by_link.session_state["room_role"] == "participant"
    assert any(w["seat"] in m for m in texts(by_link))
    typed = page(lang)
    typed.text_input(key="room_typed").input(f" {code[:3].lower()}-{code[3:]} ").run()
    typed.button(key="room_join").click().run()
    assert typed.session_state["room_code"] == code
    assert rooms().info(code).participants == 2

    step_to_the_critic(trainer)
    run_id = record(trainer).run_id
    wait_for(lambda: (rooms().pause(code) or {}).get("call") == 2)
    # the seat sees the run so far and the pause, with the pending prompt one click away
    seat_sees(by_link, lambda: w["paused"] in "\n".join(texts(by_link)))
    seen = by_link.session_state["room_seen"]
    assert seen.run_id == run_id
    assert [e.kind for e in seen.events if e.kind != "token"] == [
        e.kind for e in record(trainer).typed_events() if e.kind != "token"
    ]
    assert keyed(by_link.main, "rv_pause") is not None

    # the trainer asks the room, in the pause bar
    trainer.button(key=f"{P}_poll_open").click().run()
    state = rooms().poll(code)
    assert state.run_id == run_id and state.call == 2 and state.is_open
    # the question comes first on the seat's page, with a toast, before the run view
    seat_sees(by_link, lambda: any(w["question"] in m for m in texts(by_link)))
    assert w["question"] in by_link.toast[0].value
    order = [m.value for m in by_link.main.markdown]
    assert order.index(next(m for m in order if w["question"] in m)) < order.index(
        next(m for m in order if w["paused"] in m)
    ), "the question is at the top, above the run"
    by_link.segmented_control(key=f"poll_choice_{state.id}").set_value("PASS").run()
    assert any(w["voted"] in m for m in texts(by_link)), texts(by_link)
    assert rooms().poll(code).tally == {"PASS": 1}
    trainer.run()
    assert [m.value for m in trainer.metric if m.label == "PASS"] == ["1"], "the trainer's tally shows the vote"

    # Continue: voting ends, and the critic's verdict answers the poll for every seat
    trainer.button(key=f"{P}_step_continue").click().run()
    settle(trainer)
    wait_for(lambda: rooms().poll(code).answer is not None)
    assert rooms().poll(code).answer == "REVISE" and not rooms().poll(code).is_open
    seat_sees(typed, lambda: any(w["answer"] in m for m in texts(typed)))
    # a seat that joins now sees everything so far at once, and the pause the run waits at again
    wait_for(lambda: (rooms().pause(code) or {}).get("call") == 4)
    late = page(lang, room=code)
    seat_sees(late, lambda: keyed(late.main, "rv_pause") is not None)
    assert [e.kind for e in late.session_state["room_seen"].events if e.kind != "token"] == [
        e.kind for e in record(trainer).typed_events() if e.kind != "token"
    ]

    # Stop: the run ends on every seat, and no poll is shown open
    trainer.button(key=f"{P}_step_stop").click().run()
    wait_for(lambda: rooms().run(code)["ended"])
    seat_sees(by_link, lambda: by_link.session_state["room_seen"].over)
    assert isinstance(by_link.session_state["room_seen"].events[-1], ev.RunFinished)
    assert not any(w["question"] in m for m in texts(by_link))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_wrong_or_stale_code_is_refused_with_its_message(lang):
    w = SAID[lang]
    at = page(lang, room="ZZZZZZ")
    assert "room_code" not in at.session_state
    assert any(w["no_room"] in e.value for e in at.error), [e.value for e in at.error]
    at.text_input(key="room_typed").input("not a code!").run()
    at.button(key="room_join").click().run()
    assert any(w["bad_code"] in e.value for e in at.error)
    trainer, code = trainer_opens(lang)
    trainer.button(key="room_close").click().run()
    at.text_input(key="room_typed").input(code).run()
    at.button(key="room_join").click().run()
    assert "room_code" not in at.session_state and any(w["no_room"] in e.value for e in at.error)


def test_a_seat_has_no_control_that_steers_the_run():
    trainer, code = trainer_opens("en")
    seat = page("en", room=code)
    step_to_the_critic(trainer)
    wait_for(lambda: rooms().pause(code) is not None)
    trainer.button(key=f"{P}_poll_open").click().run()
    seat_sees(seat, lambda: keyed(seat.main, "rv_pause") is not None)
    steering = [b.key for b in seat.main.button] + [b.key for b in seat.sidebar.button]
    assert not [k for k in steering if k and (k.startswith(f"{P}_") or "step" in k or "stop" in k)], steering
    assert "pg_runs" not in seat.session_state or not seat.session_state["pg_runs"]
    assert {c.key for c in seat.main.get("button_group")} == {f"poll_choice_{rooms().poll(code).id}"}
    trainer.button(key=f"{P}_step_stop").click().run()


def test_outside_a_room_there_is_no_ask_the_room():
    from tests.step_mode import stepped_primes

    at = stepped_primes("role:critic")
    assert record(at).handle.paused
    assert not [b for b in at.button if b.key == f"{P}_poll_open"]
    assert not [m for m in texts(at) if "Ask the room" in m]
    at.button(key=f"{P}_step_stop").click().run()


def test_a_store_that_fails_never_breaks_the_trainers_run_and_is_said_once(monkeypatch):
    trainer, code = trainer_opens("en")
    calls = []

    def broken(*args, **kwargs):  # the shared store gone away mid-run
        calls.append(args)
        raise ConnectionError("the store is away")

    monkeypatch.setattr(rooms(), "publish", broken)
    trainer.switch_page("pages/playground.py").run()
    trainer.selectbox(key=f"{P}_variant").select("reflection").run()
    trainer.selectbox(key=f"{P}_scenario").select("primes").run()
    trainer.button(key=f"{P}_run").click().run()
    settle(trainer)
    assert record(trainer).status == "finished" and record(trainer).events[-1].reason == "pass"
    wait_for(lambda: rooms().run(code)["ended"])  # the end still reached the room
    assert calls, "the run was published (and the store refused it)"
    said = [c.value for c in trainer.sidebar.caption if "reached the room" in c.value]
    assert said == [
        ":material/warning: Not every step of this run reached the room (ConnectionError); the run goes on."
    ]
