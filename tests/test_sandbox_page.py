"""The Eval page when the sandbox is missing (a clear message, en + zh) or deliberately opted out of."""

from __future__ import annotations

import pytest

from agent_core.sandbox import launcher
from tests.app_pages import open_page


def _no_bwrap():
    raise launcher.LaunchError("bubblewrap (bwrap) is not installed")


@pytest.mark.parametrize("lang, said", [("en", "sandbox unavailable, the code was not run"), ("zh", "沙箱无法启动")])
def test_without_a_sandbox_the_eval_page_says_why_and_how_to_fix_it(monkeypatch, lang, said):
    monkeypatch.delenv("AGENT_PLAYGROUND_UNSAFE_SANDBOX", raising=False)
    monkeypatch.setattr(launcher, "bwrap_path", _no_bwrap)
    at = open_page("pages/eval.py", sb_lang=lang)
    at.multiselect(key="ev_patterns").set_value(["reference"]).run()
    at.button(key="ev_run").click().run(timeout=60)
    assert not at.exception, [e.message for e in at.exception]
    errors = " ".join(e.value for e in at.error).replace("\\", "")  # the page escapes Markdown
    assert said in errors and "apt-get install bubblewrap" in errors
    assert at.session_state["ev_rows"] == [] and at.session_state["ev_job"] is None


def test_the_unsafe_opt_in_shows_a_warning_banner_and_still_judges(monkeypatch):
    monkeypatch.setenv("AGENT_PLAYGROUND_UNSAFE_SANDBOX", "1")
    monkeypatch.setattr(launcher, "bwrap_path", _no_bwrap)
    at = open_page("pages/eval.py")
    assert any("Unsafe local sandbox is on" in w.value for w in at.warning)
    at.multiselect(key="ev_patterns").set_value(["reference"]).run()
    at.number_input(key="ev_limit").set_value(1).run()
    at.button(key="ev_run").click().run(timeout=60)
    assert not at.exception, [e.message for e in at.exception]
    assert [r["passed"] for r in at.session_state["ev_rows"]] == [True]


def test_without_the_opt_in_there_is_no_banner(monkeypatch):
    monkeypatch.delenv("AGENT_PLAYGROUND_UNSAFE_SANDBOX", raising=False)
    at = open_page("pages/eval.py")
    assert not any("Unsafe local sandbox" in w.value for w in at.warning)
