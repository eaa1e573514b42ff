"""A real `redis-server` for the tests of rooms shared by several app servers: started on a free port
of 127.0.0.1, with no persistence, in a folder of the test's own, and stopped (by its own pid)
afterwards. Debian's package provides it (`apt-get install redis-server`; .ci/run installs it)."""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.rooms import RoomStoreError, store_from

#: why a test of the Redis room store cannot run here, or None when it can
MISSING = (
    "the Redis room store is tested against a real redis-server: apt-get install redis-server"
    if shutil.which("redis-server") is None
    else "the Redis room store is an optional extra: pip install -r requirements-redis.txt"
    if importlib.util.find_spec("redis") is None
    else None
)
#: the marks every such test file carries: skipped (saying why) without a server, and one xdist
#: group, so that the files starting servers never run at the same time
MARKS = [pytest.mark.skipif(MISSING is not None, reason=MISSING or ""), pytest.mark.xdist_group("redis")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def redis_server(folder: Path, timeout_s: float = 15.0) -> Iterator[str]:
    """Serve Redis from `folder` and yield its URL (database 0) once it answers."""
    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        + ["--dir", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"redis://127.0.0.1:{port}/0"
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                store_from(url).close()
                break
            except RoomStoreError:
                assert server.poll() is None and time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
