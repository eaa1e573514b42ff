"""`MemoryStore`: rooms in this process's memory (the default: one app server holds the room).

One lock guards every room, so each primitive is atomic for the threads of one server; expiry is read
from an injectable clock, so a test can move time instead of waiting for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass
class _Room:
    meta: dict[str, str]
    expires: float
    streams: dict[str, list[str]] = field(default_factory=dict)
    tables: dict[str, dict[str, str]] = field(default_factory=dict)


class MemoryStore:
    """A RoomStore in a dict, behind a lock; rooms expire by `clock` (seconds, time.time by default)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._rooms: dict[str, _Room] = {}

    def _live(self, code: str) -> _Room | None:
        """The room under `code` if it has not expired (an expired one is forgotten here); lock held."""
        room = self._rooms.get(code)
        if room is not None and room.expires <= self._clock():
            del self._rooms[code]
            return None
        return room

    def _purge(self) -> None:
        now = self._clock()
        for code in [c for c, r in self._rooms.items() if r.expires <= now]:
            del self._rooms[code]

    def create(self, code: str, meta: Mapping[str, str], ttl_s: float, *, max_rooms: int | None = None) -> bool:
        with self._lock:
            if self._live(code) is not None:
                return False
            if max_rooms is not None:
                self._purge()
                if len(self._rooms) >= max_rooms:
                    return False
            self._rooms[code] = _Room(dict(meta), self._clock() + ttl_s)
            return True

    def meta(self, code: str) -> dict[str, str] | None:
        with self._lock:
            room = self._live(code)
            return dict(room.meta) if room is not None else None

    def set_meta(self, code: str, field: str, value: str) -> bool:
        with self._lock:
            room = self._live(code)
            if room is None:
                return False
            room.meta[field] = value
            return True

    def touch(self, code: str, ttl_s: float) -> None:
        with self._lock:
            room = self._live(code)
            if room is not None:
                room.expires = self._clock() + ttl_s

    def delete(self, code: str) -> None:
        with self._lock:
            self._rooms.pop(code, None)

    def count_rooms(self) -> int:
        with self._lock:
            self._purge()
            return len(self._rooms)

    def push(self, code: str, stream: str, item: str, cap: int) -> int | None:
        with self._lock:
            room = self._live(code)
            if room is None:
                return None
            items = room.streams.setdefault(stream, [])
            if len(items) >= cap:
                return None
            items.append(item)
            return len(items) - 1

    def extend(self, code: str, stream: str, items: Sequence[str], cap: int) -> int | None:
        with self._lock:
            room = self._live(code)
            if room is None:
                return None
            held = room.streams.setdefault(stream, [])
            taken = list(items[: max(0, cap - len(held))])
            held.extend(taken)
            return len(taken)

    def read(self, code: str, stream: str, start: int = 0, limit: int | None = None) -> list[str]:
        with self._lock:
            room = self._live(code)
            if room is None:
                return []
            items = room.streams.get(stream, [])
            start = max(0, start)
            return items[start:] if limit is None else items[start : start + max(0, limit)]

    def drop(self, code: str, stream: str) -> None:
        with self._lock:
            room = self._live(code)
            if room is not None:
                room.streams.pop(stream, None)

    def put(self, code: str, table: str, field: str, value: str, cap: int) -> bool:
        with self._lock:
            room = self._live(code)
            if room is None:
                return False
            fields = room.tables.setdefault(table, {})
            if field not in fields and len(fields) >= cap:
                return False
            fields[field] = value
            return True

    def get(self, code: str, table: str, field: str) -> str | None:
        with self._lock:
            room = self._live(code)
            return room.tables.get(table, {}).get(field) if room is not None else None

    def table(self, code: str, table: str) -> dict[str, str]:
        with self._lock:
            room = self._live(code)
            return dict(room.tables.get(table, {})) if room is not None else {}

    def count(self, code: str, table: str) -> int:
        with self._lock:
            room = self._live(code)
            return len(room.tables.get(table, {})) if room is not None else 0
