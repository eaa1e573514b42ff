"""The bundled example traces load, and still match what the offline model plays today."""

import pytest

from agent_core import examples
from agent_core.scenarios import SCENARIOS

MEANINGFUL = ("tool_call", "verdict", "draft", "plan", "limit_reached", "final_answer", "run_failed")


def shape(events):
    return [
        (e.kind, getattr(e, "verdict", None), getattr(e, "name", None), getattr(e, "text", None))
        for e in events
        if e.kind in MEANINGFUL
    ]


def test_every_scenario_has_a_bundled_trace_in_both_languages():
    assert {(sid, lang) for sid, lang, _ in examples.available()} == {
        (sid, lang) for sid in SCENARIOS for lang in ("en", "zh")
    }


@pytest.mark.parametrize("scenario, lang", [(sid, lang) for sid in SCENARIOS for lang in ("en", "zh")])
def test_bundled_trace_matches_a_fresh_offline_run(scenario, lang):
    stored = examples.load(scenario, lang)
    fresh = examples.record(scenario, lang, tokens_per_second=0, first_token_s=0)
    assert shape(stored.events) == shape(fresh.events), "regenerate with: python -m agent_core.examples"
    assert stored.result["reason"] == fresh.result["reason"]
    assert stored.events[-1].elapsed_ms > 1000, "recorded at a watchable pace"
