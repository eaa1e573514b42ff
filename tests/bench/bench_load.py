"""30 workshop participants on one server: concurrent sessions, each running an offline Reflection run.

One `streamlit run app.py` on 127.0.0.1; 30 browser contexts (each its own Streamlit session) in one
headless Chromium. Every participant opens the Playground, turns the primes task into a free task
marked with their own seat number, and presses Run at the same moment. Measured: all finish, nobody
sees another seat's marker, a new visitor's page still loads during the load, the server's memory
(RSS) before, at peak and after, and that reloading pages mid-run leaves no extra server threads.

    python tests/bench/bench_load.py [--sessions 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.browser.harness import CHROMIUM, CHROMIUM_ARGS, streamlit_app  # noqa: E402

RUN, FINAL = ".st-key-pg_run button", ".st-key-pg_view-final"


def server_pid(port: int) -> int:
    """The pid of the streamlit process listening on `port` (the harness starts it)."""
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "streamlit run app.py" in line and f"--server.port {port}" in line:
            return int(line.split()[0])
    raise RuntimeError("streamlit server not found")


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS")) / 1024


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


async def open_primes(page, url: str) -> None:  # noqa: ANN001
    """Learn's Reflection tab, then its one click into the Playground on the primes scenario."""
    await page.goto(f"{url}/learn")
    await page.get_by_role("tab", name="Reflection", exact=True).click()
    await page.locator(".st-key-learn_open_reflection button").click()
    await page.locator(RUN).wait_for()


async def participant(browser, url: str, seat: int, ready: list, start: asyncio.Event,  # noqa: ANN001
                      timings: dict) -> str:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(180_000)
    await open_primes(page, url)
    await page.locator(".st-key-pg_to_free button").click()
    box = page.locator(".st-key-pg_free_task textarea")
    await box.fill(f"SEAT-{seat:02d}: write find_primes(n) returning the primes from 1 to n.")
    await box.press("Tab")
    try:
        await page.locator(RUN).wait_for(timeout=20_000)
    except Exception:
        await page.screenshot(path=f"test-artifacts/load-setup-{seat:02d}.png", full_page=True)
        raise
    await page.wait_for_timeout(500)
    ready.append(seat)
    await start.wait()
    began = time.perf_counter()
    await page.locator(RUN).click()
    try:
        await page.locator(FINAL).wait_for(timeout=int(os.environ.get('LOAD_TIMEOUT_MS', '240000')))
    except Exception:
        await page.screenshot(path=f"test-artifacts/load-seat-{seat:02d}.png", full_page=True)
        raise
    timings[seat] = time.perf_counter() - began
    text = await page.locator("[data-testid=stMain]").inner_text()
    await context.close()
    return text


async def fresh_visit(browser, url: str) -> float:  # noqa: ANN001
    context = await browser.new_context()
    page = await context.new_page()
    began = time.perf_counter()
    await page.goto(f"{url}/learn", timeout=300_000)
    await page.locator(".st-key-learn_open_reflection button").wait_for(state="attached", timeout=300_000)
    took = time.perf_counter() - began
    await context.close()
    return took


async def reloads_mid_run(browser, url: str, count: int) -> None:  # noqa: ANN001
    """Start runs and reload the pages while they are going (their scripts must be cut cleanly)."""
    pages = []
    for _ in range(count):
        context = await browser.new_context()
        page = await context.new_page()
        await open_primes(page, url)
        await page.locator(RUN).click()
        pages.append((context, page))
    await asyncio.sleep(1.5)
    for context, page in pages:
        await page.reload()
    await asyncio.sleep(1.0)
    for context, _page in pages:
        await context.close()


async def main(sessions: int) -> None:
    from playwright.async_api import async_playwright

    with streamlit_app(log_name="bench-load.log") as url:
        pid = server_pid(int(url.rsplit(":", 1)[1]))
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            await fresh_visit(browser, url)  # warm the server once
            baseline_rss, baseline_threads = rss_mb(pid), threads(pid)
            quiet_load = await fresh_visit(browser, url)
            sampler = Sampler(pid)
            sampler.start()
            start, timings, ready = asyncio.Event(), {}, []
            tasks = [asyncio.create_task(participant(browser, url, seat, ready, start, timings))
                     for seat in range(sessions)]
            while len(ready) < sessions and not any(t.done() for t in tasks):
                await asyncio.sleep(0.5)  # everyone sets up, then presses Run at the same moment
            start.set()
            await asyncio.sleep(1.0)
            loaded_during = await fresh_visit(browser, url)
            pages = await asyncio.gather(*tasks)
            sampler.stop.set()
            mid_rss = sampler.peak
            await asyncio.sleep(2)
            after_rss, after_threads = rss_mb(pid), threads(pid)
            await reloads_mid_run(browser, url, 5)
            await asyncio.sleep(8)  # the cut script runs finish their current st.* call and end
            reload_threads = threads(pid)
            await browser.close()
    leaks = [seat for seat, text in enumerate(pages)
             if f"SEAT-{seat:02d}" not in text or any(f"SEAT-{o:02d}" in text for o in range(sessions) if o != seat)]
    durations = sorted(timings.values())
    print(f"Sessions: {sessions} concurrent browser contexts, each running Reflection (free task) on the offline model "
          "at the default watchable speed\n")
    print("| measure | value |\n|---|---|")
    print(f"| runs finished | {len(timings)} / {sessions} |")
    print(f"| sessions that saw another seat's events | {len(leaks)} |")
    print(f"| run time, median / slowest | {durations[len(durations) // 2]:.1f} s / {durations[-1]:.1f} s |")
    print(f"| new visitor's page load: quiet / during the load | {quiet_load:.2f} s / {loaded_during:.2f} s |")
    print(f"| server RSS: before / peak / after | {baseline_rss:.0f} / {mid_rss:.0f} / {after_rss:.0f} MB |")
    print(f"| server RSS per session at peak | {(mid_rss - baseline_rss) / sessions:.1f} MB |")
    print(f"| server threads: before / after the load / after 5 reloads mid-run | "
          f"{baseline_threads} / {after_threads} / {reload_threads} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=30)
    asyncio.run(main(parser.parse_args().sessions))
