"""The CLI shows life while a call streams, and SIGINT / SIGTERM end a run with reason stop, a
partial trace and the shell's exit codes. Subprocesses against the local fake server."""

from __future__ import annotations

import io
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_core.terminal import DIM, RESET, LiveView
from tests.fake_openai_server import FakeOpenAIServer, Reply

REPO = Path(__file__).resolve().parents[1]
SLOW = Reply("tick " * 400, chunks=400, chunk_delay=0.025)  # about 10 s of streaming


def cli_process(server: FakeOpenAIServer, *argv: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1")
    env.pop("OPENAI_API_KEY", None)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agent_core",
            "run",
            "--pattern",
            "reflection",
            "--task",
            "Write a poem.",
            "--base-url",
            server.url,
            "--model",
            "fake-model",
            *argv,
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_line(stream, needle: str, timeout: float = 30.0) -> list[str]:
    """Lines read from `stream` until one contains `needle` (fails after `timeout` seconds)."""
    seen: list[str] = []
    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if selector.select(timeout=0.2):
            line = stream.readline()
            if not line:
                break
            seen.append(line)
            if needle in line:
                return seen
    raise AssertionError(f"no line with {needle!r} within {timeout} s; saw {seen!r}")


# -- liveness -----------------------------------------------------------------------------------


def test_a_piped_run_shows_a_counter_of_tokens_and_seconds_on_stderr():
    with FakeOpenAIServer(default=Reply("tick " * 120, chunks=120, chunk_delay=0.025)) as server:
        proc = cli_process(server, "--max-calls", "1")
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    counters = [line for line in err.splitlines() if "actor streaming" in line]
    assert 1 <= len(counters) <= 4, err  # about 3 s of streaming, at most a line a second
    assert all("tokens" in c and c.rstrip().endswith(" s") for c in counters)
    before_answer = out.split("final answer:")[0]
    assert "tick tick" not in before_answer, "the streamed text stays out of a piped stdout"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_streamed_text_is_shown_dimmed():
    out, err = Tty(), io.StringIO()
    live = LiveView(out, err)
    live.token("actor", "Hello")
    live.token("actor", " world")
    assert live.end_call() == "Hello world"
    assert out.getvalue() == f"{DIM}Hello{RESET}{DIM} world{RESET}\n" and err.getvalue() == ""


def test_the_counter_waits_a_second_then_shows_at_most_one_line_a_second():
    now = [0.0]
    err = io.StringIO()
    live = LiveView(io.StringIO(), err, clock=lambda: now[0])
    for step in range(40):  # 4 s of tokens, ten a second
        now[0] = step / 10
        live.token("planner", "word ")
    lines = err.getvalue().splitlines()
    # "word " is ~2 tokens; at t = 1.0 s eleven deltas (t = 0.0 ... 1.0) have arrived
    assert lines == [
        "  … planner streaming: ~22 tokens, 1 s",
        "  … planner streaming: ~42 tokens, 2 s",
        "  … planner streaming: ~62 tokens, 3 s",
    ]


# -- signals -------------------------------------------------------------------------------------


@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_mid_stream_stops_the_run_writes_the_partial_trace_and_exits_128_plus_n(tmp_path, signum, code):
    path = tmp_path / "partial.json"
    with FakeOpenAIServer(default=SLOW) as server:
        proc = cli_process(server, "--trace-out", str(path))
        try:
            wait_for_line(proc.stderr, "actor streaming")  # the call is under way
            started = time.monotonic()
            proc.send_signal(signum)
            out, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
        stopped_in = time.monotonic() - started
        time.sleep(0.2)
        hung_up = server.disconnects
    assert proc.returncode == code, err
    assert stopped_in < 5
    assert f"stopped by {signal.Signals(signum).name}" in out
    data = json.loads(path.read_text(encoding="utf-8"))
    kinds = [e["kind"] for e in data["events"]]
    assert kinds[0] == "run_started" and kinds[-2:] == ["llm_call", "run_finished"]
    assert data["events"][-1]["reason"] == "stop" and data["result"]["reason"] == "stop"
    call = data["events"][-2]
    assert call["partial_text"].startswith("tick tick") and call["role"] == "actor"
    assert hung_up == 1, "the HTTP stream was closed, not left to run on"


# -- the bounds on the command line ---------------------------------------------------------------


def cli(*argv: str) -> tuple[int, str]:
    from agent_core.cli import main

    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_output_caps_and_the_time_limit_from_the_command_line(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    path = tmp_path / "t.json"
    code, out = cli(
        "run",
        "--scenario",
        "primes",
        "--max-output-tokens",
        "30",
        "--role-output-tokens",
        "critic=20",
        "--max-seconds",
        "60",
        "--trace-out",
        str(path),
    )
    assert code == 0
    marked = [line for line in out.splitlines() if line.startswith("  llm ")]
    assert marked and all(line.endswith("[cut at max_output_tokens]") for line in marked)
    config = json.loads(path.read_text(encoding="utf-8"))["config"]
    assert (config["max_output_tokens"], config["max_output_tokens_by_role"], config["max_seconds"]) == (
        30,
        {"critic": 20},
        60,
    )
    calls = [e for e in json.loads(path.read_text(encoding="utf-8"))["events"] if e["kind"] == "llm_call"]
    assert all(c["completion_tokens"] <= (20 if c["role"] == "critic" else 30) for c in calls)


@pytest.mark.parametrize(
    "argv,message",
    [
        (("--role-output-tokens", "critic"), "--role-output-tokens takes ROLE=N, got 'critic'"),
        (("--role-output-tokens", "boss=5"), "unknown role 'boss'"),
        (("--max-seconds", "-1"), "max_seconds must be an integer from 0 to 86400, got -1"),
        (("--max-output-tokens", "99999"), "max_output_tokens must be an integer from 0 to 32768, got 99999"),
    ],
)
def test_bad_bounds_are_one_clear_line_and_exit_2(argv, message, capsys):
    code, _ = cli("run", "--task", "x", *argv)
    assert code == 2 and message in capsys.readouterr().err
