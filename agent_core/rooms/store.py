"""`RoomStore`: the few atomic primitives a workshop room is kept in, whichever backend holds it.

Every key lives under one room code and expires with the room. A stream is an append-only list of
strings (a run's events, the submissions), a table a map of strings (members, polls, votes). Caps are
enforced by the store itself, in the same step as the write, so two app servers pushing at once cannot
both take the last place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from ..text import Text


class RoomStoreError(Exception):
    """The store cannot be used: a bad address, a missing optional extra, or a backend that stopped
    answering. `.message` says what to do, in English and Chinese."""

    def __init__(self, message: Text) -> None:
        super().__init__(message.en)
        self.message = message


@runtime_checkable
class RoomStore(Protocol):
    """Small, atomic primitives; every key lives under one room code and expires with the room."""

    def create(self, code: str, meta: Mapping[str, str], ttl_s: float, *, max_rooms: int | None = None) -> bool:
        """Make a room with these meta fields, expiring in `ttl_s`. False when the code is taken, or
        when `max_rooms` rooms are already held (checked in the same step)."""
        ...

    def meta(self, code: str) -> dict[str, str] | None:
        """The room's meta fields; None when there is no such room or it expired."""
        ...

    def set_meta(self, code: str, field: str, value: str) -> bool:
        """Set one meta field; False when the room is gone."""
        ...

    def touch(self, code: str, ttl_s: float) -> None:
        """The room (every key of it) now expires `ttl_s` from now."""
        ...

    def delete(self, code: str) -> None:
        """The room and every key of it are gone."""
        ...

    def count_rooms(self) -> int:
        """How many rooms are held (expired ones not counted)."""
        ...

    def push(self, code: str, stream: str, item: str, cap: int) -> int | None:
        """Append `item`; its index, or None when the room is gone or the stream holds `cap` items."""
        ...

    def extend(self, code: str, stream: str, items: Sequence[str], cap: int) -> int | None:
        """Append as many of `items`, in order, as fit under `cap`; how many were appended (None: the
        room is gone). One step for a batch: a run's events arrive dozens at a time."""
        ...

    def read(self, code: str, stream: str, start: int = 0, limit: int | None = None) -> list[str]:
        """The stream's items from `start` (at most `limit` of them); [] when the room is gone."""
        ...

    def drop(self, code: str, stream: str) -> None:
        """Empty a stream (a run that is no longer the room's)."""
        ...

    def put(self, code: str, table: str, field: str, value: str, cap: int) -> bool:
        """Set a table's field. A NEW field past `cap` fields is refused (False), as is any write to a
        room that is gone; an existing field may always be changed."""
        ...

    def get(self, code: str, table: str, field: str) -> str | None:
        """One field of a table; None when it is not there or the room is gone."""
        ...

    def table(self, code: str, table: str) -> dict[str, str]:
        """Every field of a table; {} when the room is gone."""
        ...

    def count(self, code: str, table: str) -> int:
        """How many fields a table holds."""
        ...
