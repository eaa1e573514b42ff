"""The Playground shows the output cap and the time limit with the other limits, and the run view
marks a call cut at the cap and keeps an unfinished call's text, in English and Chinese."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_pages import badges, open_page


@pytest.mark.parametrize(
    "lang,labels,helps",
    [
        ("en", ("Max tokens per reply", "Time limit · seconds"), ("sent as the request's max_tokens", "wall-clock")),
        ("zh", ("单次回复 token 上限", "时间上限 · 秒"), ("max_tokens", "时间上限")),
    ],
)
def test_the_playground_shows_the_output_cap_and_the_time_limit(lang, labels, helps):
    at = open_page("pages/playground.py", sb_lang=lang)
    cap, seconds = at.number_input(key="pg_limit_max_output_tokens"), at.number_input(key="pg_limit_max_seconds")
    assert (cap.label, seconds.label) == labels
    assert cap.value == 1024 and cap.min == 0 and cap.max == 32_768 and seconds.value == 0
    assert helps[0] in cap.help and helps[1] in seconds.help


def _view(lang):  # AppTest runs this function's source alone: imports inside, no annotations
    import streamlit as st

    from agent_core import events as ev
    from pages.ui.render import draw_run

    st.session_state["sb_lang"] = lang  # the run view's labels speak the page's language

    events = [
        ev.RunStarted(pattern="reflection", task="Write a poem.", max_llm_calls=3),
        ev.LlmCall(t=0.5, role="actor", model="m", prompt_tokens=20, completion_tokens=64, finish_reason="length"),
        ev.Draft(t=0.5, version=0, text="Roses are red"),
        ev.LlmCall(
            t=1.0,
            role="critic",
            model="m",
            prompt_tokens=40,
            completion_tokens=3,
            usage_estimated=True,
            partial_text="The draft lack",
        ),
        ev.RunFailed(t=1.0, error_type="stream_cut", message="the stream ended without a finish reason"),
        ev.RunFinished(t=1.0, reason="error", llm_calls=2, total_tokens=127, elapsed_ms=1000.0),
    ]
    draw_run({"pattern": "reflection", "lang": lang}, events, bound=3, key="t")


@pytest.mark.parametrize(
    "lang,cut,unfinished", [("en", "cut at the output cap", "unfinished"), ("zh", "在输出上限处被截断", "未完成")]
)
def test_a_cut_call_is_marked_and_an_unfinished_call_keeps_its_text(lang, cut, unfinished):
    at = AppTest.from_function(_view, args=(lang,), default_timeout=30).run()
    assert not at.exception, [e.message for e in at.exception]
    shown = [label for _c, label in badges(at)] + [
        b.proto.label if hasattr(b, "proto") else str(b) for b in at.get("badge")
    ]
    assert any(cut in s for s in shown), shown
    assert any(unfinished in s for s in shown), shown
    assert any("The draft lack" in c.value for c in at.code)
