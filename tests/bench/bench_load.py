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

Replicas (`--servers 2`): that many `streamlit run app.py` on the one machine, sharing rooms through
one Redis (a `redis-server` the bench starts, or `--room-store redis://...`) and one cookie secret,
the seats spread round-robin over them as a load balancer sticky by client would. `--profile PATH`
runs each server under tests/bench/_server_profile.py and prints where its CPU went in the first
round (raw stacks in PATH.<n>.json).

    python tests/bench/bench_load.py [--sessions 30] [--rounds 3] [--no-browser] [--only runs step]
                                     [--idle 20] [--waves 3] [--servers 1] [--room-store URL]
                                     [--profile PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import secrets
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench._util import TICK, Sampler, cpu_seconds, rss_mb  # noqa: E402
from tests.browser.harness import (  # noqa: E402
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    free_port,
    offline_env,
    server_pid,
    stop,
    streamlit_app,
    streamlit_command,
    wait_healthy,
)
from tests.st_client import Session, drop_mid_run, run_to_end, seated, to_primes  # noqa: E402


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


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


def cpu_children(pid: int) -> float:
    """CPU seconds of the server's finished children (the sandboxes that judged the drafts)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / TICK  # cutime + cstime


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    with open("/proc/stat", encoding="ascii") as fh:
        ticks = [int(x) for x in fh.readline().split()[1:8]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    return (sum(ticks) - idle) / TICK, sum(ticks) / TICK


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class HealthProbe(threading.Thread):
    """Asks every server's /_stcore/health in turn, one request at a time, every `every` s."""

    def __init__(self, urls: list[str], every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.urls, self.every, self.ms, self.stop = urls, every, [], threading.Event()

    def run(self) -> None:
        turn = 0
        while not self.stop.is_set():
            self.ms.append(health_ms(self.urls[turn % len(self.urls)]))
            turn += 1
            self.stop.wait(self.every)


async def visits_during(urls: list[str], browser, stop: asyncio.Event) -> dict[str, list[float]]:  # noqa: ANN001
    """New visitors while the runs go: websocket sessions one after another, on each server in turn,
    until the round ends, and one Chromium visit (on the first server)."""
    await asyncio.sleep(1.0)  # the runs are under way
    figures: dict[str, list[float]] = {"ws_visit": []}
    if browser is not None:
        figures["browser_visit"] = [await browser_visit(browser, urls[0])]
    turn = 0
    while not stop.is_set() or not figures["ws_visit"]:
        figures["ws_visit"].append(await ws_visit(urls[turn % len(urls)]))
        turn += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)
    return figures


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway redis-server on a free port (nothing saved): the rooms' shared store."""
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with contextlib.closing(__import__("socket").create_connection(("127.0.0.1", port), 0.2)):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(proc)


@contextlib.contextmanager
def serving(
    count: int, store: str | None, profile: str | None, log_name: str = "bench-load.log"
) -> Iterator[list[tuple[str, int]]]:
    """(url, pid) of `count` app servers on this machine. One server and no options: the harness's
    streamlit_app, as before. Otherwise every server gets the same room store (a fresh redis-server
    when there are several and none is named) and the same cookie secret, as replicas behind one
    address must (the XSRF cookie one replica set is checked by another)."""
    if count == 1 and store is None and profile is None:
        with streamlit_app(log_name=log_name) as url:
            yield [(url, server_pid(url))]
        return
    with contextlib.ExitStack() as stack:
        if count > 1 and store is None:
            store = stack.enter_context(redis_server())
        env = offline_env({"STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(16)})  # not allowed as a flag
        if store is not None:
            env["AGENT_PLAYGROUND_ROOM_STORE"] = store
        started = []
        ARTIFACTS.mkdir(exist_ok=True)
        for number in range(count):
            port = free_port()
            runner = [str(Path(__file__).with_name("_server_profile.py"))] if profile else ["-m", "streamlit"]
            if profile:
                env["AGENT_BENCH_PROFILE_OUT"] = f"{profile}.{number}.json"
            log_path = ARTIFACTS / log_name.replace(".log", f"-{number}.log")
            log = stack.enter_context(open(log_path, "w"))  # noqa: SIM115
            proc = subprocess.Popen(
                streamlit_command(port, runner=runner), cwd=ROOT, env=dict(env), stdout=log, stderr=subprocess.STDOUT
            )
            stack.callback(stop, proc)
            started.append((f"http://127.0.0.1:{port}", proc, log_path))
        for url, proc, log_path in started:
            wait_healthy(url, proc, timeout=60, log=log_path)
        yield [(url, proc.pid) for url, proc, _log in started]


def print_profile(paths: list[str], top: int = 25) -> None:
    """Where the servers' CPU went in the profiled round: by kind of thread, then the frames that
    held most of it (inclusive: a frame counts for every stack it is on)."""
    kinds: collections.Counter[str] = collections.Counter()
    frames: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    leaves: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    wall = 0.0
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        wall = max(wall, data["wall_s"])
        kinds.update(data["by_kind_s"])
        for row in data["stacks"]:
            for frame in set(row["stack"]):
                frames[row["kind"]][frame] += row["s"]
            if row["stack"]:
                leaves[row["kind"]][row["stack"][0].split(":", 1)[0].split("/", 1)[0]] += row["s"]
    total = sum(kinds.values())
    print(f"\nServer CPU by thread, profiled round ({total:.1f} CPU s in {wall:.1f} s, {total / wall:.2f} cores):\n")
    print("| thread | CPU s | share |\n|---|---|---|")
    for name, seconds in kinds.most_common():
        print(f"| {name} | {seconds:.1f} | {seconds / total:.0%} |")
    print(
        "\nA thread's CPU is charged to the stack it has at each 10 ms tick; one that has just blocked on a lock "
        "is charged there for what it ran before, so lock-taking frames (config.get_option, secrets) read high."
    )
    for name, seconds in kinds.most_common(4):
        print(f"\n{name}: frames by inclusive CPU s (top {top}); leaf packages: ", end="")
        print(", ".join(f"{k} {v:.1f}" for k, v in leaves[name].most_common(6)))
        # frames on (nearly) every stack of the kind say nothing: the thread's bootstrap, the script's exec
        telling = [(f, s) for f, s in frames[name].most_common() if s < 0.97 * seconds]
        for frame, inclusive in telling[:top]:
            print(f"    {inclusive:6.1f} s  {frame}")


async def main(
    sessions: int,
    rounds_n: int,
    use_browser: bool,
    servers: int = 1,
    store: str | None = None,
    profile: str | None = None,
) -> None:
    from playwright.async_api import async_playwright

    load_before = os.getloadavg()
    with serving(servers, store, profile) as running:
        urls, pids = [u for u, _ in running], [p for _, p in running]
        url = urls[0]
        async with async_playwright() as pw:
            browser = (
                await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS) if use_browser else None
            )
            for each in urls:
                await ws_visit(each)  # warm every server once (imports, page modules)
            one_run = await alone(url)
            quiet = {"health_ms": health_ms(url), "ws_visit": await ws_visit(url)}
            if browser is not None:
                quiet["browser_visit"] = await browser_visit(browser, url)
            baseline_rss, baseline_threads = sum(map(rss_mb, pids)), sum(map(threads, pids))
            samplers = [Sampler(pid) for pid in pids]
            for sampler in samplers:
                sampler.start()
            ready, sent = [], {}
            rounds, timings = [asyncio.Event() for _ in range(rounds_n)], [{} for _ in range(rounds_n)]
            tasks = [
                asyncio.create_task(participant(urls[seat % len(urls)], seat, ready, rounds, timings, sent))
                for seat in range(sessions)
            ]
            while len(ready) < sessions and not any(t.done() for t in tasks):
                await asyncio.sleep(0.2)  # everyone sets up, then presses Run at the same moment
            rss_after = []
            for number, (go, times) in enumerate(zip(rounds, timings, strict=True)):
                if number == 0:
                    if profile:
                        for pid in pids:
                            os.kill(pid, signal.SIGUSR1)
                    probe, round_over = HealthProbe(urls), asyncio.Event()
                    probe.start()
                    visiting = asyncio.create_task(visits_during(urls, browser, round_over))
                    load_at = os.getloadavg()[0]
                    cpu_before = [cpu_seconds(pid) for pid in pids]
                    children_before = sum(map(cpu_children, pids))
                    busy_before, bench_before = machine_busy(), time.process_time()
                began = time.perf_counter()
                go.set()
                while len(times) < sessions and not any(t.done() and t.exception() for t in tasks):
                    await asyncio.sleep(0.05)
                if number == 0:
                    load_wall = time.perf_counter() - began
                    per_server = [cpu_seconds(pid) - b for pid, b in zip(pids, cpu_before, strict=True)]
                    load_cpu = sum(per_server)
                    children_cpu = sum(map(cpu_children, pids)) - children_before
                    bench_cpu = time.process_time() - bench_before
                    busy_after = machine_busy()
                    machine_cores = (busy_after[0] - busy_before[0]) / (busy_after[1] - busy_before[1]) * os.cpu_count()
                    if profile:
                        for pid in pids:
                            os.kill(pid, signal.SIGUSR2)
                    round_over.set()
                    during = await visiting
                    probe.stop.set()
                    probe.join()
                await asyncio.sleep(1)
                rss_after.append(sum(map(rss_mb, pids)))
            done = await asyncio.gather(*tasks)
            for sampler in samplers:
                sampler.stop.set()
            await asyncio.sleep(2)
            after_threads = sum(map(threads, pids))
            await drop_mid_run(url, 5)
            await asyncio.sleep(8)  # the cut script runs reach their next st.* call and end
            dropped_threads = sum(map(threads, pids))
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
    peak = sum(sampler.peak for sampler in samplers)
    where = "one server" if servers == 1 else f"{servers} servers sharing one Redis room store, seats round-robin"
    print(
        f"Sessions: {sessions} concurrent websocket sessions (tests/st_client.py) on {where}, each running "
        f"Reflection on a free task on the offline model at the default watchable speed, {rounds_n} times, all "
        f"pressing Run together. Load average {load_before[0]:.1f} before, {load_at:.1f} as the first round began\n"
    )
    median_run = statistics.median(durations)
    health, ws = probe.ms, during["ws_visit"]
    print("| measure | value |\n|---|---|")
    print(f"| runs finished | {sum(map(len, timings))} / {sessions * rounds_n} |")
    print(f"| sessions that saw another seat's events | {len(leaks)} |")
    print(
        f"| run time: alone / median in the first round / slowest | {one_run:.1f} s / "
        f"{durations[len(durations) // 2]:.1f} s / {durations[-1]:.1f} s |"
    )
    print(f"| median run / alone | {median_run / one_run:.2f}x |")
    print(f"| median run in each round | {' / '.join(f'{statistics.median(t.values()):.1f}' for t in timings)} s |")
    if browser is not None:
        print(
            f"| new visitor's page in Chromium: quiet / during the load | "
            f"{quiet['browser_visit']:.2f} s / {during['browser_visit'][0]:.2f} s |"
        )
    print(
        f"| new session's page, websocket: quiet / during the load (median, max of {len(ws)}) | "
        f"{quiet['ws_visit']:.2f} s / {statistics.median(ws):.2f} s, {max(ws):.2f} s |"
    )
    print(
        f"| health endpoint: quiet / during the load (p50, p95, max of {len(health)}) | {quiet['health_ms']:.0f} ms / "
        f"{pct(health, 0.5):.0f} ms, {pct(health, 0.95):.0f} ms, {max(health):.0f} ms |"
    )
    print(
        f"| server CPU during the load | {load_cpu / load_wall:.2f} cores ({load_cpu:.1f} s in {load_wall:.1f} s"
        + (f"; per server {', '.join(f'{c / load_wall:.2f}' for c in per_server)}" if servers > 1 else "")
        + ") |"
    )
    print(f"| the sandboxes' CPU (children of the servers) | {children_cpu / load_wall:.2f} cores |")
    print(f"| this bench's own CPU (the {sessions} websocket clients) | {bench_cpu / load_wall:.2f} cores |")
    print(f"| the whole machine busy during the load | {machine_cores:.2f} of {os.cpu_count()} cores |")
    print(f"| sent per run | {messages:.0f} messages, {kib:.0f} KiB |")
    print(
        f"| server RSS: before / peak | {baseline_rss:.0f} / {peak:.0f} MB "
        f"({(peak - baseline_rss) / sessions:.1f} MB a session) |"
    )
    print(f"| server RSS after each round | {' / '.join(f'{mb:.0f}' for mb in rss_after)} MB |")
    print(
        f"| server threads: before / after the load / after 5 sessions dropped mid-run | "
        f"{baseline_threads} / {after_threads} / {dropped_threads} |"
    )
    if profile:
        print_profile([f"{profile}.{number}.json" for number in range(servers)])


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
    parser.add_argument("--servers", type=int, default=1, help="app servers (replicas) the seats spread over (runs)")
    parser.add_argument(
        "--room-store", help="the servers' shared room store (default with --servers 2+: a fresh redis)"
    )
    parser.add_argument("--profile", metavar="PATH", help="sample each server's CPU by stack in the first round")
    args = parser.parse_args()
    if "runs" in args.only:
        asyncio.run(main(args.sessions, args.rounds, not args.no_browser, args.servers, args.room_store, args.profile))
    if "step" in args.only:
        asyncio.run(abandoned_pauses(args.sessions, args.waves, args.idle))
