"""The values a room hands out: its bounds, a poll's state, a submission, what anyone may know of a room."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Bounds:
    """What one room, and one server, may hold. Every bound is checked where the write happens."""

    #: rooms one server (or one shared store) holds at once
    rooms: int = 20
    #: participants who may join one room (and so vote in one poll)
    participants: int = 60
    #: submissions one room keeps
    submissions: int = 100
    #: of which one participant may send
    submissions_each: int = 10
    #: the size of one submission's payload, as json.dumps writes it (UTF-8 bytes)
    submission_bytes: int = 32_000
    #: a participant's name, cut to this many characters
    name_chars: int = 40
    #: polls one room may open
    polls: int = 50
    #: events one run keeps on the room's screen
    events_per_run: int = 20_000
    #: bytes of events one run keeps (a run of huge prompts fills this before the count)
    run_bytes: int = 16_000_000
    #: a room expires this long after the trainer's last heartbeat
    ttl_s: float = 8 * 3600.0
    #: the trainer counts as here (and a poll as open) this long after their last heartbeat
    presence_s: float = 15.0


@dataclass(frozen=True)
class PollState:
    """A poll as the room sees it: tied to one run and one call of it."""

    id: str
    run_id: str
    call: int
    role: str
    choices: tuple[str, ...]
    #: votes per choice (the last choice of each voter)
    tally: Counter[str] = field(default_factory=Counter)
    voters: int = 0
    #: False once closed, once its run is no longer the room's current run or has ended, or while the
    #: trainer has been absent past presence_s
    is_open: bool = False
    #: the real verdict, once revealed
    answer: str | None = None
    #: closed by the trainer or by its run's end (is_open may also be False only for the trainer's absence)
    closed: bool = False


@dataclass(frozen=True)
class Submission:
    """A participant's prompt variant (or fork) sent to the room; every text in it is untrusted."""

    id: str
    participant: str
    name: str
    payload: dict[str, Any]
    at: float


@dataclass(frozen=True)
class RoomInfo:
    """What anyone holding the code may know of a room (never its secret)."""

    code: str
    title: str
    created: float
    expires: float
    participants: int
    trainer_here: bool
