"""The Replay page under AppTest: a bundled trace opens whole; the slider and the step buttons move
through it; Play runs it to the end on its own clock; every kind of bad file gets one clear message
and leaves the page working; a Compare export opens lane by lane; Fork puts the run's configuration
and prompts into the Playground. No model is ever needed.
"""

from __future__ import annotations

import functools
import json

import pytest
from streamlit.testing.v1 import AppTest

import agent_core as ac
from agent_core import examples, trace
from pages.ui import setup_state, text
from tests.app_pages import badges, open_page

open_replay = functools.partial(open_page, "pages/replay.py")


def blocks(at: AppTest) -> list[str]:
    """The labels of the run view's step blocks, in order (the main area's: the sidebar has its own)."""
    return [e.label for e in at.main.expander if e.label not in ("Limits & switches", "Prompts")]


def verdicts(at: AppTest) -> list[str]:
    return [label for _colour, label in badges(at) if label in ("PASS", "REVISE", "RETRY", "REPLAN")]


def position(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith(("Event ", "Before the first")))


def file_errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error if "cannot be replayed" in e.value]


def has_final_answer(at: AppTest) -> bool:
    return any(m.value == "#### Final answer" for m in at.markdown)


def upload(at: AppTest, name: str, data: bytes) -> None:
    at.segmented_control(key="rp_source").set_value("upload").run()
    at.file_uploader(key="rp_upload").set_value((name, data, "application/json")).run()
    assert not at.exception, [e.message for e in at.exception]


# --- a bundled example ----------------------------------------------------------------------------


def test_a_bundled_trace_opens_whole_and_the_slider_steps_through_it():
    at = open_replay()
    shown = examples.load("order-99999", "en")
    n = len(shown.events)
    assert at.selectbox(key="rp_example").value == "order-99999.en"
    assert at.slider(key="rp_pos").value == n and at.slider(key="rp_pos").max == n
    assert verdicts(at) == ["REPLAN", "RETRY", "PASS"] and has_final_answer(at)
    whole = blocks(at)

    at.slider(key="rp_pos").set_value(10).run()
    # the time is the bundled trace's own clock (it moves a little when the traces are regenerated)
    tenth = shown.events[9]
    assert position(at) == f"Event 10 of 25 · {tenth.t:.1f} s · reflector · REPLAN"
    assert verdicts(at) == ["REPLAN"] and not has_final_answer(at)
    assert len(blocks(at)) < len(whole)

    at.button(key="rp_back").click().run()
    assert at.slider(key="rp_pos").value == 9 and position(at).startswith("Event 9 of 25 ·")
    assert verdicts(at) == []  # the REPLAN was event 10
    at.button(key="rp_forward").click().run()
    at.button(key="rp_forward").click().run()
    assert at.slider(key="rp_pos").value == 11 and verdicts(at) == ["REPLAN"]

    at.slider(key="rp_pos").set_value(0).run()
    assert position(at) == "Before the first of 25 events" and blocks(at) == []
    assert at.button(key="rp_back").disabled
    at.slider(key="rp_pos").set_value(n).run()
    assert blocks(at) == whole and at.button(key="rp_forward").disabled


def test_every_bundled_example_is_offered_by_title_and_language_and_opens():
    at = open_replay()
    box = at.selectbox(key="rp_example")
    assert len(box.options) == len(examples.available()) == 2 * len(ac.SCENARIOS)  # every scenario, en and zh
    assert box.options[0].endswith(" · English") and box.options[-1].endswith(" · 中文")
    at.selectbox(key="rp_example").select("primes.zh").run()
    assert any(c.value.startswith("**Task** · 编写一个 Python 函数") for c in at.caption)
    assert verdicts(at) == ["REVISE", "PASS"] and has_final_answer(at)
    assert at.slider(key="rp_pos").value == len(examples.load("primes", "zh").events)


def test_play_at_4x_runs_to_the_end_on_the_traces_clock():
    at = open_replay()
    at.selectbox(key="rp_example").select("dentist-booking.en").run()
    at.slider(key="rp_pos").set_value(0).run()
    at.segmented_control(key="rp_speed").set_value(4).run()
    at.button(key="rp_play").click().run()
    assert not at.exception
    n = len(examples.load("dentist-booking", "en").events)
    assert at.session_state["rp_playing"] is False and at.slider(key="rp_pos").value == n
    assert has_final_answer(at) and at.button(key="rp_play") is not None


