"""Small things a trainer or a stakeholder reads, in English and Chinese: a template named as code
(never escaped inside a code span), Eval's details and placeholders in the page's language, charts
whose labels do not sit on each other, the call bound said plainly, the run's clock while paused and
on a fork, one count of calls, Run within reach, and one clear message for a broken upload."""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_pages import open_page

P = "pg"


def paused_primes(lang: str, *breaks: str) -> AppTest:
    """Reflection on primes in step mode, paused at its first breakpoint."""
    at = open_page("pages/playground.py", sb_lang=lang)
    at.selectbox(key=f"{P}_variant").select("reflection").run()
    at.selectbox(key=f"{P}_scenario").select("primes").run()
    at.toggle(key=f"{P}_step").set_value(True).run()
    if breaks:
        at.multiselect(key=f"{P}_step_breaks").set_value(list(breaks)).run()
    at.button(key=f"{P}_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state[f"{P}_runs"][-1].handle.paused
    return at


# --- a name shown as code is never escaped ----------------------------------------------------------

@pytest.mark.parametrize(("lang", "label"), [("en", "template `initial_code`"), ("zh", "模板 `initial_code`")])
def test_the_pause_names_the_pending_template_as_code_without_a_backslash(lang, label):
    at = paused_primes(lang)  # every call: the first pause is before the actor's draft
    shown = [m.value for m in at.markdown]
    assert any(label in m for m in shown), shown
    assert not any("initial\\_code" in m for m in shown)
