"""30 workshop participants on one server: concurrent sessions, each running an offline Reflection run.

One `streamlit run app.py` on 127.0.0.1. Each participant is a websocket session speaking the app's
own protocol (st_client.py), so the figures measure the server, not thirty Chromium renderers on
the same two cores: it opens Learn, clicks into the Playground on the primes scenario, turns it
into a free task marked with its seat number, and presses Run at the same moment as everyone else,
three rounds in a row (memory must level off, not grow with every run).

Measured while they run: a new visitor in a real headless Chromium loading the Learn page (what
"the server stays responsive" means to a person), the same visit as a websocket session, and the
health endpoint's latency. Then: all finished, nobody saw another seat's marker, run times against
one run alone, the server's CPU, its memory (RSS) before, at peak and after each round, and that
sessions dropped mid-run (a closed tab, a reload) leave no extra server threads behind.

Abandoned pauses (`--only step`, on a second server whose paused runs end after `--idle` seconds,
AGENT_PLAYGROUND_STEP_IDLE_S): the same number of sessions turn Step mode on, press Run, and close
their tabs once the run is paused before its first call, in `--waves` waves. Measured: the server's
threads before, with every run paused, and how long after the last tab closed they are back to the
level before the load; its CPU while the runs sit paused; its RSS after each wave (it must level off).

    python tests/bench/bench_load.py [--sessions 30] [--rounds 3] [--no-browser] [--only runs step]
                                     [--idle 20] [--waves 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.browser.harness import CHROMIUM, CHROMIUM_ARGS, server_pid, streamlit_app  # noqa: E402
from tests.st_client import Session, drop_mid_run, run_to_end, seated, to_primes  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS")) / 1024


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


class Sampler(threading.Thread):
    """Samples the server's RSS every 0.2 s, keeping the peak."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, rss_mb(self.pid))
            except OSError:  # the server has gone
                return
            time.sleep(0.2)


async def participant(
    url: str, seat: int, ready: list, rounds: list[asyncio.Event], timings: list[dict], sent: dict
) -> Session:
    async with Session(url) as session:
        await seated(session, f"SEAT-{seat:02d}")
        ready.append(seat)
        for go, times in zip(rounds, timings, strict=True):
            await go.wait()
            messages, size = session.messages, session.bytes
            times[seat] = await run_to_end(session)
            sent.setdefault(seat, (session.messages - messages, session.bytes - size))
    return session


async def ws_visit(url: str) -> float:
    """A new session loading Learn until its last button has arrived."""
    began = time.perf_counter()
    async with Session(url) as session:
        await session.open("learn")
        await session.wait_for(lambda s: "learn_fail_airx-watchfit-order" in s.widgets)
    return time.perf_counter() - began


async def browser_visit(browser, url: str) -> float:  # noqa: ANN001
    """A person opening Learn in a new tab, until its Open button is on screen."""
    context = await browser.new_context()
    page = await context.new_page()
    began = time.perf_counter()
    await page.goto(f"{url}/learn", timeout=300_000)
    await page.locator(".st-key-learn_open_reflection button").wait_for(state="attached", timeout=300_000)
    took = time.perf_counter() - began
    await context.close()
    return took


def health_ms(url: str) -> float:
    began = time.perf_counter()
    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=60) as response:
        response.read()
    return (time.perf_counter() - began) * 1000


async def alone(url: str) -> float:
    """One participant's run with the server otherwise idle: the yardstick for the run times under load."""
    async with Session(url) as session:
        await seated(session, "ALONE")
        return await run_to_end(session)


async def measure_during(url: str, browser) -> dict[str, float]:  # noqa: ANN001
    await asyncio.sleep(1.0)  # the runs are under way
    figures = {"health_ms": await asyncio.to_thread(health_ms, url), "ws_visit": await ws_visit(url)}
    if browser is not None:
        figures["browser_visit"] = await browser_visit(browser, url)
    return figures


