"""OpenTelemetry in the app: the Playground's OTLP/JSON download re-opens in Replay as the same run; other
tools' spans open too, with what did not map listed; bad OTLP files get one clear message."""

from __future__ import annotations

import json
import time

import agent_core as ac
from agent_core import examples, otel, trace
from pages.ui import summary
from pages.ui.runs import RunRecord
from tests.test_app_replay import blocks, file_errors, has_final_answer, open_replay, upload, verdicts
from tests.test_otel import foreign_request


def test_the_otlp_download_reopens_in_replay_as_the_same_run():
    config, task = ac.for_scenario("order-99999")
    events = list(ac.stream(task, config, ac.OfflineModel()))
    original = trace.Trace.of(config.to_dict(), events)
    record = RunRecord(
        run_id=original.run_id,
        task=task,
        config=config.to_dict(),
        models={"default": "offline-scripted"},
        bound=ac.call_bound(config),
        events=list(original.events),
        status="done",
        started=time.time(),
    )
    payload = summary.otlp_json(record)  # what the Playground's "Download OTLP/JSON" button serves
    root = next(s for s in json.loads(payload)["resourceSpans"][0]["scopeSpans"][0]["spans"] if "parentSpanId" not in s)
    assert abs(int(root["startTimeUnixNano"]) / 1e9 - record.started) < 1  # placed at the run's real start

    at = open_replay()
    at.segmented_control(key="rp_source").set_value("upload").run()
    upload(at, "otlp-run.json", trace.Trace.of(config.to_dict(), events).dumps().encode())
    as_trace = blocks(at)
    upload(at, "otlp-run.json", payload.encode())
    assert not file_errors(at) and has_final_answer(at)
    assert verdicts(at) == ["REPLAN", "RETRY", "PASS"] and blocks(at) == as_trace
    assert any("Opened from OTLP/JSON" in c.value for c in at.caption)
    assert at.slider(key="rp_pos").value == len(original.events)


def test_another_tools_spans_open_and_the_unmapped_ones_are_listed():
    at = open_replay()
    upload(at, "their-agent.json", json.dumps(foreign_request()).encode())
    assert not file_errors(at)
    [listing] = [e for e in at.expander if "no counterpart here" in e.label]
    assert listing.markdown[0].value == r"- GET /cache \(span\)" + "\n" + r"- cache\.miss \(event on GET /cache\)"
    assert any("drawn as a tool loop" in c.value for c in at.caption)
    assert at.slider(key="rp_pos").value == 5


def test_a_bad_otlp_file_gets_one_clear_message():
    at = open_replay()
    upload(at, "spans.json", b'{"resourceSpans": [{"scopeSpans": {"spans": []}}]}')
    [message] = file_errors(at)
    assert "scopeSpans should be a list" in message
    upload(at, "good.json", otel.dumps(examples.load("primes", "en")).encode())
    assert not file_errors(at) and verdicts(at) == ["REVISE", "PASS"]
