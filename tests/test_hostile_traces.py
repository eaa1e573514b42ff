"""Hostile trace files through the Replay page (AppTest): each one either opens with one clear
"cannot be replayed" message or is drawn, never an exception; no markup from the data reaches a
markdown body, label, badge or caption unescaped; the cubic-diff and 20,000-event traces are drawn
with their bounds (a diff too costly to align, the steps paged).
"""

from __future__ import annotations

import functools
import json
import re
import time

import pytest
from streamlit.testing.v1 import AppTest

from agent_core import trace
from pages.ui import text
from tests.app_pages import connect, open_page
from tests.hostile_traces import UNESCAPED, corpus, dumps

CORPUS = corpus()
open_replay = functools.partial(open_page, "pages/replay.py")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)


def upload(at: AppTest, name: str, data: bytes) -> float:
    """Open `data` as a trace file; the seconds the script run took."""
    at.segmented_control(key="rp_source").set_value("upload").run()
    started = time.perf_counter()
    at.file_uploader(key="rp_upload").set_value((name, data, "application/json")).run()
    elapsed = time.perf_counter() - started
    assert not at.exception, [e.message for e in at.exception]
    return elapsed


def rendered(at: AppTest) -> list[str]:
    """Every string the page hands to Streamlit's markdown: bodies, captions, alerts, labels."""
    out = [m.value for m in at.markdown] + [c.value for c in at.caption]
    out += [a.value for kind in ("error", "warning", "info", "success") for a in at.get(kind)]
    out += [e.label for e in at.expander] + [s.label for s in at.status] + [t.label for t in at.tabs]
    return out


def unescaped(at: AppTest) -> list[str]:
    """The rendered strings in which a piece of the payload is still markup (code spans are text)."""
    return [s for s in rendered(at) if any(u in _CODE_SPAN.sub("", s) for u in UNESCAPED)]


def cannot_replay(at: AppTest) -> list[str]:
    return [e.value for e in at.error if "cannot be replayed" in e.value]


@pytest.mark.parametrize("name", [n for n, (_d, words) in CORPUS.items() if words])
def test_a_trace_of_the_wrong_shape_gets_one_clear_message(name):
    data, words = CORPUS[name]
    with pytest.raises(trace.TraceFormatError, match=re.escape(words)):
        trace.loads(dumps(data))
    at = open_replay()
    upload(at, f"{name}.json", dumps(data))
    errors = cannot_replay(at)
    assert len(errors) == 1 and text.escape(words) in errors[0], errors
    assert not [e for e in at.expander if e.label.startswith(("Plan", "Step", "Round"))]


@pytest.mark.parametrize("name", [n for n in CORPUS if n.startswith("labels-")])
def test_markup_in_every_label_field_is_shown_as_text(name):
    data, _ = CORPUS[name]
    at = open_replay()
    upload(at, f"{name}.json", dumps(data))
    assert not cannot_replay(at)
    assert any("ATTACKIMG" in s for s in rendered(at)), "the payload should be on the page, as text"
    assert unescaped(at) == []
    # the badges of a verdict keep their own colour: the payload cannot close one and open another
    bodies = [m.value for m in at.markdown if re.match(r":\w+-badge\[", m.value)]
    assert bodies and all(b.count("-badge[") == 1 for b in bodies), bodies


def test_the_cubic_diff_trace_is_drawn_within_its_bound():
    data, _ = CORPUS["cubic-diff"]
    at = open_replay()
    # today's difflib needed tens of CPU seconds here; the bounded diff a small fraction of one
    seconds = upload(at, "cubic-diff.json", dumps(data))
    assert not cannot_replay(at)
    notes = [c.value for c in at.caption if "too costly to align" in c.value]
    assert notes, "the page says the diff was simplified"
    assert seconds < 10, seconds


def test_forty_costly_drafts_share_one_bound():
    data, _ = CORPUS["many-cubic-drafts"]
    at = open_replay()
    seconds = upload(at, "many-cubic-drafts.json", dumps(data))
    assert not cannot_replay(at)
    assert sum(1 for c in at.caption if "too costly to align" in c.value) >= 30
    assert seconds < 10, seconds  # one bound per diff alone would allow 40 of them


def test_a_20000_event_trace_is_paged_and_nothing_is_lost():
    data, _ = CORPUS["many-events"]
    assert len(data["events"]) == 20_000
    at = open_replay()
    seconds = upload(at, "many-events.json", dumps(data))
    assert not cannot_replay(at)
    rounds = [e for e in at.expander if e.label.startswith("Round")]
    assert 0 < len(rounds) <= 200, len(rounds)
    assert rounds[-1].label.startswith("Round 4999 ")  # the latest page is shown first
    assert any(m.value == "#### Final answer" for m in at.markdown)
    pages = at.selectbox(key="rp_view-page")
    assert len(pages.options) > 1
    pages.select_index(0).run()
    rounds = [e for e in at.expander if e.label.startswith("Round")]
    assert rounds[0].label.startswith("Round 1 ")
    assert seconds < 20, seconds


def test_play_from_the_middle_of_a_20000_event_trace_reaches_the_end():
    data, _ = CORPUS["many-events"]
    at = open_replay()
    upload(at, "many-events.json", dumps(data))
    at.slider(key="rp_pos").set_value(19_990).run()
    started = time.perf_counter()
    at.button(key="rp_play").click().run()  # before: over a minute of counters redrawn per skipped event
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["rp_playing"] is False and at.slider(key="rp_pos").value == 20_000
    assert time.perf_counter() - started < 30


def test_a_hostile_endpoints_tool_name_is_text_in_a_live_runs_labels():
    from tests.fake_openai_server import FakeCall, FakeOpenAIServer, Reply
    from tests.hostile_traces import PAYLOAD
    from tests.test_app_playground import P, choose, open_playground, run

    with FakeOpenAIServer() as server:
        server.push(Reply("Let me look.", tool_calls=(FakeCall(PAYLOAD, "{}"),)), Reply("Final Answer: done"))
        at = open_playground()
        connect(at, server.url)
        choose(at, "react", "Free task — type your own")
        at.text_area(key=f"{P}_free_task").input("Look it up.").run()
        at.multiselect(key=f"{P}_tools").set_value(["weather"]).run()
        run(at)
    assert not at.exception, [e.message for e in at.exception]
    labels = [e.label for e in at.expander] + [s.label for s in at.status]
    assert any("ATTACKIMG" in label for label in labels), labels  # the name is in the round's label, as text
    assert unescaped(at) == []


def test_a_plan_step_may_carry_a_field_of_its_patterns_own_but_nothing_nested():
    # the orchestrator marks a fallback subtask with "fallback": true; a file may not hide a nest there
    plan = {"kind": "plan", "steps": [{"id": 1, "description": "the whole task", "fallback": True}]}
    assert trace.loads(json.dumps({"version": 2, "config": {"pattern": "orchestrator"}, "events": [plan]}).encode())
    plan["steps"][0]["fallback"] = {"deep": [1, 2]}
    with pytest.raises(trace.TraceFormatError, match=r"plan.steps\[0\].fallback should be a string, a number"):
        trace.loads(json.dumps({"version": 2, "config": {"pattern": "orchestrator"}, "events": [plan]}).encode())
