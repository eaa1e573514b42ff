"""TestOutcome, and how the parent turns the harness's records into one (for both runners)."""

from __future__ import annotations

import json
import signal
from dataclasses import dataclass
from typing import Literal, cast, get_args

Status = Literal["passed", "failed", "error", "timeout", "memory", "killed"]

_MAX_LISTED_FAILURES = 10


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """How a draft fared against its tests; `summary` is one line a refiner model can act on."""

    __test__ = False  # keeps pytest from collecting this class as a test case

    passed: bool
    status: Status
    summary: str
    details: str = ""
    duration_ms: int = 0
    tests_run: int | None = None
    tests_failed: int | None = None
    #: tests failed because the draft returned something that is not plain data (cannot be checked)
    flagged: int = 0
    #: the layers that held the code, e.g. ("bwrap", "seccomp", "rlimits", "cgroup pids.max")
    isolation: tuple[str, ...] = ()


def parse_records(data: bytes) -> list[dict]:
    """Records as the harness wrote them, one JSON object a line; a line cut short by a kill is dropped."""
    records = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("kind"), str):
            records.append(record)
    return records


def build(
    records: list[dict],
    returncode: int,
    timed_out: bool,
    timeout_s: float,
    memory_mb: int,
    stdout: str,
    stderr: str,
    duration_ms: int,
    isolation: tuple[str, ...] = (),
) -> TestOutcome:
    """One outcome from the records; raises KeyError/TypeError/ValueError on records it cannot read."""
    tests = [r for r in records if r["kind"] == "test"]
    failures = [r for r in tests if not r["ok"]]
    done = next((r for r in records if r["kind"] == "done"), None)
    # A "start" record without its "test" record is the test that was running when the child died.
    running = records[-1]["source"] if records and records[-1]["kind"] == "start" else None
    where = f" while running `{clip(running, 120)}`" if running else ""
    signum = -returncode if returncode < 0 else 0
    if timed_out or signum == signal.SIGXCPU or (done is not None and done["status"] == "timeout"):
        status, summary = "timeout", f"timed out after {timeout_s:g} s{where} (infinite loop or far too slow?)"
    elif done is not None:
        status, summary = done["status"], done["summary"]
    elif signum:
        status = "killed"
        summary = f"the process was killed by {signal.Signals(signum).name}{where} (out of memory or a crash?)"
    else:
        status, summary = "error", f"the process exited with code {returncode} before the tests finished{where}"
    if status == "memory":
        summary = f"{summary} (limit {memory_mb} MB)"
    if status in ("timeout", "killed") and tests:
        summary += f"; before that: {len(tests) - len(failures)} passed, {len(failures)} failed"
    parts = [f"FAILED {r['source']}\n{r['message']}".rstrip() for r in failures[:_MAX_LISTED_FAILURES]]
    if len(failures) > _MAX_LISTED_FAILURES:
        parts.append(f"... and {len(failures) - _MAX_LISTED_FAILURES} more failures")
    if done and done.get("traceback"):
        parts.append(done["traceback"].rstrip())
    parts += [
        f"--- {name} ---\n{text.rstrip()}" for name, text in (("stdout", stdout), ("stderr", stderr)) if text.strip()
    ]
    if status not in get_args(Status):
        raise ValueError(status)
    return TestOutcome(
        passed=status == "passed",
        status=cast(Status, status),
        summary=clip(summary, 600),
        details="\n\n".join(parts),
        duration_ms=duration_ms,
        tests_run=len(tests) if done else None,
        tests_failed=len(failures) if done else None,
        flagged=sum(1 for r in failures if r.get("flagged")),
        isolation=isolation,
    )


def clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