async def main(sessions: int, rounds_n: int, use_browser: bool) -> None:
    from playwright.async_api import async_playwright

    with streamlit_app(log_name="bench-load.log") as url:
        pid = server_pid(url)
        async with async_playwright() as pw:
            browser = (
                await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS) if use_browser else None
            )
            await ws_visit(url)  # warm the server once (imports, page modules)
            one_run = await alone(url)
            quiet = {"health_ms": health_ms(url), "ws_visit": await ws_visit(url)}
            if browser is not None:
                quiet["browser_visit"] = await browser_visit(browser, url)
            baseline_rss, baseline_threads = rss_mb(pid), threads(pid)
            sampler = Sampler(pid)
            sampler.start()
            ready, sent = [], {}
            rounds, timings = [asyncio.Event() for _ in range(rounds_n)], [{} for _ in range(rounds_n)]
            tasks = [
                asyncio.create_task(participant(url, seat, ready, rounds, timings, sent)) for seat in range(sessions)
            ]
            while len(ready) < sessions and not any(t.done() for t in tasks):
                await asyncio.sleep(0.2)  # everyone sets up, then presses Run at the same moment
            rss_after = []
            for number, (go, times) in enumerate(zip(rounds, timings, strict=True)):
                cpu_before, began = cpu_seconds(pid), time.perf_counter()
                go.set()
                if number == 0:
                    during = await measure_during(url, browser)
                while len(times) < sessions and not any(t.done() and t.exception() for t in tasks):
                    await asyncio.sleep(0.05)
                if number == 0:
                    load_wall, load_cpu = time.perf_counter() - began, cpu_seconds(pid) - cpu_before
                await asyncio.sleep(1)
                rss_after.append(rss_mb(pid))
            done = await asyncio.gather(*tasks)
            sampler.stop.set()
            await asyncio.sleep(2)
            after_threads = threads(pid)
            await drop_mid_run(url, 5)
            await asyncio.sleep(8)  # the cut script runs reach their next st.* call and end
            dropped_threads = threads(pid)
            if browser is not None:
                await browser.close()
    leaks = [
        seat
        for seat, session in enumerate(done)
        if not session.saw(f"SEAT-{seat:02d}")
        or any(session.saw(f"SEAT-{other:02d}") for other in range(sessions) if other != seat)
    ]
    durations = sorted(timings[0].values())
    messages = sum(m for m, _ in sent.values()) / len(sent)
    kib = sum(b for _, b in sent.values()) / len(sent) / 1024
    print(
        f"Sessions: {sessions} concurrent websocket sessions (tests/st_client.py), each running Reflection on a "
        f"free task on the offline model at the default watchable speed, {rounds_n} times, all pressing Run "
        "together\n"
    )
    print("| measure | value |\n|---|---|")
    print(f"| runs finished | {sum(map(len, timings))} / {sessions * rounds_n} |")
    print(f"| sessions that saw another seat's events | {len(leaks)} |")
    print(
        f"| run time: alone / median in the first round / slowest | {one_run:.1f} s / "
        f"{durations[len(durations) // 2]:.1f} s / {durations[-1]:.1f} s |"
    )
    if browser is not None:
        print(
            f"| new visitor's page in Chromium: quiet / during the load | "
            f"{quiet['browser_visit']:.2f} s / {during['browser_visit']:.2f} s |"
        )
    print(
        f"| new session's page, websocket: quiet / during the load | "
        f"{quiet['ws_visit']:.2f} s / {during['ws_visit']:.2f} s |"
    )
    print(f"| health endpoint: quiet / during the load | {quiet['health_ms']:.0f} ms / {during['health_ms']:.0f} ms |")
    print(f"| server CPU during the load | {load_cpu / load_wall:.2f} cores ({load_cpu:.1f} s in {load_wall:.1f} s) |")
    print(f"| sent per run | {messages:.0f} messages, {kib:.0f} KiB |")
    print(
        f"| server RSS: before / peak | {baseline_rss:.0f} / {sampler.peak:.0f} MB "
        f"({(sampler.peak - baseline_rss) / sessions:.1f} MB a session) |"
    )
    print(f"| server RSS after each round | {' / '.join(f'{mb:.0f}' for mb in rss_after)} MB |")
    print(
        f"| server threads: before / after the load / after 5 sessions dropped mid-run | "
        f"{baseline_threads} / {after_threads} / {dropped_threads} |"
    )


# --- abandoned pauses ----------------------------------------------------------------------------


