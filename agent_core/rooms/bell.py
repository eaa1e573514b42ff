"""The bell a room's writes ring in this process, so that a seat waiting on the room wakes at once.

A seat's page follows the room in one long script run: it draws what changed, then waits. Without a
bell it could only look again and again (a timer per seat, each look a redraw), and 40 seats looking
often enough to be half a second late cost the server more than it has. With one, a write (an event
published, a pause, a poll opened or closed) wakes the waiters on that room; each reads what changed
since its last look and draws only that. A vote rings no bell: it moves only tallies, which waiters
redraw at their next timed look anyway. A write made by another server that shares the store rings no bell
here: waiters also wake after their timeout and look, so they are at most that late.
"""

from __future__ import annotations

import threading


class Bell:
    """A counter per room, and a condition its waiters sleep on until their room's counter moves."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._rung: dict[str, int] = {}

    def ring(self, code: str) -> None:
        """Room `code` changed: wake its waiters."""
        with self._changed:
            self._rung[code] = self._rung.get(code, 0) + 1
            self._changed.notify_all()

    def mark(self, code: str) -> int:
        """Where room `code`'s bell is now: pass it to `wait` after reading the room, so a change made
        between the read and the wait is not slept through."""
        with self._changed:
            return self._rung.get(code, 0)

    def wait(self, code: str, mark: int, timeout: float) -> bool:
        """Sleep until room `code` changes after `mark`, or `timeout` seconds; True if it changed."""
        with self._changed:
            return self._changed.wait_for(lambda: self._rung.get(code, 0) != mark, timeout)

    def forget(self, code: str) -> None:
        """The room is gone: drop its counter (a waiter on it wakes, and finds no room)."""
        with self._changed:
            self._rung.pop(code, None)
            self._changed.notify_all()
