"""The hostile task corpus (tests/hostile_tasks/, one file per attack class), run through the sandbox and the CLI.

A "room" is set up first: dummy API keys in the environment, in a secrets.toml beside a fake app
cwd, and in the memory of a second "session" process; a planted file; a TCP listener. Every task
must then be contained: no file changed outside the work dir, no key in any output, no process
left behind, the victim process and this one unaffected, and a forged PASS reported as FAIL.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agent_core.sandbox import run_python_tests

CORPUS = Path(__file__).parent / "hostile_tasks"
APP = Path(__file__).resolve().parent.parent
KEY = "sk-test-HOSTILEDUMMYKEY-0123456789"
SESSION_KEY = "sk-test-SECONDSESSIONKEY-987654321"
SLEEP_MARK = b"sleep\x00313"
EVIL_C = r"""
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void evil(void) {
    FILE *out = fopen("evil_ran", "w");
    FILE *planted = fopen("@PLANTED@", "a");
    const char *key = getenv("OPENAI_API_KEY");
    if (out) { fprintf(out, "ran; planted %s; key %s", planted ? "OPENED" : "refused", key ? key : "none"); fclose(out); }
    if (planted) { fputs("owned", planted); fclose(planted); }
}
"""


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Room:
    """Everything a hostile task might go after, and the checks that it stayed put."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.planted_dir = tmp / "planted"
        self.planted_dir.mkdir()
        self.planted = self.planted_dir / "planted.txt"
        self.planted.write_text("the original\n")
        self.app_cwd = tmp / "app"
        (self.app_cwd / ".streamlit").mkdir(parents=True)
        (self.app_cwd / ".streamlit" / "secrets.toml").write_text(f'OPENAI_API_KEY = "{KEY}"\n')
        # A second session: a process holding another participant's key in memory only.
        self.victim = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys, time\nkey = sys.stdin.readline()\nprint('ready', flush=True)\ntime.sleep(600)\n",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.victim.stdin.write(SESSION_KEY + "\n")
        self.victim.stdin.flush()
        assert self.victim.stdout.readline().strip() == "ready"
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self.listening = True
        self.listener = threading.Thread(target=self._listen, daemon=True)
        self.listener.start()
        self.library_hex = self._compile_library()
        self.watched = [self.planted, APP / "agent_core" / "__init__.py"]
        self.before = {p: _digest(p) for p in self.watched}

    def _listen(self) -> None:
        while self.listening:
            try:
                self.server.accept()[0].close()
                self.connections += 1
            except (TimeoutError, OSError):
                pass

    def _compile_library(self) -> str:
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            return ""
        source = self.tmp / "evil.c"
        source.write_text(EVIL_C.replace("@PLANTED@", str(self.planted)))
        subprocess.run([cc, "-shared", "-fPIC", "-o", str(self.tmp / "evil.so"), str(source)], check=True)
        return (self.tmp / "evil.so").read_bytes().hex()

    def fill(self, text: str) -> str:
        for name, value in (
            ("@PLANTED_DIR@", self.planted_dir),
            ("@PLANTED@", self.planted),
            ("@APP_CWD@", self.app_cwd),
            ("@APP@", APP),
            ("@VICTIM@", self.victim.pid),
            ("@TEST_PID@", os.getpid()),
            ("@PORT@", self.port),
            ("@SO_HEX@", self.library_hex),
        ):
            text = text.replace(name, str(value))
        return text

    def assert_contained(self, *outputs: str) -> None:
        for text in outputs:
            assert KEY not in text and SESSION_KEY not in text, "a planted key leaked into the output"
        assert {p: _digest(p) for p in self.watched} == self.before, "a file outside the sandbox changed"
        assert sorted(os.listdir(self.planted_dir)) == ["planted.txt"], "a file appeared beside the planted one"
        assert self.victim.poll() is None, "the second session's process died"
        with open(f"/proc/{self.victim.pid}/stat", encoding="ascii") as f:
            assert f.read().rsplit(")", 1)[1].split()[0] != "T", "the second session's process was stopped"
        assert self.connections == 0, "a sandboxed task reached a TCP listener on 127.0.0.1"
        assert _leftovers() == [], "a process started by a task outlived its run"

    def close(self) -> None:
        self.listening = False
        self.listener.join()
        self.server.close()
        self.victim.kill()
        self.victim.wait()


