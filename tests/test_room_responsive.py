"""The room stays responsive while one participant feeds the server the hostile inputs that stalled it:
against the real `streamlit run app.py` (tests/st_client.py speaks its websocket protocol and uploads
as the frontend does), `/_stcore/health` answers in under a second, probed every 50 ms, while one
session opens a 4 MB trace of 20,000 verdicts on Replay, uploads a 5 MB task set to Eval and reruns
it, and judges a task made of 150 KB of backtick runs. Before, the backtick task alone held the
server 36 s (a quadratic regex under the GIL) and the verdict trace's script run 115 s.

tests/bench/bench_room.py measures the same with figures (server CPU per open, health latency).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from pages.ui import i18n
from tests.browser.harness import streamlit_app
from tests.hostile_traces import dumps, many_verdicts
from tests.st_client import Session

#: Seconds /_stcore/health may take while the hostile session works.
HEALTH_S = 1.0


def _task(i: int, test: str, solution: str = "    return x + 1\n") -> dict:
    return {
        "task_id": f"T/{i}",
        "prompt": f'def f{i}(x):\n    """Add one."""\n',
        "entry_point": f"f{i}",
        "test": test,
        "canonical_solution": solution,
    }


def _file(tasks: list[dict]) -> bytes:
    return ("\n".join(json.dumps(t) for t in tasks) + "\n").encode()


#: the hostile inputs, each under the 5 MB an upload may hold
VERDICTS = dumps(many_verdicts())
TASKS_5MB = _file([_task(i, "def check(candidate):\n" + "    assert candidate(1) == 2\n" * 330) for i in range(500)])
BACKTICKS = _file([_task(0, "assert f0(1) == 2\n", "    " + "`" * 150_000 + "\n"), _task(1, "assert f1(1) == 2\n")])


class HealthProbe:
    """Asks /_stcore/health every `every` seconds in a thread of its own; keeps each answer's latency."""

    def __init__(self, url: str, every: float = 0.05) -> None:
        self.url, self.every, self.latencies = url + "/_stcore/health", every, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._probe, daemon=True)

    def __enter__(self) -> HealthProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _probe(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url, timeout=60) as response:
                    response.read()
            except OSError:
                self.latencies.append(float("inf"))
            else:
                self.latencies.append(time.perf_counter() - started)
            self._stop.wait(self.every)


@pytest.fixture(scope="module")
def url():
    with streamlit_app(log_name="room-responsive.log") as base:
        yield base


def _run(coro):
    with ThreadPoolExecutor(1) as pool:  # asyncio.run off the main thread (see test_sessions_server)
        return pool.submit(asyncio.run, coro).result()


async def _replay_the_verdict_trace(url: str) -> bool:
    async with Session(url) as s:
        await s.open("replay")
        await s.settled(timeout=120)
        await s.choose("rp_source", i18n.t("player.source.upload", "en"), many=True)
        await s.settled(timeout=120)
        assert await s.upload("rp_upload", "verdicts.json", VERDICTS) == 204
        await s.settled(timeout=300)
        for _ in range(2):  # any click reruns the page, with the trace open
            await s.open("replay")
            await s.settled(timeout=300)
        return s.saw(i18n.t("render.fold.window", "en")) or any("are folded" in t for t in s.texts)


async def _eval_uploads(url: str) -> tuple[bool, bool]:
    async with Session(url) as s:
        await s.open("eval")
        await s.settled(timeout=120)
        await s.choose("ev_source", i18n.t("eval.upload", "en"))
        await s.settled(timeout=120)
        assert await s.upload("ev_upload", "tasks.jsonl", TASKS_5MB) == 204
        await s.settled(timeout=300)
        parsed = s.saw(i18n.t("eval.tasks", "en", n=500))
        for _ in range(2):
            await s.open("eval")
            await s.settled(timeout=300)
    async with Session(url) as s:  # a fresh session for the next file (uploads are bounded per session)
        await s.open("eval")
        await s.settled(timeout=120)
        await s.choose("ev_source", i18n.t("eval.upload", "en"))
        await s.settled(timeout=120)
        await s.choose("ev_patterns", i18n.t("eval.patterns.reference", "en"), many=True)
        await s.settled(timeout=120)
        assert await s.upload("ev_upload", "backticks.jsonl", BACKTICKS) == 204
        await s.settled(timeout=300)
        await s.click("ev_run")
        await s.wait_for(lambda x: x.saw(i18n.t("eval.scores", "en")), timeout=300)  # judged, scores drawn
        return parsed, s.saw(i18n.t("eval.tasks", "en", n=2))


def test_health_answers_within_a_second_while_one_session_feeds_every_hostile_input(url):
    with HealthProbe(url) as probe:
        folded = _run(_replay_the_verdict_trace(url))
        parsed, judged = _run(_eval_uploads(url))
    assert folded, "the trace opened, with its long step folded"
    assert parsed and judged
    assert len(probe.latencies) > 20
    slowest = max(probe.latencies)
    assert slowest < HEALTH_S, f"/_stcore/health took {slowest:.2f} s; the slowest five: {sorted(probe.latencies)[-5:]}"
