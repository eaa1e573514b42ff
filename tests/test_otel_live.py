"""Live OpenTelemetry export to a local OTLP/HTTP receiver started by the test: the spans and
attributes arrive, through the official SDK; a dead collector leaves the run untouched; without the
SDK the live path says so and does nothing else."""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import otel, settings, trace
from agent_core.cli import main as cli_main
from agent_core.otel import live
from agent_core.otel.mapping import spans_of

pytest.importorskip(
    "opentelemetry.sdk.trace",
    reason="the optional extra is not installed (pip install -r requirements-otel.txt; CI installs it)",
)
service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
KEY = "sk-test-OTELLEAK-0123456789abcdef"


class Receiver:
    """An OTLP/HTTP collector on 127.0.0.1: POST /v1/traces, protobuf or JSON; keeps every span."""

    def __init__(self) -> None:
        self.spans: list = []
        self.bodies: list[bytes] = []
        self.paths: list[str] = []
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                received.paths.append(self.path)
                received.bodies.append(body)
                request = service.ExportTraceServiceRequest()
                if self.headers.get("Content-Type", "").startswith("application/json"):
                    from google.protobuf import json_format

                    json_format.Parse(body, request)
                else:
                    request.ParseFromString(body)
                received.spans += [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
                reply = service.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):  # keep the test output clean
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def dead_url() -> str:
    """A port on 127.0.0.1 where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def attrs(span) -> dict:
    out = {}
    for a in span.attributes:
        which = a.value.WhichOneof("value")
        out[a.key] = (
            list(v.string_value for v in a.value.array_value.values)
            if which == "array_value"
            else getattr(a.value, which)
        )
    return out


def run_exported(url: str, scenario: str = "order-99999", secrets=()) -> tuple[list[ev.Event], live.RunExporter]:
    config, task = ac.for_scenario(scenario)
    exporter, why_not = live.exporter_for(url, f"live-{scenario}", config.to_dict(), secrets)
    assert why_not is None
    events = []
    for event in ac.stream(task, config, ac.OfflineModel()):
        events.append(event)
        exporter.add(event)
    return events, exporter


def test_a_runs_spans_arrive_at_a_local_collector_with_their_attributes():
    with Receiver() as receiver:
        events, exporter = run_exported(receiver.url)
        assert live.flush(receiver.url, 10)
    config, _task = ac.for_scenario("order-99999")
    expected = spans_of(events, "live-order-99999", config.to_dict(), exporter.builder.start_ns)
    assert set(receiver.paths) == {"/v1/traces"}
    got = {s.span_id.hex(): s for s in receiver.spans}
    assert sorted(got) == sorted(s.span_id for s in expected)  # the same span ids as the file export
    for want in expected:
        span = got[want.span_id]
        assert span.name == want.name and span.parent_span_id.hex() == (want.parent_id or "")
        assert (span.start_time_unix_nano, span.end_time_unix_nano) == (want.start_ns, want.end_ns)
    root = next(s for s in receiver.spans if not s.parent_span_id)
    a = attrs(root)
    assert a["gen_ai.operation.name"] == "invoke_agent" and a["agent_patterns.end_reason"] == "pass"
    chat = next(s for s in receiver.spans if s.name.startswith("chat"))
    c = attrs(chat)
    assert c["gen_ai.request.model"] == "offline-scripted" and c["gen_ai.usage.input_tokens"] > 0
    assert c["gen_ai.response.finish_reasons"] == ["stop"] and json.loads(c["gen_ai.input.messages"])
    steps = [s for s in receiver.spans if s.name.startswith("step ")]
    verdicts = [
        next(attrs(e)["agent_patterns.verdict"] for e in s.events if e.name == "agent_patterns.verdict")
        for s in sorted(steps, key=lambda s: s.start_time_unix_nano)
    ]
    assert verdicts == ["REPLAN", "RETRY", "PASS"]
    assert live.problem(receiver.url) is None


def test_a_dead_collector_leaves_the_run_untouched_and_is_reported():
    url = dead_url()
    config, task = ac.for_scenario("order-99999")
    plain = [e.to_dict() for e in ac.stream(task, config, ac.OfflineModel())]
    started = time.perf_counter()
    events, _exporter = run_exported(url)
    took = time.perf_counter() - started
    assert [{**e.to_dict(), "t": 0, "latency_ms": 0, "elapsed_ms": 0} for e in events] == [
        {**e, "t": 0, "latency_ms": 0, "elapsed_ms": 0} for e in plain
    ]
    assert took < 2.0, "the run waited for the collector"
    assert not live.flush(url, 10)
    assert live.problem(url)


def test_without_the_sdk_the_live_path_says_so_and_does_nothing(monkeypatch):
    monkeypatch.setattr(live, "sdk_available", lambda: False)
    exporter, why_not = live.exporter_for("http://127.0.0.1:9", "r", {"pattern": "react"})
    assert exporter is None and "pip install -r requirements-otel.txt" in why_not
    assert live.exporter_for("", "r", {}) == (None, None)  # no endpoint: nothing to say


def test_the_endpoint_comes_from_secrets_then_the_environment():
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"}
    assert settings.otlp_endpoint(secrets={}, environ=env) == "http://env:4318"
    assert (
        settings.otlp_endpoint(secrets={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://sec:4318"}, environ=env)
        == "http://sec:4318"
    )
    assert (
        settings.otlp_endpoint(secrets={"otel": {"endpoint": "http://table:4318"}}, environ=env) == "http://table:4318"
    )
    assert settings.otlp_endpoint(secrets={}, environ={}) == ""
    assert live.traces_url("http://h:4318/") == "http://h:4318/v1/traces"
    assert live.traces_url("http://h:4318/v1/traces") == "http://h:4318/v1/traces"


def test_no_key_reaches_the_collector():
    config, task = ac.for_scenario("primes")
    with Receiver() as receiver:
        exporter, _ = live.exporter_for(receiver.url, "k", config.to_dict(), secrets=[KEY])
        for event in ac.stream(task, config, ac.OfflineModel()):
            if isinstance(event, ev.FinalAnswer):  # a model that echoed the key
                event = ev.FinalAnswer(t=event.t, text=f"use {KEY} to log in")
            exporter.add(event)
        assert live.flush(receiver.url, 10)
    assert receiver.bodies and not any(KEY.encode() in b or KEY[8:].encode() in b for b in receiver.bodies)


def test_cli_run_sends_its_spans_and_its_trace_shares_the_run_id(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    path = tmp_path / "t.json"
    with Receiver() as receiver:
        code = cli_main(
            ["run", "--scenario", "primes", "--otlp-endpoint", receiver.url, "--trace-out", str(path)],
            out=io.StringIO(),
        )
    assert code == 0 and "spans sent to" in capsys.readouterr().err
    saved = trace.loads(path.read_bytes())
    root = next(s for s in receiver.spans if not s.parent_span_id)
    assert root.trace_id.hex() == otel.mapping.trace_id_of(saved.run_id)
    assert sorted(s.name for s in receiver.spans) == sorted(
        s.name for s in spans_of(saved.events, saved.run_id, saved.config)
    )


def test_cli_run_with_a_dead_collector_still_succeeds(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", dead_url())
    assert cli_main(["run", "--scenario", "primes"], out=io.StringIO()) == 0
    assert "OpenTelemetry export failed" in capsys.readouterr().err


# --- the app ---------------------------------------------------------------------------------------


def test_a_playground_run_goes_out_live_and_a_dead_collector_is_noted_once(monkeypatch):
    from agent_core.otel.mapping import trace_id_of
    from tests.test_app_playground import choose, open_playground, record, run

    with Receiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        at = open_playground()
        choose(at, "reflection", "primes")
        run(at)
        assert live.flush(receiver.url, 10)
        finished = record(at)
        assert isinstance(finished.events[-1], ev.RunFinished)
    assert {s.trace_id.hex() for s in receiver.spans} == {trace_id_of(finished.run_id)}
    assert sorted(s.name for s in receiver.spans) == sorted(
        s.name for s in spans_of(finished.typed_events(), finished.run_id, finished.config)
    )
    assert not [w for w in at.warning if "OpenTelemetry" in w.value]

    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", dead_url())
    run(at)
    assert isinstance(record(at).events[-1], ev.RunFinished) and record(at).events[-1].reason == "pass"
    live.flush(settings.otlp_endpoint(), 10)
    at.run()
    [warning] = [w for w in at.warning if "OpenTelemetry export to" in w.value]
    at.run()
    assert not [w for w in at.warning if "OpenTelemetry export to" in w.value]  # said once
