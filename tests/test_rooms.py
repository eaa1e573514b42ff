"""The workshop room's rules (agent_core.rooms on a MemoryStore, time moved by a test clock): the primes
story as a trainer and two participants live it, every bound refused in both languages, and attacks."""

from __future__ import annotations

import json
import sys
import threading
import time

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import rooms as rooms_module
from agent_core.offline import OfflineModel
from agent_core.rooms import (
    ALPHABET,
    Bounds,
    MemoryStore,
    RoomError,
    Rooms,
    RoomStoreError,
    room,
    typed_events,
)
from agent_core.stepping import Breakpoints, RunHandle

ALICE, BOB, CAROL = "alice-session-0001", "bob-session-00002", "carol-session-003"


class Clock:
    """Time that moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make(clock: Clock, **bounds) -> Rooms:
    return Rooms(MemoryStore(clock), Bounds(**bounds), clock=clock)


def refused(why: str, call, *args, **kwargs) -> RoomError:
    with pytest.raises(RoomError) as caught:
        call(*args, **kwargs)
    assert caught.value.why == why, caught.value.message.en
    return caught.value


def bilingual(error: RoomError, *numbers: str) -> None:
    """The message reads in both languages, each naming the bound."""
    en, zh = error.message.en, error.message.zh
    assert en and zh and en != zh and any("\u4e00" <= ch <= "\u9fff" for ch in zh)
    for number in numbers:
        assert number in en and number in zh


def wait_paused(handle: RunHandle):
    deadline = time.monotonic() + 20
    while not (handle.paused or not handle.alive):
        assert time.monotonic() < deadline, "the run never paused"
        time.sleep(0.005)
    return handle.pending


def dicts(events: list[ev.Event]) -> list[dict]:
    return [e.to_dict() for e in events]


def pause_of(pending) -> dict:
    messages = [{"role": m.role, "content": m.content} for m in pending.messages]
    return {"at": pending.at, "role": pending.role, "call": pending.call, "messages": messages}


def opened(clock: Clock, **bounds) -> tuple[Rooms, str, str]:
    rooms = make(clock, **bounds)
    code, secret = rooms.open("Reflection · primes")
    return rooms, code, secret


def started(clock: Clock, run_id: str = "run-1", **bounds) -> tuple[Rooms, str, str]:
    rooms, code, secret = opened(clock, **bounds)
    rooms.start_run(code, secret, {"run_id": run_id, "task": "primes", "config": {}, "models": {}, "bound": "9"})
    return rooms, code, secret


# --- the story -------------------------------------------------------------------------------------


def test_primes_reflection_lived_by_a_trainer_and_two_participants(clock):
    rooms = make(clock)
    code, secret = rooms.open("Reflection · primes")
    assert len(code) == 6 and set(code) <= set(ALPHABET) and not set(code) & set("0O1IL")
    assert rooms.is_trainer(code, secret) and not rooms.is_trainer(code, secret[:-1] + "x")
    rooms.join(code, ALICE, "Alice")
    info = rooms.info(code)
    assert (info.title, info.participants, info.trainer_here) == ("Reflection · primes", 1, True)

    config, task = ac.for_scenario("primes", "en")
    run = {"run_id": "primes-1", "task": task, "config": config.to_dict(), "models": {"*": "offline"}, "bound": "9"}
    rooms.start_run(code, secret, run)
    assert rooms.run(code) == {**json.loads(json.dumps(run)), "ended": False}
    handle = RunHandle.for_run(task, config, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"critic"})))
    pending = wait_paused(handle.start())
    assert (pending.at, pending.role, pending.call) == ("call", "critic", 2)
    before = handle.drain()
    assert rooms.publish(code, secret, "primes-1", dicts(before)) == len(before)
    rooms.set_pause(code, secret, "primes-1", pause_of(pending))

    # Alice, in the room from the start, sees the run so far and the critic's pending prompt
    assert dicts(typed_events(rooms.events(code, "primes-1"))) == dicts(before)
    draft = next(e for e in before if isinstance(e, ev.Draft))
    assert draft.text in rooms.pause(code)["messages"][-1]["content"]

    poll = rooms.open_poll(code, secret, "primes-1", 2, "critic", ["PASS", "REVISE"])
    assert (poll.run_id, poll.call, poll.role, poll.choices, poll.is_open) == (
        "primes-1",
        2,
        "critic",
        ("PASS", "REVISE"),
        True,
    )

    # Bob joins late and catches up at once: every event so far, the pause, the open poll
    rooms.join(code, BOB, "Bob")
    assert dicts(typed_events(rooms.events(code, "primes-1"))) == dicts(before)
    assert rooms.pause(code)["call"] == 2 and rooms.poll(code).id == poll.id and rooms.poll(code).is_open
    assert rooms.events(code, "primes-1", start=len(before)) == []

    rooms.vote(code, ALICE, poll.id, "PASS")
    rooms.vote(code, ALICE, poll.id, "REVISE")  # she changes her mind: the last choice counts
    rooms.vote(code, BOB, poll.id, "REVISE")
    state = rooms.poll(code)
    assert state.tally == {"REVISE": 2} and state.voters == 2 and rooms.voted(code, ALICE, poll.id) == "REVISE"
    refused("not_joined", rooms.vote, code, CAROL, poll.id, "PASS")
    refused("bad_choice", rooms.vote, code, BOB, poll.id, "MAYBE")
    # the trainer's secret is no participant: not as a voter, not as a member
    refused("not_joined", rooms.vote, code, secret, poll.id, "PASS")
    refused("not_trainer", rooms.join, code, secret, "trainer?")

    # the trainer resumes: voting ends, the run goes on to the next critic call
    handle.resume()
    rooms.close_poll(code, secret, poll.id)
    rooms.set_pause(code, secret, "primes-1", None)
    refused("closed", rooms.vote, code, BOB, poll.id, "PASS")
    assert rooms.pause(code) is None
    pending = wait_paused(handle)
    assert (pending.role, pending.call) == ("critic", 4)
    middle = handle.drain()
    rooms.publish(code, secret, "primes-1", dicts(middle))
    verdict = next(e for e in middle if isinstance(e, ev.VerdictEvent))
    rooms.reveal(code, secret, poll.id, verdict.verdict)
    state = rooms.poll(code)
    assert (state.answer, state.is_open, state.tally["REVISE"]) == ("REVISE", False, 2)

    # a second question at call 4; the trainer stops the run: it ends, and its poll closes unanswered
    second = rooms.open_poll(code, secret, "primes-1", 4, "critic", ["PASS", "REVISE"])
    rooms.vote(code, ALICE, second.id, "PASS")
    handle.stop()
    assert handle.join(20)
    rest = handle.drain()
    rooms.publish(code, secret, "primes-1", dicts(rest))
    rooms.end_run(code, secret, "primes-1")
    state = rooms.poll(code)
    assert state.id == second.id and state.closed and not state.is_open and state.answer is None
    assert state.tally == {"PASS": 1}
    assert rooms.run(code)["ended"] and rooms.pause(code) is None
    refused("closed", rooms.vote, code, BOB, second.id, "REVISE")
    everything = before + middle + rest
    assert dicts(typed_events(rooms.events(code, "primes-1"))) == dicts(everything)
    assert everything[-1].kind == "run_finished"
    # once ended, more events of that run are ignored, as is a poll on it
    assert rooms.publish(code, secret, "primes-1", dicts(rest)) == 0
    refused("invalid", rooms.open_poll, code, secret, "primes-1", 6, "critic", ["PASS", "REVISE"])

    # submissions: a participant's variant, for the trainer's eyes
    sent = rooms.submit(code, BOB, "Bob", {"config": {"pattern": "reflection"}, "task": task, "note": "lenient"})
    (listed,) = rooms.submissions(code, secret)
    assert listed == sent and listed.payload["note"] == "lenient" and listed.name == "Bob"


def test_a_new_run_starts_empty_drops_the_old_one_and_closes_its_poll(clock):
    rooms, code, secret = started(clock, "run-1")
    rooms.join(code, ALICE)
    rooms.publish(code, secret, "run-1", [ev.RunStarted().to_dict()])
    poll = rooms.open_poll(code, secret, "run-1", 2, "critic", ["PASS", "REVISE"])
    rooms.set_pause(code, secret, "run-1", {"at": "call", "role": "critic", "call": 2, "messages": []})
    rooms.start_run(code, secret, {"run_id": "run-2", "task": "t"})
    assert rooms.run(code)["run_id"] == "run-2" and rooms.pause(code) is None
    assert rooms.events(code, "run-1") == [] and rooms.events(code, "run-2") == []
    assert rooms.poll(code).closed and not rooms.poll(code).is_open
    refused("closed", rooms.vote, code, ALICE, poll.id, "PASS")
    # the old run's stragglers are ignored (a trainer's page still draining it)
    assert rooms.publish(code, secret, "run-1", [ev.RunStarted().to_dict()]) == 0
    rooms.set_pause(code, secret, "run-1", {"at": "call", "role": "critic", "call": 4, "messages": []})
    assert rooms.pause(code) is None
    rooms.end_run(code, secret, "run-1")
    assert not rooms.run(code)["ended"]


def test_a_poll_is_open_only_while_the_trainer_is_here(clock):
    rooms, code, secret = started(clock, presence_s=15)
    rooms.join(code, ALICE)
    poll = rooms.open_poll(code, secret, "run-1", 2, "critic", ["PASS", "REVISE"])
    clock.advance(14)
    assert rooms.poll(code).is_open and rooms.info(code).trainer_here
    clock.advance(2)  # the trainer's tab closed: no heartbeat for 16 s
    assert not rooms.poll(code).is_open and not rooms.info(code).trainer_here
    refused("closed", rooms.vote, code, ALICE, poll.id, "PASS")
    rooms.heartbeat(code, secret)
    assert rooms.poll(code).is_open
    rooms.vote(code, ALICE, poll.id, "PASS")


def test_a_room_expires_ttl_after_the_trainers_last_heartbeat(clock):
    rooms, code, secret = opened(clock, ttl_s=100)
    rooms.join(code, ALICE)
    clock.advance(90)
    rooms.heartbeat(code, secret)
    assert rooms.info(code).expires == clock.now + 100
    clock.advance(90)  # 180 s after opening, 90 after the heartbeat
    assert rooms.info(code) is not None and rooms.store.count(code, "members") == 1
    clock.advance(11)
    assert rooms.info(code) is None and rooms.run(code) is None and rooms.poll(code) is None
    assert rooms.store.count_rooms() == 0 and not rooms.is_trainer(code, secret)
    bilingual(refused("no_room", rooms.join, code, BOB))
    refused("no_room", rooms.heartbeat, code, secret)


def test_close_deletes_the_room(clock):
    rooms, code, secret = started(clock)
    rooms.close(code, secret)
    assert rooms.info(code) is None and rooms.store.count_rooms() == 0


# --- bounds ----------------------------------------------------------------------------------------


def test_rooms_per_server(clock):
    rooms = make(clock, rooms=2, ttl_s=60)
    rooms.open()
    code, secret = rooms.open()
    bilingual(refused("too_many_rooms", rooms.open), "2")
    rooms.close(code, secret)
    rooms.open()
    clock.advance(61)  # expired rooms do not count
    rooms.open()
    rooms.open()


def test_participants_per_room(clock):
    rooms, code, _ = opened(clock, participants=2)
    rooms.join(code, ALICE)
    rooms.join(code, BOB)
    rooms.join(code, BOB, "Bob again")  # a rename is no new member
    bilingual(refused("full", rooms.join, code, CAROL), "2")
    assert rooms.info(code).participants == 2


def test_a_seat_waiting_on_the_room_wakes_for_the_run_and_its_poll_not_for_each_vote(clock):
    """A seat's page waits on the room's bell between looks: every write that changes what a seat shows
    wakes it at once; a vote, which moves only tallies, wakes none of the forty."""
    rooms, code, secret = started(clock)
    rooms.join(code, ALICE, "Alice")
    bell = rooms.bell

    def wakes(write) -> bool:
        mark, woke = bell.mark(code), []
        waiter = threading.Thread(target=lambda: woke.append(bell.wait(code, mark, 2.0)))
        waiter.start()
        write()
        waiter.join(3.0)
        return woke == [True]

    event = {"kind": "llm_call", "t": 0.1, "role": "generator", "call": 1}
    assert wakes(lambda: rooms.publish(code, secret, "run-1", [event]))
    assert wakes(lambda: rooms.set_pause(code, secret, "run-1", {"at": "call", "role": "critic", "call": 2}))
    poll = []
    assert wakes(lambda: poll.append(rooms.open_poll(code, secret, "run-1", 2, "critic", ["PASS", "REVISE"])))
    mark = bell.mark(code)
    rooms.vote(code, ALICE, poll[0].id, "REVISE")
    assert bell.mark(code) == mark and not bell.wait(code, mark, 0.05)
    assert rooms.poll(code).tally["REVISE"] == 1  # counted all the same
    assert wakes(lambda: rooms.set_pause(code, secret, "run-1", None))


def test_polls_per_room(clock):
    rooms, code, secret = started(clock, polls=2)
    first = rooms.open_poll(code, secret, "run-1", 2, "critic", ["PASS", "REVISE"])
    second = rooms.open_poll(code, secret, "run-1", 4, "critic", ["PASS", "REVISE"])
    store_poll = rooms.store.get(code, "polls", first.id)
    assert json.loads(store_poll)["closed"], "one poll open at a time: the first closed when the second opened"
    bilingual(refused("full", rooms.open_poll, code, secret, "run-1", 6, "critic", ["PASS", "REVISE"]), "2")
    rooms.reveal(code, secret, second.id, "PASS")  # an existing poll may still change


def test_events_per_run_and_bytes_per_run(clock):
    rooms, code, secret = started(clock, events_per_run=3)
    token = ev.Token(text="x").to_dict()
    assert rooms.publish(code, secret, "run-1", [token, token]) == 2
    bilingual(refused("full", rooms.publish, code, secret, "run-1", [token, token]), "3")
    assert len(rooms.events(code, "run-1")) == 3

    rooms, code, secret = started(clock, run_bytes=1000)
    big = ev.Token(text="y" * 400).to_dict()
    rooms.publish(code, secret, "run-1", [big, big])
    bilingual(refused("full", rooms.publish, code, secret, "run-1", [big]), "1,000")
    assert len(rooms.events(code, "run-1")) == 2
    refused("full", rooms.start_run, code, secret, {"run_id": "run-2", "task": "z" * 2000})


def test_submissions_bounded_in_size_and_count(clock):
    rooms, code, secret = opened(clock, submissions=3, submissions_each=2, submission_bytes=500)
    for who in (ALICE, BOB, CAROL):
        rooms.join(code, who, who[:5])
    rooms.submit(code, ALICE, "", {"task": "a"})
    rooms.submit(code, ALICE, "", {"task": "b"})
    bilingual(refused("full", rooms.submit, code, ALICE, "", {"task": "c"}), "2")
    rooms.submit(code, BOB, "", {"task": "d"})
    bilingual(refused("full", rooms.submit, code, CAROL, "", {"task": "e"}), "3")
    rooms, code, secret = opened(clock, submission_bytes=500)
    rooms.join(code, ALICE)
    rooms.submit(code, ALICE, "", {"note": "é" * 200})  # 400 bytes of UTF-8 and the keys: within 500
    error = refused("too_large", rooms.submit, code, ALICE, "", {"note": "é" * 250})
    bilingual(error, "500")
    assert "53" in error.message.en  # its size, in bytes as json.dumps writes them: 2×250 + the keys
    names = {s.name for s in rooms.submissions(code, secret)}
    assert names == {""}


# --- attacks ---------------------------------------------------------------------------------------


def test_guessing_the_trainers_secret_fails(clock):
    rooms, code, secret = started(clock)
    rooms.join(code, ALICE)
    stored = rooms.store.meta(code)
    assert not any(secret in value for value in stored.values()), "only the secret's sha256 is kept"
    guesses = [room.secrets.token_urlsafe(24) for _ in range(200)]
    guesses += [
        "",
        " ",
        code,
        ALICE,
        secret[:-1],
        secret + "x",
        secret.upper(),
        stored["secret"],
        None,
        42,
        "x" * 10_000,
    ]
    for guess in guesses:
        assert not rooms.is_trainer(code, guess)
        refused("not_trainer", rooms.heartbeat, code, guess)
    # the right secret for another room is not this room's
    other_code, other_secret = rooms.open()
    assert not rooms.is_trainer(code, other_secret) and rooms.is_trainer(other_code, other_secret)


def test_a_participant_with_the_code_only_cannot_act_as_the_trainer(clock):
    rooms, code, secret = started(clock)
    rooms.join(code, ALICE)
    poll = rooms.open_poll(code, secret, "run-1", 2, "critic", ["PASS", "REVISE"])
    calls = [
        (rooms.heartbeat,),
        (rooms.close,),
        (rooms.members,),
        (rooms.submissions,),
        (rooms.start_run, {"run_id": "mine"}),
        (rooms.publish, "run-1", [ev.RunStarted().to_dict()]),
        (rooms.set_pause, "run-1", None),
        (rooms.end_run, "run-1"),
        (rooms.open_poll, "run-1", 2, "critic", ["A", "B"]),
        (rooms.close_poll, poll.id),
        (rooms.reveal, poll.id, "PASS"),
    ]
    for as_who in ("", ALICE, code, code.lower()):  # nothing, a replayed participant id, the code itself
        for method, *args in calls:
            refused("not_trainer", method, code, as_who, *args)
    assert rooms.run(code)["run_id"] == "run-1" and rooms.poll(code).is_open and rooms.info(code)


def test_a_forged_poll_id_and_a_choice_not_offered(clock):
    rooms, code, secret = started(clock)
    rooms.join(code, ALICE)
    poll = rooms.open_poll(code, secret, "run-1", 2, "critic", ["PASS", "REVISE"])
    for forged in ("p" + "0" * 16, poll.id + "x", "", None, "../" + poll.id, {"id": poll.id}):
        refused("closed", rooms.vote, code, ALICE, forged, "PASS")
    refused("closed", rooms.close_poll, code, secret, "p" + "f" * 16)
    for choice in ("pass", "PASS ", "MAYBE", "", None, ["PASS"], 1):
        refused("bad_choice", rooms.vote, code, ALICE, poll.id, choice)
    assert rooms.poll(code).voters == 0


@pytest.mark.parametrize(
    "payload",
    [
        "not an object",
        ["config"],
        {"config": "not an object"},
        {"task": 5},
        {"note": b"bytes"},
        {"config": {"x": float("nan")}},
        {"config": {"x": {1, 2}}},
        {"config": {"x": object()}},
        {"config": {}, "evil": "extra field"},
        {5: "non-text key"},
        {"config": json.loads('{"a":' * 40 + "1" + "}" * 40)},  # nested past untrusted.MAX_JSON_DEPTH
    ],
)
def test_a_payload_that_is_not_a_submission_is_refused(clock, payload):
    rooms, code, secret = opened(clock)
    rooms.join(code, ALICE)
    bilingual(refused("invalid", rooms.submit, code, ALICE, "Alice", payload))
    assert rooms.submissions(code, secret) == []


def test_names_keep_their_text_but_lose_control_characters_and_length(clock):
    rooms, code, secret = opened(clock, name_chars=40)
    rooms.join(code, ALICE, "  Ali\x00ce\u202e\u200b\x1b[31m\r\n  **bold** <img src=x onerror=alert(1)>" + "z" * 100)
    (name,) = rooms.members(code, secret)
    assert name == "Alice[31m **bold** <img src=x onerror=al"
    assert len(name) == 40 and not any(ord(ch) < 32 or ch in "\u202e\u200b" for ch in name)
    # Markdown and HTML stay as the text they are: a page escapes them where it draws a name
    from pages.ui.text import escape

    assert "\\<img" in escape(name) and "\\*\\*bold" in escape(name)
    rooms.join(code, BOB, 12345)  # a name that is not text is no name
    assert "" in rooms.members(code, secret)
    submission = rooms.submit(code, BOB, "\x07" * 50, {"note": "<script>alert(1)</script>"})
    assert submission.name == "" and submission.payload["note"] == "<script>alert(1)</script>"


def test_a_code_typed_with_spaces_or_lowercase_or_pasted_as_a_link(clock):
    rooms, code, secret = opened(clock)
    typed = f"  {code[:3].lower()} - {code[3:].lower()} "
    assert rooms.normalise(typed) == code
    assert rooms.normalise(f"https://workshop.example/?room={code.lower()}&lang=zh") == code
    rooms.join(typed, ALICE)
    assert rooms.info(typed).participants == 1 and rooms.is_trainer(typed, secret)
    for bad in (
        "",
        "ABC",
        "ABCDEFG",
        "ABCDE0",
        "ABCDEO",
        "ABCDE1",
        "ABCDEI",
        "ABCDEL",
        "ABC\u00c9EF",
        None,
        123,
        "A" * 5000,
    ):
        assert rooms.normalise(bad) is None
        assert rooms.info(bad) is None
        refused("no_room", rooms.join, bad, ALICE)


def test_a_participant_id_is_what_a_session_makes(clock):
    rooms, code, _ = opened(clock)
    for bad in ("", "short", "x" * 65, "has space in it", "semi;colon;id", None, 7):
        bilingual(refused("invalid", rooms.join, code, bad))
    assert rooms.info(code).participants == 0


def test_a_new_code_is_drawn_again_on_a_collision(clock, monkeypatch):
    rooms, taken, _ = opened(clock)
    drawn = iter(list(taken) + list("ABCDEF"))
    monkeypatch.setattr(room.secrets, "choice", lambda seq: next(drawn))
    code, _ = rooms.open()
    assert code == "ABCDEF" and rooms.store.count_rooms() == 2


def test_malformed_events_in_the_store_are_skipped_and_counted(clock):
    rooms, code, secret = started(clock)
    rooms.publish(code, secret, "run-1", [ev.RunStarted().to_dict()])
    for junk in ("not json", "[1, 2]", json.dumps({"kind": "no_such_kind"}), json.dumps({"kind": "token", "text": 5})):
        rooms.store.push(code, "run:run-1", junk, 100)
    rooms.publish(code, secret, "run-1", [ev.Token(text="ok").to_dict()])
    found = rooms.events(code, "run-1")
    assert len(found) == 6, "one dict per stored item: a reader's next start is its count so far"
    events = typed_events(found)
    assert [e.kind for e in events] == ["run_started", "token"] and events.skipped == 4
    assert typed_events(rooms.events(code, "run-1", start=5)) == events[1:]
    assert rooms.events(code, "../etc") == [] and rooms.events(code, "run-1", start=6) == []


def test_memory_caps_hold_when_threads_push_at_once(clock):
    store = MemoryStore(clock)
    assert store.create("ABCDEF", {"k": "v"}, 60)
    indexes: list[int | None] = []
    puts: list[bool] = []

    def work(n):
        for i in range(50):
            indexes.append(store.push("ABCDEF", "s", f"{n}-{i}", 100))
            puts.append(store.put("ABCDEF", "t", f"{n}-{i}", "x", 30))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(i for i in indexes if i is not None) == list(range(100))
    assert sum(puts) == 30 and store.count("ABCDEF", "t") == 30 and len(store.read("ABCDEF", "s")) == 100


def test_the_servers_rooms_come_from_the_environment(monkeypatch):
    rooms_module.forget_rooms()
    monkeypatch.delenv(rooms_module.ENV, raising=False)
    try:
        made: list[Rooms] = []
        threads = [threading.Thread(target=lambda: made.append(rooms_module.rooms())) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert isinstance(made[0].store, MemoryStore) and all(r is made[0] for r in made), "one per process"
        rooms_module.forget_rooms()
        monkeypatch.setenv(rooms_module.ENV, "http://localhost:6379")
        with pytest.raises(RoomStoreError) as caught:
            rooms_module.rooms()
        assert "redis://" in caught.value.message.en and "redis://" in caught.value.message.zh
        monkeypatch.setenv(rooms_module.ENV, "redis://localhost:1/0")
        monkeypatch.setitem(sys.modules, "redis", None)  # the optional extra not installed
        with pytest.raises(RoomStoreError) as caught:
            rooms_module.rooms()
        assert (
            "requirements-redis.txt" in caught.value.message.en and "requirements-redis.txt" in caught.value.message.zh
        )
    finally:
        rooms_module.forget_rooms()
