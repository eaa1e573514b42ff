"""Property-based: every pattern survives arbitrary model output and keeps its promises.

Whatever the model says — random text, random JSON, tool calls to unknown tools with broken
arguments, verdicts with wrong types, plans with zero or hundreds of steps, huge drafts — a run ends
with `final_answer` or `run_failed` then `run_finished`, never raises out of the generator, fails
only with the core's own error codes, and never makes more LLM calls than its bound.
"""

import importlib.util
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agent_core as ac
from agent_core import errors
from agent_core import events as ev
from agent_core.mock_tools import TOOLS
from agent_core.testing import Say, ScriptedModel

PATTERNS = [
    p for p in ac.PATTERNS if importlib.util.find_spec(f"agent_core.patterns.{p.replace('-', '_')}") is not None
]

CORE_CODES = {cls.code for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.AgentError)}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)

verdict_json = st.fixed_dictionaries(
    {},
    optional={
        "passed": json_values,
        "verdict": st.sampled_from(["PASS", "RETRY", "REPLAN", "REVISE", "pass", "?"]) | json_values,
        "feedback": json_values,
        "analysis": json_values,
        "suggestion": json_values,
    },
).map(json.dumps)

plan_json = st.builds(
    lambda n, tool, critical: json.dumps(
        {"steps": [{"id": i + 1, "description": f"step {i}", "tool": tool, "critical": critical} for i in range(n)]}
    ),
    st.sampled_from([0, 1, 2, 500]),
    st.sampled_from([None, "search", "nope", 7]),
    json_values,
)

tool_calls = st.lists(
    st.tuples(
        st.sampled_from([*TOOLS, "unknown_tool", ""]),
        st.one_of(json_values.map(json.dumps), st.text(max_size=40), st.just("x" * 2500)),
    ),
    max_size=3,
)

replies = st.one_of(
    st.text(max_size=200).map(Say),
    json_values.map(lambda v: Say(json.dumps(v))),
    verdict_json.map(Say),
    plan_json.map(Say),
    st.builds(lambda t, calls: Say(t, tuple(calls)), st.text(max_size=50), tool_calls),
    st.just(Say("Final Answer: " + "x" * 100_000)),
    st.just(Say("<script>alert(1)</script> {{{ }}} ```")),
)


@pytest.mark.parametrize("pattern", PATTERNS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=st.lists(replies, min_size=1, max_size=12), reask=st.booleans(), lang=st.sampled_from(["en", "zh"]))
def test_any_model_output_ends_cleanly_within_the_bound(pattern, script, reask, lang):
    position = iter(range(10_000))
    model = ScriptedModel.forever(lambda request: script[next(position) % len(script)])
    config = ac.configure(
        pattern=pattern,
        lang=lang,
        tools=("search", "query_order"),
        repair_reask=reask,
        max_rounds=4,
        max_reflection_rounds=2,
        reflector=True,
        max_iterations=3,
    )
    events = list(ac.stream("task", config, model))
    assert events[0].kind == "run_started" and events[-1].kind == "run_finished"
    assert events[-2].kind in ("final_answer", "run_failed")
    assert model.calls <= ac.call_bound(config)
    failures = [e for e in events if isinstance(e, ev.RunFailed)]
    assert all(f.error_type in CORE_CODES for f in failures), failures
