"""Helpers the benchmarks share: timing, peak memory, fresh interpreters and Markdown tables."""

from __future__ import annotations

import gc
import importlib.metadata
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


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
