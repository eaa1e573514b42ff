"""Shared fixtures. Benchmarks in tests/bench and the real-model check in tests/integration are run by hand, never collected."""

from __future__ import annotations

from collections import Counter

import pytest

collect_ignore = ["bench", "integration"]  # integration: a real model, run by hand (tests/integration/local_model.py)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """End with what was skipped and why, grouped by reason: `-q` alone says only "44 skipped",
    which reads like success to someone whose machine lacks chromium or bubblewrap."""
    reasons = Counter(_reason(report) for report in terminalreporter.stats.get("skipped", []))
    if not reasons:
        return
    terminalreporter.section("skipped, and why", sep="-", yellow=True)
    for reason, count in reasons.most_common():
        terminalreporter.line(f"{count:>4} skipped: {reason}")


def _reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # (path, line, "Skipped: why")
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)
