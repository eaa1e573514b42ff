"""How Plan-and-Execute's own events move its graph: a plan lights the planner, a step the executor."""

from __future__ import annotations

EVENT_NODES = {"plan": "planner", "step_started": "executor"}
