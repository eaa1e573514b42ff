"""Whatever a trace holds, opening it on Replay draws a bounded amount (AppTest, the real page).

The files are the drawing corpus of tests/hostile_traces (`drawing()`): 20,000 verdicts in one step
(a real server's script run took 115 s; AppTest did not finish in 60 s), thousands of endings, draft
versions that repeat, a 30,000-step plan, a token flood, 10,000 tool names in one round, lone
surrogates, and megabyte bodies. Each opens without an exception, says what it folded, and what is
folded can be picked and drawn a window at a time. The figure (server CPU per open) is measured by
tests/bench/bench_room.py.
"""

from __future__ import annotations

import json
import time

import pytest
from streamlit.testing.v1 import AppTest

from agent_core import examples
from pages.ui import render
from pages.ui.headline import TRAIL_FIRST, TRAIL_LATEST
from tests.app_pages import open_page
from tests.hostile_traces import drawing, dumps

DRAWING = drawing()
#: A generous bound on one script run that opens a hostile trace (about 0.7 s here; 115 s before).
OPEN_S = 20.0


def open_trace(name: str, data: bytes | None = None) -> tuple[AppTest, float]:
    at = open_page("pages/replay.py")
    at.segmented_control(key="rp_source").set_value("upload").run()
    started = time.perf_counter()
    at.file_uploader(key="rp_upload").set_value(
        (f"{name}.json", data or dumps(DRAWING[name][0]), "application/json")
    ).run()
    seconds = time.perf_counter() - started
    assert not at.exception, [e.message[:300] for e in at.exception]
    assert not [e.value for e in at.error if "cannot be replayed" in e.value]
    return at, seconds


def _verdicts_drawn(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**Feedback** · Verdict ")]


def test_twenty_thousand_verdicts_in_one_step_open_folded_and_each_window_can_be_shown():
    at, seconds = open_trace("many-verdicts")
    assert seconds < OPEN_S, seconds
    folded = [c.value for c in at.caption if "are folded" in c.value]
    # the critique's block: the critic's call, then its 20,000 verdicts
    assert folded and "holds 20,001 events" in folded[0]
    drawn = _verdicts_drawn(at)
    # the call and 39 verdicts in the block, and the newest verdict spelled out in the head
    assert len(drawn) == render.FOLD_HEAD + render.FOLD_WINDOW + render.FOLD_TAIL
    assert any("Verdict 0\\:" in v for v in drawn) and any("Verdict 19999\\:" in v for v in drawn)
    assert not any("Verdict 10009\\:" in v for v in drawn)
    picker = at.selectbox(key="rp_view-fold-1-at")
    assert len(picker.options) > 900  # every window of the middle can be picked
    picker.select_index(500).run()  # the block's events from 10,011 on: verdicts 10,009 to 10,028
    assert not at.exception
    middle = [v for v in _verdicts_drawn(at) if "Verdict 10009\\:" in v or "Verdict 10028\\:" in v]
    assert len(middle) == 2, "the chosen window is drawn"
    assert len(_verdicts_drawn(at)) == render.FOLD_HEAD + render.FOLD_WINDOW + render.FOLD_TAIL
    trail = [h.value for h in at.get("html") if "apg-trail" in h.value]
    assert trail and trail[0].count('class="apg-verdict"') == TRAIL_FIRST + TRAIL_LATEST
    assert "19,973 more" in trail[0]


def test_thousands_of_endings_draw_a_dozen_and_say_how_many_more():
    at, seconds = open_trace("many-endings")
    assert seconds < OPEN_S
    answers = [m for m in at.markdown if m.value == "#### Final answer"]
    assert 0 < len(answers) <= render.END_EVENTS
    assert any("more events of the run's ending" in c.value for c in at.caption)


def test_draft_versions_that_repeat_do_not_collide():
    at, _ = open_trace("repeated-drafts")  # two boxes keyed by version 1 raised StreamlitDuplicateElementKey
    assert any("are folded" in c.value for c in at.caption)


def test_a_plan_of_30000_steps_lists_a_hundred_and_counts_the_rest():
    at, seconds = open_trace("huge-plan")
    assert seconds < OPEN_S
    assert any("14,900 more steps" in m.value for m in at.markdown)  # two plans of 15,000
    assert all(len(t.value) <= render.SIDE_ROWS for t in at.table)
    assert any("more rows are not shown" in c.value for c in at.caption)


def test_a_token_flood_and_ten_thousand_tool_names_open_in_bounded_time():
    for name in ("token-flood", "many-tools"):
        at, seconds = open_trace(name)
        assert seconds < OPEN_S, (name, seconds)
    labels = [e.label for e in at.expander if "Round" in e.label]
    assert labels and max(len(label) for label in labels) < 400 and any("(+" in label for label in labels)


def test_lone_surrogates_are_drawn_as_replacement_characters():
    at, _ = open_trace("surrogates")  # Streamlit could not send them: UnicodeEncodeError on every run
    assert any("\ufffd" in m.value for m in at.markdown)


def test_a_megabyte_body_is_cut_with_a_note():
    data = json.loads(examples.path_of("weather-report", "en").read_bytes())
    thought = next(e for e in data["events"] if e["kind"] == "thought")
    thought["text"] = "word " * 200_000
    at, _ = open_trace("huge-thought", json.dumps(data).encode())
    body = next(m.value for m in at.markdown if m.value.startswith(":material/psychology: word"))
    assert len(body) < 2 * render.BODY_CHARS and "more characters" in body


@pytest.mark.parametrize("name", [n for n, (_d, words) in DRAWING.items() if words])
def test_files_that_would_cost_too_much_are_refused_with_one_message(name):
    at = open_page("pages/replay.py")
    at.segmented_control(key="rp_source").set_value("upload").run()
    at.file_uploader(key="rp_upload").set_value((f"{name}.json", dumps(DRAWING[name][0]), "application/json")).run()
    assert not at.exception
    said = [e.value for e in at.error if "cannot be replayed" in e.value]
    assert len(said) == 1
