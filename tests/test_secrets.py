"""An API key never appears in a trace, an export, a report, a log line or an error message.

A recognisable fake key goes in through the environment, through Streamlit-style secrets and as an
argument, is really sent to a local endpoint, and every output is scanned for it.
"""

import io
import logging
import subprocess
import sys

import pytest

import agent_core as ac
from agent_core import trace
from agent_core.cli import main as cli_main
from agent_core.llm import OpenAICompatibleModel
from agent_core.report import markdown_report
from agent_core.settings import load_settings
from tests.fake_openai_server import Fail, FakeOpenAIServer
from tests.test_faults import sensible

KEY = "sk-test-SECRETLEAK-0123456789abcdef"


def scan(*texts):
    for text in texts:
        assert KEY not in text
        assert KEY[8:] not in text  # not even without its prefix


def run_pattern(model, pattern):
    config = ac.configure(pattern=pattern, tools=("query_order",), reflector=True, max_reflection_rounds=1)
    events = list(ac.stream("Has order 10001 arrived?", config, model))
    return config, events


@pytest.mark.parametrize("source", ["environment", "secrets"])
@pytest.mark.parametrize("pattern", ac.PATTERNS)
def test_key_is_used_but_never_written(source, pattern, caplog):
    caplog.set_level(logging.DEBUG)
    with FakeOpenAIServer(default=sensible) as server:
        env = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": KEY} if source == "environment" else {}
        secrets = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": KEY} if source == "secrets" else {}
        settings = load_settings(secrets=secrets, environ=env)
        model = OpenAICompatibleModel(settings.base_url, "fake-model", api_key=settings.api_key)
        config, events = run_pattern(model, pattern)
        sent = [r.headers.get("Authorization", r.headers.get("authorization", "")) for r in server.requests]
    assert sent and all(h == f"Bearer {KEY}" for h in sent), "the key really reached the endpoint"
    exported = trace.Trace.of(config.to_dict(), events, {"default": "fake-model"}).dumps()
    report = markdown_report(config.to_dict(), events, {"default": "fake-model"})
    scan(exported, report, repr(settings), str(settings), caplog.text, repr(model))


def test_an_endpoint_that_echoes_the_key_in_its_error_is_redacted(caplog):
    caplog.set_level(logging.DEBUG)
    with FakeOpenAIServer(default=Fail(401, f"Incorrect API key provided: {KEY}")) as server:
        model = OpenAICompatibleModel(server.url, "fake-model", api_key=KEY, max_retries=0)
        config, events = run_pattern(model, "react")
    failed = events[-2]
    assert failed.kind == "run_failed" and failed.error_type == "auth_error"
    scan(
        failed.message,
        trace.Trace.of(config.to_dict(), events).dumps(),
        caplog.text,
        markdown_report(config.to_dict(), events),
    )


def test_cli_output_and_trace_file_hold_no_key(tmp_path):
    with FakeOpenAIServer(default=sensible) as server:
        out = tmp_path / "t.json"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "agent_core",
                "run",
                "--pattern",
                "plan-execute",
                "--task",
                "Has order 10001 arrived?",
                "--tools",
                "query_order",
                "--base-url",
                server.url,
                "--model",
                "fake-model",
                "--api-key",
                KEY,
                "--show-tokens",
                "--trace-out",
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 0, proc.stderr
    scan(proc.stdout, proc.stderr, out.read_text(encoding="utf-8"))


def test_cli_failure_message_holds_no_key(capsys):
    with FakeOpenAIServer(default=Fail(401, f"bad key {KEY}")) as server:
        code = cli_main(
            ["run", "--task", "hi", "--base-url", server.url, "--model", "m", "--api-key", KEY], out=io.StringIO()
        )
    captured = capsys.readouterr()
    assert code == 1
    scan(captured.out, captured.err)


@pytest.mark.parametrize("pattern", ac.PATTERNS)
def test_the_opentelemetry_export_never_holds_the_key(pattern, tmp_path, monkeypatch, capsys):
    """OTLP/JSON from a run made with the key, and from a trace where a model echoed it."""
    from agent_core import events as ev
    from agent_core import otel

    with FakeOpenAIServer(default=sensible) as server:
        model = OpenAICompatibleModel(server.url, "fake-model", api_key=KEY)
        config, events = run_pattern(model, pattern)
    made = trace.Trace.of(config.to_dict(), events, {"default": "fake-model"})
    scan(otel.dumps(made), otel.dumps(made, secrets=[KEY]))
    echoed = trace.Trace.of(config.to_dict(), [*events[:-1], ev.FinalAnswer(text=f"the key is {KEY}"), events[-1]])
    scan(otel.dumps(echoed, secrets=[KEY]))
    path = tmp_path / "t.json"
    path.write_text(echoed.dumps(), encoding="utf-8")  # a trace file that already holds the key
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out = io.StringIO()
    assert cli_main(["export", "--otlp-json", str(path)], out=out) == 0
    scan(out.getvalue(), capsys.readouterr().err)
