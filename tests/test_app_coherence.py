"""Offline coherence and clean fits in the pages (issue 15), under AppTest: switches that belong to a
scenario follow it; Compare offers only the presets the offline scripts cover and never says
"passed" for placeholder text; the call bound reads as a worst case beside the count."""

from __future__ import annotations

import functools

from streamlit.testing.v1 import AppTest

from agent_core.scenarios import SCENARIOS
from pages.ui.setup_state import FREE
from tests.app_pages import open_page

P = "pg"
open_playground = functools.partial(open_page, "pages/playground.py")


def on_primes() -> AppTest:
    at = open_playground()
    at.selectbox(key=f"{P}_variant").select("reflection").run()
    at.selectbox(key=f"{P}_scenario").set_value("primes").run()
    assert at.session_state[f"{P}_opt_code_task"] is True and at.session_state[f"{P}_tests"]
    return at


# --- (b) switches that belong to a scenario ----------------------------------------------------------

def test_leaving_primes_for_a_free_task_turns_the_code_switch_off():
    at = on_primes()
    at.selectbox(key=f"{P}_scenario").set_value(FREE).run()
    assert at.session_state[f"{P}_opt_code_task"] is False and not at.session_state[f"{P}_tests"]


def test_primes_edited_as_a_free_task_keeps_its_switches_until_the_task_is_replaced():
    at = on_primes()
    at.button(key=f"{P}_to_free").click().run()
    assert at.session_state[f"{P}_opt_code_task"] is True, "the same task, now editable, is still code"
    task = at.text_area(key=f"{P}_free_task").value
    at.text_area(key=f"{P}_free_task").input(task.replace("100", "500")).run()
    assert at.session_state[f"{P}_opt_code_task"] is True, "a small edit keeps it"
    at.text_area(key=f"{P}_free_task").input("Write a short welcome note for new hires at our bakery.").run()
    assert at.session_state[f"{P}_opt_code_task"] is False and not at.session_state[f"{P}_tests"]
    at.button(key=f"{P}_run").click().run()
    assert not at.exception
    final = next(e["text"] for e in at.session_state[f"{P}_runs"][-1].events if e["kind"] == "final_answer")
    assert not [c for c in at.code if c.language == "python" and c.value == final], "prose is not drawn as Python"