async def pause_and_leave(url: str) -> float:
    """Open primes, turn Step mode on ("before every model call"), press Run, and close the tab as soon
    as the run is paused. Returns when it closed (time.monotonic())."""
    session = Session(url)
    await session.__aenter__()
    try:
        await to_primes(session)
        await session.wait_for(lambda s: "pg_step" in s.widgets)
        await session.settled()
        await session.toggle("pg_step", True)
        await session.wait_for(lambda s: "pg_step_breaks" in s.widgets)
        await session.settled()
        await session.click("pg_run")
        await session.wait_for(lambda s: "pg_pause" in s.blocks)
        await session.settled()
    finally:
        await session.__aexit__()
    return time.monotonic()


async def back_to(pid: int, level: int, since: float, limit: float) -> tuple[float | None, list[int]]:
    """Seconds after `since` until the server has at most `level` threads (None: not within `limit` s),
    with the thread counts sampled each second."""
    seen = []
    while time.monotonic() - since < limit:
        seen.append(threads(pid))
        if seen[-1] <= level:
            return time.monotonic() - since, seen
        await asyncio.sleep(1.0)
    return None, seen


async def abandoned_pauses(sessions: int, waves: int, idle: float) -> None:
    with streamlit_app({"AGENT_PLAYGROUND_STEP_IDLE_S": f"{idle:g}"}, log_name="bench-load-step.log") as url:
        pid = server_pid(url)
        await ws_visit(url)  # warm the server (imports, page modules) ...
        await pause_and_leave(url)  # ... and the step-mode path, whose run then idles out
        await asyncio.sleep(idle + 5)
        base_threads, base_rss = threads(pid), rss_mb(pid)
        rows = []
        for _wave in range(waves):
            began = time.perf_counter()
            closed = await asyncio.gather(*(pause_and_leave(url) for _ in range(sessions)))
            setup = time.perf_counter() - began
            last = max(closed)
            paused_threads, paused_rss = threads(pid), rss_mb(pid)
            cpu0, wall0 = cpu_seconds(pid), time.monotonic()
            await asyncio.sleep(max(0.0, idle - (time.monotonic() - min(closed)) - 1))  # all still paused
            idle_cpu = (cpu_seconds(pid) - cpu0) / max(time.monotonic() - wall0, 1e-9)
            gone, _counts = await back_to(pid, base_threads, last, idle + 60)
            await asyncio.sleep(5)
            rows.append(
                {
                    "setup": setup,
                    "paused_threads": paused_threads,
                    "paused_rss": paused_rss,
                    "idle_cpu": idle_cpu,
                    "gone": gone,
                    "after_threads": threads(pid),
                    "after_rss": rss_mb(pid),
                }
            )
    print(
        f"\nAbandoned pauses: {sessions} websocket sessions per wave, {waves} waves, each turning Step mode on "
        f"(primes, Reflection, before every model call), pressing Run and closing the tab once the run is paused; "
        f"paused runs end after {idle:g} s (AGENT_PLAYGROUND_STEP_IDLE_S)\n"
    )
    print(
        "| wave | threads: before / all paused / after | back to the level before | server CPU while paused "
        "| RSS: before / all paused / after |\n|---|---|---|---|---|"
    )
    for number, row in enumerate(rows, 1):
        back = (
            f"{row['gone']:.1f} s after the last tab closed" if row["gone"] is not None else "**not within the limit**"
        )
        print(
            f"| {number} | {base_threads} / {row['paused_threads']} / {row['after_threads']} | {back} | "
            f"{row['idle_cpu']:.3f} cores | {base_rss:.0f} / {row['paused_rss']:.0f} / {row['after_rss']:.0f} MB |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3, help="how many times everyone presses Run")
    parser.add_argument("--no-browser", action="store_true", help="measure the new visitor by websocket only")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=("runs", "step"),
        default=("runs", "step"),
        help="runs: concurrent runs; step: abandoned step-mode pauses",
    )
    parser.add_argument("--idle", type=float, default=20.0, help="seconds a paused run waits (step part)")
    parser.add_argument("--waves", type=int, default=3, help="how many times the sessions pause and leave")
    args = parser.parse_args()
    if "runs" in args.only:
        asyncio.run(main(args.sessions, args.rounds, not args.no_browser))
    if "step" in args.only:
        asyncio.run(abandoned_pauses(args.sessions, args.waves, args.idle))
