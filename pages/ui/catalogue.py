"""The Playground's catalogue of patterns as a person picks them: variants, switches and limit labels."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Variant:
    """A pattern as the user picks it: the core pattern plus the options that define the variant."""

    id: str
    label: str
    pattern: str
    forced: Mapping[str, Any] = field(default_factory=dict)
    #: limits and switches that do nothing in this variant
    hidden: frozenset[str] = frozenset()
    #: lowest allowed value of a limit in this variant (above LIMITS' own)
    floors: Mapping[str, int] = field(default_factory=dict)
    blurb: str = ""
    scenario: str = ""


VARIANTS: dict[str, Variant] = {v.id: v for v in (
    Variant("react", "ReAct", "react", {"max_reflection_rounds": 0}, frozenset({"max_reflection_rounds"}),
            blurb="Reason, call a tool, read the observation, repeat until it can answer (seeds 01, 05).",
            scenario="dentist-booking"),
    Variant("react-advisor", "ReAct + reflection advisor", "react", {}, floors={"max_reflection_rounds": 1},
            blurb="ReAct, and a judge reviews every final answer; its feedback sends the agent back to work "
                  "(seed 01).", scenario="weather-report"),
    Variant("plan-execute", "Plan-and-Execute", "plan-execute", {"reflector": False},
            frozenset({"max_step_retries", "selective_reflection"}),
            blurb="A planner writes the steps; a goal-blind executor runs each one; a synthesizer answers "
                  "(seeds 03, 05).", scenario="order-99999"),
    Variant("plan-execute-reflector", "Plan-and-Execute + Reflector", "plan-execute", {"reflector": True},
            blurb="Plan-and-Execute with a Reflector judging every step: PASS, RETRY or REPLAN (seed 03).",
            scenario="order-99999"),
    Variant("reflection", "Reflection", "reflection",
            blurb="Draft, critique, refine — until the critic finds nothing to improve (seeds 02, 04, 05).",
            scenario="primes"),
)}

#: switch -> (label, help, patterns)
SWITCHES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "text_protocol": ("Text protocol", "Thought / Action / Action Input lines instead of native tool calls, "
                      "for models without tool calling.", ("react",)),
    "goal_aware_executor": ("Goal-aware executor", "Show the user's goal to the executor too (seed 03 argues "
                            "it should stay goal-blind; try both).", ("plan-execute",)),
    "rule_precheck": ("Rule pre-check", "A tool result with an error field means REPLAN at once, without "
                      "asking the Reflector (also works without it).", ("plan-execute",)),
    "selective_reflection": ("Selective reflection", "Reflect only on steps that used a tool.", ("plan-execute",)),
    "code_task": ("Code task", "Drafts are code: fences and prose around them are dropped.", ("reflection",)),
    "use_trajectory": ("Trajectory memory", "The refiner sees every earlier draft and critique.", ("reflection",)),
    "graph_style": ("Graph style", "A generator and a reviewer take turns on one conversation (seed 02).",
                    ("reflection",)),
    "test_evaluator": ("Unit-test evaluator", "Run every draft against the unit tests below; failures force "
                       "a revision.", ("reflection",)),
}

LIMIT_LABELS = {
    "max_rounds": "Max rounds", "max_reflection_rounds": "Max judge rounds", "memory_window": "Memory window",
    "max_plan_steps": "Max plan steps", "max_step_rounds": "Max rounds per step",
    "max_step_retries": "Max retries per step",
    "max_replans": "Max re-plans", "max_iterations": "Max critique rounds", "max_llm_calls": "Budget · LLM calls",
    "max_total_tokens": "Budget · tokens",
}