def test_replay_needs_no_model_whatever_the_sidebar_says(monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    at = open_replay()
    at.sidebar.selectbox(key="sb_provider").select("DeepSeek").run()
    at.slider(key="rp_pos").set_value(3).run()
    assert not at.exception and not file_errors(at)
    assert at.slider(key="rp_pos").value == 3 and not at.button(key="rp_fork").disabled


# --- files ----------------------------------------------------------------------------------------


def _trace_json(**changes: object) -> bytes:
    data = json.loads(examples.path_of("weather-report", "en").read_text(encoding="utf-8"))
    data.update(changes)
    return json.dumps(data).encode()


def _missing(field: str) -> bytes:
    data = json.loads(_trace_json())
    del data[field]
    return json.dumps(data).encode()


BAD_FILES = {
    "not JSON": (b"{this is not json", "Expecting property name enclosed in double quotes"),  # the parser's words
    "wrong version": (_trace_json(version=3), "trace version 3 is not supported"),
    "missing fields": (_missing("events"), "missing field(s) events"),
    "too big": (b" " * (trace.MAX_BYTES + 1) + b"{}", "traces are limited to 5 MB"),
    "not a trace at all": (b"[1, 2, 3]", "lane 1: a trace is a JSON object"),
    "a bad event": (_trace_json(events=[{"kind": "no_such_event"}]), "event 0:"),
    "a config no run could have": (_trace_json(config={"pattern": "telepathy"}), "unknown pattern 'telepathy'"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_file_gets_one_clear_message_and_the_page_still_works(case):
    data, message = BAD_FILES[case]
    at = open_replay()
    upload(at, "bad.json", data)
    assert len(at.error) == 1 and text.escape(message) in at.error[0].value
    assert at.error[0].value.startswith("**bad\\.json cannot be replayed:**")
    assert blocks(at) == [] and not [b for b in at.button if b.key == "rp_fork"]

    upload(at, "good.json", _trace_json())  # another file replaces it
    assert not file_errors(at) and has_final_answer(at) and verdicts(at) == ["REVISE", "REVISE"]
    at.segmented_control(key="rp_source").set_value("example").run()
    assert not file_errors(at) and has_final_answer(at)


def test_a_compare_export_opens_lane_by_lane():
    lanes = []
    for i, sid in enumerate(("primes", "order-99999")):
        config, task = ac.for_scenario(sid)
        events = list(ac.stream(task, config, ac.OfflineModel()))
        lanes.append({"name": f"{'AB'[i]} · {sid}", **trace.Trace.of(config.to_dict(), events).to_dict()})
    export = json.dumps({"version": trace.VERSION, "kind": "comparison", "lanes": lanes}).encode()
    at = open_replay()
    upload(at, "compare.json", export)
    assert at.selectbox(key="rp_lane").options == ["A · primes", "B · order-99999"]
    assert verdicts(at) == ["REVISE", "PASS"]
    at.selectbox(key="rp_lane").select_index(1).run()
    assert verdicts(at) == ["REPLAN", "RETRY", "PASS"] and has_final_answer(at)
    assert at.slider(key="rp_pos").value == len(lanes[1]["events"])


# --- fork -----------------------------------------------------------------------------------------


def test_fork_puts_the_bundled_run_into_the_playground():
    at = open_replay()
    at.selectbox(key="rp_example").select("vacuum-cats.zh").run()
    at.button(key="rp_fork").click().run()
    assert not at.exception
    assert at.session_state["pg_variant"] == "plan-execute-reflector"
    assert at.selectbox(key="pg_scenario").value == "vacuum-cats"
    assert at.session_state["sb_lang"] == "zh"
    assert at.button(key="pg_run") is not None and not at.button(key="pg_run").disabled


def test_fork_carries_a_free_task_its_limits_and_its_edited_prompt():
    config = ac.configure(
        pattern="reflection",
        max_iterations=5,
        use_trajectory=True,
        prompts={"critic": "Review {task} and {draft} harshly; reply with JSON verdict."},
    )
    task = "Write a haiku about queues."
    events = list(ac.stream(task, config, ac.OfflineModel()))
    at = open_replay()
    upload(at, "haiku.json", trace.Trace.of(config.to_dict(), events).dumps().encode())
    at.button(key="rp_fork").click().run()
    assert not at.exception
    assert at.session_state["pg_variant"] == "reflection" and at.session_state["pg_scenario"] == setup_state.FREE
    assert at.text_area(key="pg_free_task").value == task
    assert at.number_input(key="pg_limit_max_iterations").value == 5
    assert at.toggle(key="pg_opt_use_trajectory").value is True
    critic = at.text_area(key=setup_state.prompt_key("pg", "reflection", "critic"))
    assert critic.value == config.prompts["critic"]
