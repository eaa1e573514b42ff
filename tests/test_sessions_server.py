"""A workshop on one server, in small: several sessions of the real `streamlit run app.py` run at
once through its own websocket protocol (tests/st_client.py). Each participant's run is marked
with their seat; nobody may see another seat's run, and sessions dropped mid-run (a closed tab, a
reload) must leave no server thread behind, and no open stream to the model's endpoint either.
tests/bench/bench_load.py does the same with 30.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.browser.harness import server_pid, streamlit_app
from tests.fake_openai_server import FakeOpenAIServer, Reply
from tests.st_client import Session, drop_mid_run, run_to_end, seated

SEATS = 4


def _run(coro: Coroutine[Any, Any, Any]) -> Any:
    """asyncio.run in a thread of its own: Playwright's sync API, used by the browser tests in the
    same pytest process, can leave an event loop running in the main thread."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


@pytest.fixture(scope="module")
def url():
    with streamlit_app(log_name="sessions-server.log") as base:
        yield base


@pytest.fixture(scope="module")
def slow_endpoint():
    """The app on a local endpoint whose every reply streams for about 20 s."""
    with (
        FakeOpenAIServer(default=Reply("x" * 2000, chunks=1000, chunk_delay=0.02)) as fake,
        streamlit_app(
            {"OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "fake-model"}, log_name="sessions-endpoint.log"
        ) as base,
    ):
        yield fake, base


def _server_threads(url: str) -> int:
    return len(os.listdir(f"/proc/{server_pid(url)}/task"))


async def _participant(url: str, seat: int, start: asyncio.Event, ready: list[int]) -> Session:
    async with Session(url) as session:
        await seated(session, f"SEAT-{seat}")
        ready.append(seat)
        await start.wait()
        await run_to_end(session)
    return session


async def _workshop(url: str) -> list[Session]:
    start, ready = asyncio.Event(), []
    tasks = [asyncio.create_task(_participant(url, seat, start, ready)) for seat in range(SEATS)]
    while len(ready) < SEATS and not any(t.done() for t in tasks):
        await asyncio.sleep(0.05)
    start.set()  # everyone presses Run at the same moment
    async with asyncio.timeout(240):
        return await asyncio.gather(*tasks)


def test_concurrent_runs_each_see_only_their_own(url):
    sessions = _run(_workshop(url))
    for seat, session in enumerate(sessions):
        assert session.saw(f"SEAT-{seat}:"), f"seat {seat} never saw its own task"
        others = [other for other in range(SEATS) if other != seat and session.saw(f"SEAT-{other}:")]
        assert not others, f"seat {seat} saw the runs of seats {others}"
        assert "pg_view-verdict-1-REVISE" in session.blocks and "pg_view-final" in session.blocks


def test_sessions_dropped_mid_run_leave_no_threads(url):
    _run(drop_mid_run(url, 1))  # the first run starts the server's lasting threads
    time.sleep(3)
    before = _server_threads(url)
    _run(drop_mid_run(url, 3))
    deadline = time.monotonic() + 30
    while (now := _server_threads(url)) > before and time.monotonic() < deadline:
        time.sleep(0.5)  # a cut script run ends at its next st.* call
    assert now <= before, f"{now - before} server threads left behind by dropped sessions"


PAGES = {  # page -> (its Run and Stop buttons, how many streams a run opens at once, setup clicks)
    "playground": ("pg_run", "pg_stop", 1, ()),
    "compare": ("cmp_run", "cmp_stop", 3, ("cmp_preset_patterns",)),
}


async def _streaming(url: str, fake: FakeOpenAIServer, page: str) -> Session:
    """A session whose run (or lanes) is receiving the endpoint's replies."""
    run, _stop, streams, setup = PAGES[page]
    session = Session(url)
    await session.__aenter__()
    await session.open(page)
    await session.wait_for(lambda s: run in s.widgets, timeout=60)
    for key in setup:
        await session.click(key)
        await session.settled()
    calls = fake.call_count
    await session.click(run)
    await session.wait_for(lambda s: fake.call_count >= calls + streams and s.saw("xxxx"), timeout=60)
    return session


async def _wait_for_hang_ups(fake: FakeOpenAIServer, expected: int) -> None:
    async with asyncio.timeout(10):
        while fake.disconnects < expected:
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("page", list(PAGES))
@pytest.mark.parametrize("how", ["stop", "drop"])
def test_stop_or_a_closed_tab_hangs_up_on_the_endpoint(slow_endpoint, page, how):
    fake, url = slow_endpoint
    streams = PAGES[page][2]

    async def scenario() -> None:
        expected = fake.disconnects + streams
        session = await _streaming(url, fake, page)
        if how == "stop":
            await session.click(PAGES[page][1])
            await _wait_for_hang_ups(fake, expected)
            await session.wait_for(lambda s: s.saw("Stopped before the end"), timeout=30)
            await session.__aexit__()
        else:
            await session.__aexit__()
            await _wait_for_hang_ups(fake, expected)

    _run(scenario())  # a reply left streaming would run on for 20 s; the hang-ups come first
