"""Rooms shared by two app servers through Redis: a real redis-server started here, two RedisStore
clients (two servers), the trainer on one and the participants on the other, living the primes story;
caps that hold when both push at once; every key of a room expiring with it."""

from __future__ import annotations

import json
import threading
import time

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.offline import OfflineModel
from agent_core.rooms import Bounds, RoomError, Rooms, RoomStoreError, store_from, typed_events
from tests.redis_server import MARKS, free_port, redis_server

# skipped (saying why) without redis-server or the extra; one worker starts one redis-server for the file
pytestmark = MARKS

ALICE, BOB = "alice-session-0001", "bob-session-00002"


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def servers(redis_url):
    """Two app servers' Rooms, each on its own client; the database emptied before each test."""
    first, second = store_from(redis_url), store_from(redis_url)
    first._redis.flushdb()
    yield Rooms(first), Rooms(second)
    first.close()
    second.close()


def test_a_trainer_on_one_server_and_participants_on_the_other(servers):
    trainer_side, seats = servers
    code, secret = trainer_side.open("Reflection · primes")
    seats.join(code.lower(), ALICE, "Alice")
    assert seats.info(code).participants == 1 and seats.info(code).trainer_here
    assert not seats.is_trainer(code, ALICE) and seats.is_trainer(code, secret)

    config, task = ac.for_scenario("primes", "en")
    events = list(ac.stream(task, config, OfflineModel()))
    first_critic = next(i for i, e in enumerate(events) if isinstance(e, ev.LlmCall) and e.role == "critic")
    trainer_side.start_run(code, secret, {"run_id": "primes-1", "task": task, "config": config.to_dict()})
    trainer_side.publish(code, secret, "primes-1", [e.to_dict() for e in events[:first_critic]])
    trainer_side.set_pause(code, secret, "primes-1", {"at": "call", "role": "critic", "call": 2, "messages": []})
    poll = trainer_side.open_poll(code, secret, "primes-1", 2, "critic", ["PASS", "REVISE"])

    seats.join(code, BOB, "Bob")  # late: catches up on the other server
    seen = typed_events(seats.events(code, "primes-1"))
    assert [e.to_dict() for e in seen] == [e.to_dict() for e in events[:first_critic]] and seen.skipped == 0
    assert seats.run(code)["run_id"] == "primes-1" and seats.pause(code)["role"] == "critic"
    assert seats.poll(code).id == poll.id and seats.poll(code).is_open
    seats.vote(code, ALICE, poll.id, "PASS")
    seats.vote(code, ALICE, poll.id, "REVISE")
    seats.vote(code, BOB, poll.id, "REVISE")
    with pytest.raises(RoomError) as caught:
        seats.vote(code, BOB, poll.id, "MAYBE")
    assert caught.value.why == "bad_choice"
    assert trainer_side.poll(code).tally == {"REVISE": 2}

    trainer_side.close_poll(code, secret, poll.id)
    trainer_side.set_pause(code, secret, "primes-1", None)
    trainer_side.publish(code, secret, "primes-1", [e.to_dict() for e in events[first_critic:]])
    verdict = next(e for e in events if isinstance(e, ev.VerdictEvent))
    trainer_side.reveal(code, secret, poll.id, verdict.verdict)
    trainer_side.end_run(code, secret, "primes-1")
    state = seats.poll(code)
    assert (state.answer, state.is_open, state.voters) == ("REVISE", False, 2)
    assert [e.to_dict() for e in typed_events(seats.events(code, "primes-1"))] == [e.to_dict() for e in events]
    assert seats.run(code)["ended"] and seats.pause(code) is None

    sent = seats.submit(code, BOB, "Bob", {"config": {"pattern": "reflection"}, "task": task, "note": "<b>mine</b>"})
    assert trainer_side.submissions(code, secret) == [sent]
    with pytest.raises(RoomError) as caught:
        seats.submissions(code, ALICE)
    assert caught.value.why == "not_trainer"


def test_caps_hold_when_two_servers_push_at_once(redis_url):
    bounds = Bounds(participants=25, submissions=30, submissions_each=100, rooms=3)
    first, second = Rooms(store_from(redis_url), bounds), Rooms(store_from(redis_url), bounds)
    first.store._redis.flushdb()
    code, _ = first.open()
    outcomes: list[str] = []

    def crowd(rooms: Rooms, side: str) -> None:
        for i in range(40):
            who = f"{side}-participant-{i:03d}"
            try:
                rooms.join(code, who)
                outcomes.append("joined")
                rooms.submit(code, who, who, {"task": "t"})
                outcomes.append("sent")
            except RoomError as exc:
                outcomes.append(exc.why)

    threads = [threading.Thread(target=crowd, args=(r, s)) for r, s in ((first, "a"), (second, "b"), (second, "c"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("joined") == 25 and first.info(code).participants == 25
    assert outcomes.count("sent") == 25 and len(first.store.read(code, "submissions")) == 25
    # rooms per store: the same check from both servers at once
    opened: list[str] = []
    refused: list[str] = []

    def open_rooms(rooms: Rooms) -> None:
        for _ in range(5):
            try:
                opened.append(rooms.open()[0])
            except RoomError as exc:
                refused.append(exc.why)

    threads = [threading.Thread(target=open_rooms, args=(r,)) for r in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(opened) == 2 and set(refused) == {"too_many_rooms"} and first.store.count_rooms() == 3


def test_every_key_of_a_room_expires_with_it(redis_url):
    bounds = Bounds(ttl_s=30)
    trainer_side, seats = Rooms(store_from(redis_url), bounds), Rooms(store_from(redis_url), bounds)
    trainer_side.store._redis.flushdb()
    code, secret = trainer_side.open()
    seats.join(code, ALICE)
    trainer_side.start_run(code, secret, {"run_id": "r"})
    trainer_side.publish(code, secret, "r", [ev.RunStarted().to_dict()])
    poll = trainer_side.open_poll(code, secret, "r", 2, "critic", ["PASS", "REVISE"])
    seats.vote(code, ALICE, poll.id, "PASS")
    seats.submit(code, ALICE, "", {"task": "t"})
    ttls = seats.store.ttl_ms(code)
    assert len(ttls) == 7, sorted(ttls)  # meta, its key set, members, the run, polls, votes, submissions
    assert all(0 < ttl <= 30_000 for ttl in ttls.values()), ttls
    keys = seats.store._redis.keys("*")
    assert {k for k in keys if code in k} == set(ttls) and not any(secret in json.dumps(k) for k in keys)

    # a heartbeat gives every key the full TTL again; a short TTL then ends them all at once
    time.sleep(0.05)
    trainer_side.store.touch(code, 1.0)
    assert all(0 < ttl <= 1000 for ttl in seats.store.ttl_ms(code).values())
    deadline = time.monotonic() + 5
    while seats.info(code) is not None:
        assert time.monotonic() < deadline, "the room did not expire"
        time.sleep(0.05)
    assert [k for k in seats.store._redis.keys("*") if code in k] == []
    assert seats.store.count_rooms() == 0
    with pytest.raises(RoomError) as caught:
        seats.join(code, BOB)
    assert caught.value.why == "no_room"


def test_an_unreachable_store_is_said_clearly():
    with pytest.raises(RoomStoreError) as caught:
        store_from(f"redis://127.0.0.1:{free_port()}/0")
    assert "Redis" in caught.value.message.en and "Redis" in caught.value.message.zh
