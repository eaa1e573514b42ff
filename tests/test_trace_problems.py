"""A bad trace file is explained in the reader's language: the core raises TraceFormatError
with a typed reason and an English message; Replay names the reason from the catalogue and keeps the
message as the technical detail. Every reason the core can raise has words in both languages."""

from __future__ import annotations

import json
import re

import pytest

from agent_core import trace
from agent_core.errors import TRACE_PROBLEMS, TraceFormatError
from agent_core.otel import importing
from pages.ui import i18n, text, trace_problems
from tests.app_pages import open_page
from tests.test_app_replay import BAD_FILES, _trace_json, upload

#: each kind of bad file and the reason the core gives it
REASONS = {
    "not JSON": "not_json",
    "wrong version": "version",
    "missing fields": "not_trace",
    "too big": "too_large",
    "not a trace at all": "not_trace",
    "a bad event": "bad_event",
    "a config no run could have": "config",
}


def test_every_reason_has_words_in_both_languages():
    for lang in i18n.LANGS:
        table = i18n.words("trace_problems", lang)
        assert set(TRACE_PROBLEMS) <= set(table), lang
    zh = i18n.words("trace_problems", "zh")
    assert all(re.search(r"[\u4e00-\u9fff]", zh[r]) for r in TRACE_PROBLEMS)


@pytest.mark.parametrize(
    "data, reason",
    [
        (b"{nope", "not_json"),
        (b"[" * 50_000 + b"]" * 50_000, "too_deep"),
        (b"[1]", "not_trace"),
        (_trace_json(version=99), "version"),
        (_trace_json(events=[{"kind": "no_such_event"}]), "bad_event"),
    ],
)
def test_the_core_types_what_is_wrong(data, reason):
    with pytest.raises(TraceFormatError) as caught:
        trace.loads(data)
    assert caught.value.reason == reason


def test_an_otlp_file_with_no_spans_is_typed_too():
    with pytest.raises(TraceFormatError) as caught:
        importing.loads(json.dumps({"resourceSpans": []}))
    assert caught.value.reason == "no_run"


def test_an_unknown_reason_reads_as_the_generic_one():
    assert TraceFormatError("odd", "no-such-reason").reason == "invalid"
    said = trace_problems.say(TraceFormatError("odd", "no-such-reason"), "zh")
    assert said.startswith(i18n.t("trace_problems.invalid", "zh")) and "odd" in said


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_replay_in_chinese_names_the_problem_and_keeps_the_detail(case):
    data, detail = BAD_FILES[case]
    # opened on the upload source: AppTest re-runs a picker's format_func outside the script run, where
    # the example picker's Chinese labels read as English (an AppTest artifact, not the browser's)
    at = open_page("pages/replay.py", sb_lang="zh", rp_source="upload")
    upload(at, "bad.json", data)
    assert len(at.error) == 1
    shown = at.error[0].value
    assert shown.startswith("**bad\\.json 无法回放") and "cannot" not in shown
    assert i18n.t(f"trace_problems.{REASONS[case]}", "zh") in shown  # the reason, in Chinese
    assert "技术细节" in shown and text.escape(detail) in shown  # the core's English message stays
