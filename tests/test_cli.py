"""The command line runs the seeds' scenarios offline and writes traces."""

import io
import json
import subprocess
import sys

import pytest

from agent_core import trace
from agent_core.cli import main


def cli(*argv):
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_scenarios_lists_every_id():
    code, out = cli("scenarios")
    ids = [line.split()[0] for line in out.splitlines()]
    # every scenario of every registered pattern, in display order (each pattern's folder adds its own)
    from agent_core.scenarios import SCENARIOS

    assert code == 0 and ids == list(SCENARIOS)
    assert {
        "weather-report",
        "dentist-booking",
        "order-99999",
        "logistics-sf0000000",
        "vacuum-cats",
        "airx-watchfit-order",
        "primes",
        "code-review",
        "report-criteria",
        "umbrella-one-call",
    } <= set(ids)


def test_weather_report_shows_seed01_run_and_writes_the_trace(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    path = tmp_path / "t.json"
    code, out = cli(
        "run",
        "--pattern",
        "react",
        "--scenario",
        "weather-report",
        "--reflection-rounds",
        "2",
        "--trace-out",
        str(path),
    )
    assert code == 0
    lines = out.splitlines()
    assert any("tool  weather(" in line for line in lines) and any("tool  search(" in line for line in lines)
    verdicts = [line for line in lines if line.strip().startswith("verdict judge")]
    assert [v.split()[2] for v in verdicts] == ["REVISE:", "REVISE:"]
    assert "limit max_reflection_rounds=2" in out and "finished (cap)" in out
    loaded = trace.loads(path.read_text(encoding="utf-8"))
    assert loaded.result["reason"] == "cap" and loaded.config["max_reflection_rounds"] == 2


def test_dentist_booking_runs_the_text_protocol(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code, out = cli("run", "--pattern", "react", "--scenario", "dentist-booking", "--lang", "zh")
    assert code == 0
    assert [line.split("(")[0].split()[-1] for line in out.splitlines() if line.startswith("  tool  ")] == [
        "find_dentist",
        "book_appointment",
        "add_calendar_event",
    ]
    assert "BK-4821" in out


def test_out_of_range_limit_is_one_clear_line_and_a_nonzero_exit(capsys):
    code, _ = cli("run", "--task", "x", "--max-rounds", "99")
    assert code == 2
    assert capsys.readouterr().err.strip() == "error: max_rounds must be an integer from 1 to 30, got 99"


def test_unreachable_endpoint_fails_with_a_reason_and_keeps_the_trace(tmp_path, monkeypatch):
    pytest.importorskip("openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = tmp_path / "t.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_core",
            "run",
            "--task",
            "hi",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--trace-out",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: ") and "127.0.0.1:9" in proc.stderr
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [e["kind"] for e in data["events"]][-2:] == ["run_failed", "run_finished"]
