"""Helpers the benchmarks share: timing, peak memory, fresh interpreters, a server process's CPU and
memory read from /proc, and Markdown tables."""

from __future__ import annotations

import gc
import importlib.metadata
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: clock ticks a second, the unit of /proc's CPU times
TICK = os.sysconf("SC_CLK_TCK")


def app_python() -> str:
    """The app's own interpreter: the base Python when the benchmarks run inside .bench-venv, so
    figures about the app are never helped or hurt by the peers installed there."""
    base = getattr(sys, "_base_executable", sys.executable)
    return base if sys.prefix != sys.base_prefix and Path(base).exists() else sys.executable


def version(dist: str) -> str | None:
    """The installed version of a distribution, or None when it is absent."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def per_call(fn: Callable[[], object], min_seconds: float = 0.05) -> float:
    """Seconds one call of `fn` takes, from a batch of at least `min_seconds` (timeit's way: a lone
    short call mostly measures cold caches), after a collection so earlier garbage is not billed to it."""
    start = time.perf_counter()
    fn()
    first = time.perf_counter() - start
    loops = max(1, int(min_seconds / first) if first > 0 else 1000)
    gc.collect()
    start = time.perf_counter()
    for _ in range(loops):
        fn()
    return (time.perf_counter() - start) / loops


def peak_kib(fn: Callable[[], object]) -> float:
    """Peak traced allocation (KiB) while `fn` runs; what it returns stays alive until the peak is read."""
    gc.collect()
    tracemalloc.start()
    try:
        kept = fn()
        peak = tracemalloc.get_traced_memory()[1]
        del kept
    finally:
        tracemalloc.stop()
    return peak / 1024


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def fresh(code: str, python: str | None = None, env: dict[str, str] | None = None) -> str:
    """Run `code` in a new interpreter from the repository root and return its stdout."""
    out = subprocess.run(
        [python or sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    if out.returncode:
        raise RuntimeError(f"{code!r} failed: {out.stderr.strip().splitlines()[-1:]}")
    return out.stdout


def rss_mb(pid: int) -> float:
    """The resident memory of process `pid` in MB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS")) / 1024


def cpu_seconds(pid: int) -> float:
    """CPU seconds process `pid` has used so far, in user and kernel mode (its children not counted)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


class Sampler(threading.Thread):
    """Samples a server's RSS every 0.2 s, keeping the peak, until `stop` is set or the server is gone."""

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


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table; numbers are printed as given, so format them before."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def met(ok: bool) -> str:
    return "yes" if ok else "**no**"


def machine() -> str:
    """One line saying where and when the figures were taken, and how busy the machine was."""
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return (
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()} with {os.cpu_count()} cores{load}, "
        f"Python {platform.python_version()}."
    )
