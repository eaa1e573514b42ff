"""Every one-click comparison Compare offers on the offline model shows its point: its lanes, played by
the scripts, end differently (call counts, verdicts or answer text). A comparison whose lanes the
scripts would play alike is not worth a click; a comparison the scripts cannot play is not offered.

The presets are read from the page's own list (every pattern's specs, through the registry), so a
new pattern's comparison is covered the day it is registered; the lanes are set and run by the page's
own buttons under AppTest, on the instant offline model.
"""

from __future__ import annotations

import functools

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.patterns import registry
from agent_core.scenarios import SCENARIOS
from pages.ui.lane_presets import PRESETS, uncovered
from tests.app_pages import open_page

open_compare = functools.partial(open_page, "pages/compare.py")


def offered() -> list[tuple[str, str]]:
    """(preset, scenario) for every task on which the offline model plays each of a preset's lanes."""
    out = []
    for name, preset in PRESETS.items():
        tasks = [preset.scenario] if preset.scenario else list(SCENARIOS)
        out += [(name, sid) for sid in tasks if not uncovered(preset, sid)]
    return out


def not_offered() -> list[tuple[str, str]]:
    """(preset, scenario) pairs, one per preset, where some lane has no script: the button is off."""
    out = []
    for name, preset in PRESETS.items():
        tasks = [preset.scenario] if preset.scenario else list(SCENARIOS)
        out += [(name, sid) for sid in tasks if uncovered(preset, sid)][:1]
    return out


def test_every_patterns_comparison_is_on_the_page():
    assert set(registry.presets()) <= set(PRESETS)
    assert {name for name, _ in offered()} >= {"critic", "executor"}  # the two the seeds tell


def signature(record) -> tuple[int, tuple[str, ...], str]:  # noqa: ANN001 - a RunRecord
    """What a person compares between two lanes: calls made, verdicts given, the answer."""
    calls = sum(1 for e in record.events if e.kind == "llm_call")
    verdicts = tuple(e.verdict for e in record.events if e.kind == "verdict")
    answer = next((e.text for e in record.events if e.kind == "final_answer"), "")
    return calls, verdicts, answer


def pick_task(at: AppTest, preset: str, scenario: str) -> None:
    if PRESETS[preset].scenario is None:
        at.selectbox(key="cmp_scenario").set_value(scenario).run()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("preset", "scenario"), offered())
def test_an_offered_comparison_ends_differently_in_each_lane(preset, scenario, lang):
    at = open_compare(sb_lang=lang)
    pick_task(at, preset, scenario)
    button = at.button(key=f"cmp_preset_{preset}")
    assert not button.disabled
    button.click().run()
    at.button(key="cmp_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    records = at.session_state["cmp_comparison"].lanes
    assert len(records) == len(PRESETS[preset].lanes)
    assert all(r.status == "finished" for r in records)
    assert {r.config.get("scenario") for r in records} == {scenario}
    seen = [signature(r) for r in records]
    for i, one in enumerate(seen):
        for j, other in enumerate(seen[i + 1 :], start=i + 1):
            assert one != other, f"{preset} on {scenario}: lanes {i} and {j} play alike offline: {one[:2]}"


@pytest.mark.parametrize(("preset", "scenario"), not_offered())
def test_a_comparison_the_scripts_cannot_play_is_not_offered(preset, scenario):
    at = open_compare()
    pick_task(at, preset, scenario)
    assert at.button(key=f"cmp_preset_{preset}").disabled
