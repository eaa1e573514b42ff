"""Waiting for what another thread makes: a run's handle, the room's publisher, a store."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest


def wait_for(check: Callable[[], object], timeout: float = 20.0, what: str = "it never happened") -> None:
    """Return once `check()` is true; fail with `what` after `timeout` seconds."""
    until = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < until, what
        time.sleep(0.01)


@pytest.fixture
def fresh_rooms():  # noqa: ANN201
    """Each story on rooms of its own: a server holds at most 20 rooms, and a test session makes more."""
    from agent_core.rooms import forget_rooms

    forget_rooms()
    yield
    forget_rooms()