def _leftovers() -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if SLEEP_MARK in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    room = Room(tmp_path_factory.mktemp("room"))
    yield room
    room.close()


@pytest.fixture(autouse=True)
def planted_keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("AGENT_PLAYGROUND_UNSAFE_SANDBOX", raising=False)


def _corpus() -> list[tuple[str, dict]]:
    return [
        (path.stem, json.loads(line))
        for path in sorted(CORPUS.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


@pytest.mark.parametrize("cls, task", _corpus(), ids=[t["task_id"] for _, t in _corpus()])
def test_each_hostile_task_is_contained(room, cls, task):
    code = room.fill(task["prompt"] + task["canonical_solution"])
    outcome = run_python_tests(code, room.fill(task["test"]), entry_point=task["entry_point"], timeout_s=5)
    room.assert_contained(outcome.summary, outcome.details)
    assert not outcome.passed, outcome  # every attack's check fails: none of them gets a PASS
    assert outcome.status in ("failed", "error"), outcome
    if cls == "forged":
        assert outcome.status == "failed" or "draft" in outcome.summary, outcome


def test_the_always_equal_trick_is_flagged(room):
    task = next(t for _, t in _corpus() if t["task_id"] == "hostile/forged/always_equal_object")
    outcome = run_python_tests(task["prompt"] + task["canonical_solution"], task["test"], entry_point="add")
    assert (outcome.passed, outcome.status, outcome.flagged) == (False, "failed", 3)
    assert "`add` returned a Anything that cannot be checked safely" in outcome.summary


def test_a_flag_swallowed_by_a_bare_except_is_still_not_a_pass(room):
    task = next(t for _, t in _corpus() if t["task_id"] == "hostile/forged/swallowed_flag")
    outcome = run_python_tests(task["prompt"] + task["canonical_solution"], task["test"], entry_point="add")
    assert (outcome.passed, outcome.status) == (False, "failed")
    assert outcome.summary.startswith("flagged: `add` returned a Anything")


def test_the_shipped_library_ran_but_only_inside(room):
    """The dlopen attack's constructor does run (native code is allowed); the kernel holds it."""
    if not room.library_hex:
        pytest.skip("no C compiler to build the shipped library")
    task = next(t for _, t in _corpus() if t["task_id"] == "hostile/hook_escapes/dlopen_shipped_library")
    outcome = run_python_tests(
        room.fill(task["prompt"] + task["canonical_solution"]), task["test"], entry_point="attack"
    )
    assert "ran; planted refused; key none" in outcome.summary + outcome.details
    room.assert_contained(outcome.summary, outcome.details)


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.jsonl")), ids=lambda p: p.stem)
def test_the_corpus_through_the_cli(room, path, tmp_path):
    tasks = tmp_path / path.name
    tasks.write_text(room.fill(path.read_text(encoding="utf-8")), encoding="utf-8")
    out_csv = tmp_path / "results.csv"
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(APP)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_core",
            "eval",
            "--tasks",
            str(tasks),
            "--pattern",
            "reference",
            "--out",
            str(out_csv),
        ],
        cwd=room.app_cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    room.assert_contained(proc.stdout, proc.stderr, out_csv.read_text(encoding="utf-8"))
    assert rows and all(row["passed"] in ("False", "false", "0") for row in rows), rows


def test_this_process_was_never_signalled(room):
    assert signal.getsignal(signal.SIGTERM) is not None  # still here, running the last test
    assert room.victim.poll() is None
