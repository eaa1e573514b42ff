"""The roles of Plan-and-Execute: planner, executor, the step Reflector and the synthesizer."""

from __future__ import annotations

ROLES = ("planner", "executor", "reflector", "synthesizer")
