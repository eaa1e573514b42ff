"""A workshop room: the trainer's run on every seat, polls that belong to it, participants' submissions.

`rooms()` is the server's Rooms: on a RedisStore when AGENT_PLAYGROUND_ROOM_STORE=redis://host:port/db
(several app servers behind one address share their rooms), else on one MemoryStore for the process.
UI-free: pages call these and draw what they return.
"""

from __future__ import annotations

import os
import threading

from ..text import Text
from .errors import RoomError
from .inputs import ALPHABET, CODE_LENGTH
from .memory import MemoryStore
from .room import EventList, Rooms, typed_events
from .store import RoomStore, RoomStoreError
from .values import Bounds, PollState, RoomInfo, Submission

__all__ = [
    "ALPHABET",
    "CODE_LENGTH",
    "ENV",
    "forget_rooms",
    "Bounds",
    "EventList",
    "MemoryStore",
    "PollState",
    "RoomError",
    "RoomInfo",
    "RoomStore",
    "RoomStoreError",
    "Rooms",
    "Submission",
    "rooms",
    "store_from",
    "typed_events",
]

#: the environment variable that selects the shared store
ENV = "AGENT_PLAYGROUND_ROOM_STORE"
_SCHEMES = ("redis://", "rediss://", "unix://")


def store_from(address: str | None) -> RoomStore:
    """The store an address names: a RedisStore for a Redis URL, a MemoryStore for none."""
    address = (address or "").strip()
    if not address:
        return MemoryStore()
    if not address.startswith(_SCHEMES):
        raise RoomStoreError(
            Text(
                f"{ENV} must be a Redis URL (redis://host:port/db, rediss://… or unix://…), or unset for "
                "rooms in this server's memory.",
                f"{ENV} 须为 Redis URL（redis://host:port/db、rediss://… 或 unix://…），或不设置以把房间存于本服务器内存。",
            )
        )
    from .redis_store import RedisStore  # redis-py only when asked for

    return RedisStore(address)


_LOCK = threading.Lock()
_made: list[Rooms] = []


def rooms() -> Rooms:
    """The server's rooms, made once per process (a failure is not kept: the next call tries again).
    Under a lock: the first visitors' sessions arrive on several threads at once, and two MemoryStores
    would split one server's rooms in two."""
    with _LOCK:
        if not _made:
            _made.append(Rooms(store_from(os.environ.get(ENV))))
        return _made[0]


def forget_rooms() -> None:
    """The next rooms() reads the environment again (tests; a server never needs it)."""
    with _LOCK:
        _made.clear()
