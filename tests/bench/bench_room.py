"""One seat must not stall the room: what a hostile upload costs the real server, and how
long /_stcore/health takes meanwhile.

Against `streamlit run app.py` on 127.0.0.1, through the app's own websocket protocol
(tests/st_client.py, which uploads as the frontend does), one session at a time:

1. opens each costly trace of tests/hostile_traces (`drawing()` and `many-events`) on Replay: the
   server's CPU for the open (upload, parse, first draw) and for a rerun with it open (any click),
   a fresh session per repeat;
2. uploads a 5 MB Eval task set (500 tasks, 10 KB of asserts each) and reruns the page;
3. judges a task whose solution is 150 KB of backtick runs (Eval, the reference pattern).

A probe asks /_stcore/health every 50 ms throughout; its slowest answer is the room's stall.
`--base COMMIT` runs the same once against a checkout of COMMIT (default: main before this work),
each action cut at `--timeout` seconds.

    python tests/bench/bench_room.py [--quick] [--repeats 5] [--base 9628119] [--timeout 300]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench._util import REPO, cpu_seconds, machine, met, table  # noqa: E402
from tests.browser.harness import free_port, offline_env, stop, streamlit_command, wait_healthy  # noqa: E402

BASE = "9628119"
TARGET_OPEN_S = 1.0  # server CPU to open any trace
TARGET_HEALTH_S = 1.0
TRACES = ("many-verdicts", "many-events", "token-flood", "many-tools", "huge-plan", "many-endings")


class Server:
    """`streamlit run app.py` from `root`, its CPU seconds read from /proc."""

    def __init__(self, root: Path) -> None:
        self.root, self.port = root, free_port()
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Server:
        log = Path(tempfile.gettempdir()) / f"bench-room-{self.port}.log"
        self.log = open(log, "w")  # noqa: SIM115 - closed in __exit__
        self.proc = subprocess.Popen(
            streamlit_command(self.port), cwd=self.root, env=offline_env(), stdout=self.log, stderr=subprocess.STDOUT
        )
        try:
            wait_healthy(self.url, self.proc, timeout=60, log=log)
        except RuntimeError as exc:
            self.__exit__()
            raise RuntimeError(f"the server at {self.root} did not start: {exc}") from None
        return self

    def __exit__(self, *exc: object) -> None:
        stop(self.proc)
        self.log.close()

    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid)


class Probe(threading.Thread):
    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.latencies, self.done = url + "/_stcore/health", [], threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            t = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url, timeout=600) as r:
                    r.read()
                self.latencies.append(time.perf_counter() - t)
            except OSError:
                self.latencies.append(float("inf"))
            self.done.wait(0.05)


async def _open_trace(server: Server, data: bytes, timeout: float) -> tuple[float, float]:
    from pages.ui import i18n
    from tests.st_client import Session

    async with Session(server.url) as s:
        await s.open("replay")
        await s.settled(timeout=120)
        await s.choose("rp_source", i18n.t("player.source.upload", "en"), many=True)
        await s.settled(timeout=120)
        before = server.cpu()
        await s.upload("rp_upload", "trace.json", data)
        await s.settled(timeout=timeout)
        opened = server.cpu() - before
        before = server.cpu()
        await s.open("replay")
        await s.settled(timeout=timeout)
        return opened, server.cpu() - before


async def _eval(server: Server, data: bytes, timeout: float, judge: bool) -> tuple[float, float]:
    from pages.ui import i18n
    from tests.st_client import Session

    async with Session(server.url) as s:
        await s.open("eval")
        await s.settled(timeout=120)
        await s.choose("ev_source", i18n.t("eval.upload", "en"))
        await s.settled(timeout=120)
        if judge:
            await s.choose("ev_patterns", i18n.t("eval.patterns.reference", "en"), many=True)
            await s.settled(timeout=120)
        before = server.cpu()
        await s.upload("ev_upload", "tasks.jsonl", data)
        await s.settled(timeout=timeout)
        first = server.cpu() - before
        before = server.cpu()
        if judge:
            await s.click("ev_run")
            await s.wait_for(lambda x: x.saw(i18n.t("eval.scores", "en")), timeout=timeout)
        else:
            await s.open("eval")
            await s.settled(timeout=timeout)
        return first, server.cpu() - before


def _spread(values: list[float]) -> str:
    if not values:
        return "—"
    med = statistics.median(values)
    return f"{med:.2f} s ({min(values):.2f}–{max(values):.2f})" if len(values) > 1 else f"{med:.2f} s (one run)"


def measure(root: Path, repeats: int, timeout: float) -> dict:
    from tests.hostile_traces import corpus, dumps
    from tests.test_room_responsive import BACKTICKS, TASKS_5MB

    everything = corpus()
    out: dict = {"traces": {}, "health": []}
    with Server(root) as server:
        probe = Probe(server.url)
        probe.start()
        try:
            for name in TRACES:
                data = dumps(everything[name][0])
                opens, reruns = [], []
                for _ in range(repeats):
                    try:
                        o, r = asyncio.run(_open_trace(server, data, timeout))
                    except TimeoutError:
                        opens.append(float("inf"))
                        break
                    opens.append(o)
                    reruns.append(r)
                out["traces"][name] = (len(everything[name][0]["events"]), len(data), opens, reruns)
            for label, data, judge in (("tasks", TASKS_5MB, False), ("backticks", BACKTICKS, True)):
                try:
                    out[label] = asyncio.run(_eval(server, data, timeout, judge))
                except TimeoutError:
                    out[label] = (float("inf"), float("inf"))
        finally:
            probe.done.set()
            probe.join(timeout=700)
        out["health"] = probe.latencies
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats, no base")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--base", default=BASE, help="the commit to compare with (default: %(default)s); '' for none")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds an action of the base may take")
    args = parser.parse_args()
    repeats = 3 if args.quick else args.repeats
    now = measure(REPO, repeats, timeout=120)
    before = None
    if args.base and not args.quick:
        with tempfile.TemporaryDirectory() as tmp:
            archive = subprocess.run(["git", "archive", args.base], cwd=REPO, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            before = measure(Path(tmp), 1, timeout=args.timeout)

    rows = []
    for name in TRACES:
        events, size, opens, reruns = now["traces"][name]
        label = f"`{name}` ({events:,} events, {size / 1e6:.1f} MB)"
        rows.append(
            (
                f"{label}: open on Replay, server CPU",
                f"≤ {TARGET_OPEN_S:g} s",
                _spread(opens),
                met(statistics.median(opens) <= TARGET_OPEN_S),
            )
        )
        rows.append(
            (
                f"{label}: a rerun with it open, server CPU",
                f"≤ {TARGET_OPEN_S:g} s",
                _spread(reruns),
                met(statistics.median(reruns) <= TARGET_OPEN_S),
            )
        )
        if before is not None:
            old = before["traces"][name][2]
            rows.append(
                (
                    f"{label}: open, base {args.base}",
                    "—",
                    "over the timeout" if old and old[0] == float("inf") else _spread(old),
                    "—",
                )
            )
    for key, what in (
        ("tasks", "5 MB task set (500 tasks): upload / a rerun"),
        ("backticks", "task of 150 KB backtick runs: upload / judge"),
    ):
        first, second = now[key]
        rows.append((f"Eval, {what}, server CPU", "bounded", f"{first:.2f} s / {second:.2f} s", "—"))
        if before is not None:
            b1, b2 = before[key]
            rows.append((f"Eval, {what}, base {args.base}", "—", f"{b1:.2f} s / {b2:.2f} s", "—"))
    health = now["health"]
    rows.append(
        (
            "/_stcore/health during all of it: slowest (median)",
            f"< {TARGET_HEALTH_S:g} s",
            f"{max(health):.3f} s ({statistics.median(health) * 1000:.0f} ms, {len(health)} probes)",
            met(max(health) < TARGET_HEALTH_S),
        )
    )
    if before is not None:
        rows.append((f"/_stcore/health, base {args.base}: slowest", "—", f"{max(before['health']):.1f} s", "—"))
    print(machine() + f" Medians of {repeats} with min–max (a fresh session each); the base runs once.")
    print()
    print(table(("figure", "target", "measured", "met"), rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
