"""Shared fixtures. Benchmarks in tests/bench and the real-model check in tests/integration are run by hand, never collected."""

collect_ignore = ["bench", "integration"]  # integration: a real model, run by hand (tests/integration/local_model.py)
