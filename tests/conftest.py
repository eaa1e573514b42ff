"""Shared fixtures. Benchmarks in tests/bench are run by hand, never collected."""

collect_ignore = ["bench"]
