"""Forged PASS, as a class: the draft never holds the tests (nor anything derived from them), and the
tests' names and builtins are their own. The attacks are tests/hostile_tasks/peek.jsonl and
shadow.jsonl (run by test_sandbox_hostile.py); here: controls that show those attacks would work
if the harness let them, what the draft's process can see, and every test style still working."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from agent_core.sandbox import launcher, run_python_tests

CORPUS = Path(__file__).parent / "hostile_tasks"


@pytest.fixture(autouse=True)
def kernel_sandbox(monkeypatch):
    monkeypatch.delenv("AGENT_PLAYGROUND_UNSAFE_SANDBOX", raising=False)


def attack(cls: str, name: str) -> dict:
    for line in (CORPUS / f"{cls}.jsonl").read_text(encoding="utf-8").splitlines():
        task = json.loads(line)
        if task["task_id"] == f"hostile/{cls}/{name}":
            return task
    raise KeyError(name)


def judge(task: dict, *, code: str | None = None, tests: str | None = None):
    return run_python_tests(
        task["prompt"] + task["canonical_solution"] if code is None else code,
        task["test"] if tests is None else tests,
        entry_point=task["entry_point"],
    )


# --- (a) the draft never holds the tests --------------------------------------------------------


@pytest.mark.parametrize("name", ["gc_walk_at_call_time", "gc_walk_at_load_time", "stdin_and_descriptors"])
def test_a_peeking_draft_finds_nothing(name):
    outcome = judge(attack("peek", name))
    assert (outcome.passed, outcome.status) == (False, "failed")
    assert "expected-7c1e0b5a93d24f68', expected" not in outcome.summary  # it answered without the secret


@pytest.mark.parametrize("name", ["gc_walk_at_call_time", "gc_walk_at_load_time", "harness_frames_and_payload"])
def test_the_same_scan_passes_when_the_tests_are_in_the_drafts_memory(name):
    """The control: the scans are not blind. With the check's source planted in the draft's own
    memory (as the whole payload was before the fork moved), each finds the expected value."""
    task = attack("peek", name)
    planted = f"PLANTED = {task['test']!r}\n"
    if name == "harness_frames_and_payload":  # it looks where the harness kept the payload
        planted = f"p = {{'tests': {task['test']!r}}}\n"
    outcome = judge(task, code=planted + task["prompt"] + task["canonical_solution"])
    assert outcome.passed, outcome


def test_the_drafts_process_holds_no_descriptor_but_its_own_and_no_test_derived_payload():
    code = """import os, sys
def look():
    fds = {}
    for name in os.listdir('/proc/self/fd'):
        try:
            fds[int(name)] = os.readlink('/proc/self/fd/' + name)
        except OSError:
            pass
    frame, keys = sys._getframe(), set()
    while frame is not None:
        for value in (*frame.f_locals.values(), *frame.f_globals.values()):
            if type(value) is dict:
                keys.update(k for k in value if type(k) is str)
        frame = frame.f_back
    return [fds, os.read(0, 100), sorted(os.environ), sys.argv, open('/proc/1/cmdline', 'rb').read(),
            'tests' in keys, 'code' in keys]
"""
    tests = f"""fds, stdin, env, argv, cmdline, has_tests, has_code = look()
assert fds[0] == '/dev/null' and stdin == b''
assert len(fds) == 5 and all(v.startswith('pipe:') for k, v in fds.items() if k != 0)
assert env == {sorted({*launcher.environment(), "PWD"})!r} and argv == ['-c']
assert b'look()' not in cmdline and b'fds' not in cmdline
assert has_code and not has_tests
"""
    outcome = run_python_tests(code, tests)  # (bwrap's --chdir adds PWD to the allow-list)
    assert outcome.passed and outcome.tests_run == 5, outcome.summary


def _named(marker: bytes) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm", "rb") as f:
                if f.read().strip() == marker:
                    found.append(pid)
        except OSError:
            pass
    return found


def test_a_run_killed_at_its_timeout_leaves_no_sandbox_behind_even_when_its_draft_sleeps():
    """The harness must die with bwrap: the uid drop before the payload clears `--die-with-parent`'s
    death signal, and a harness waiting on a sleeping draft then outlived its run by the sleep."""
    code = (
        "import ctypes, time\nctypes.CDLL(None).prctl(15, b'sleeper-7c1e0b', 0, 0, 0)\n"  # PR_SET_NAME
        "def nap():\n    time.sleep(120)\n"
    )
    outcome = run_python_tests(code, "assert nap() is None\n", timeout_s=1)
    assert outcome.status == "timeout"
    deadline = time.monotonic() + 5
    while _named(b"sleeper-7c1e0b") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _named(b"sleeper-7c1e0b") == []


# --- (b) the tests' names are their own -------------------------------------------------------------


def test_a_shadow_is_reachable_only_when_the_tests_ask_the_draft_for_it():
    """The control: the draft's `abs` is a working function; the tests get it only by name through
    `solution`, never as the builtin they meant."""
    task = attack("shadow", "abs")
    assert not judge(task).passed
    explicit = "from solution import abs as drafts_abs\nassert drafts_abs(solve(2) - 4.0) < 1e-6\n"
    assert judge(task, tests=explicit).passed


def test_every_test_style_still_sees_what_it_needs_of_the_draft():
    code = """import math
from math import sqrt
from collections import OrderedDict
LIMIT = 10

def poly(xs, x):
    return sum(c * math.pow(x, i) for i, c in enumerate(xs))

def find_zero(xs):
    return -xs[0] / xs[1]

def helper(x):
    return x * 2
"""
    humaneval = (
        "METADATA = {}\n\ndef check(candidate):\n    import random\n"
        "    assert math.fabs(poly([1, 2], candidate([1, 2]))) < 1e-6\n"
        "    assert sqrt(16) == 4 and OrderedDict(a=1)['a'] == 1\n"
    )
    outcome = run_python_tests(code, humaneval, entry_point="find_zero")
    assert outcome.passed and outcome.tests_run == 2, outcome
    plain = "assert helper(LIMIT) == 20\nassert abs(helper(-1)) == 2\nassert isinstance(helper(1), int)\n"
    assert run_python_tests(code, plain).passed
    unittest_style = """import unittest
from dataclasses import dataclass

@dataclass
class Case:
    x: int
    want: int

class TestHelper(unittest.TestCase):
    def test_double(self):
        for case in (Case(1, 2), Case(3, 6)):
            self.assertEqual(helper(case.x), case.want)

if __name__ == "__main__":
    unittest.main()
"""
    outcome = run_python_tests(code, unittest_style)
    assert outcome.passed and outcome.tests_run == 1, outcome
    pytest_style = "def test_helper():\n    assert helper(2) == 4\n\ndef test_limit():\n    assert LIMIT == 10\n"
    outcome = run_python_tests(code, pytest_style)
    assert outcome.passed and outcome.tests_run == 2
    star = (
        "from solution import *\nassert helper(1) == 2 and LIMIT == 10\nimport solution\nassert solution.LIMIT == 10\n"
    )
    assert run_python_tests(code, star).passed


def test_from_solution_import_star_brings_no_builtin_shadow():
    code = "def abs(x):\n    return 0\n\ndef solve(x):\n    return x\n"
    tests = "from solution import *\nassert abs(solve(-3)) == 3\n"
    assert run_python_tests(code, tests).passed


def test_an_entry_point_the_task_names_like_a_builtin_is_the_drafts():
    """The task's author chose the name, so the tests mean the draft's function."""
    code = "def sorted(xs):\n    return list(reversed(xs))\n"
    assert run_python_tests(code, "assert sorted([1, 2, 3]) == [3, 2, 1]\n", entry_point="sorted").passed
    assert not run_python_tests(
        code, "assert len(sorted([1, 2, 3])) == 3 and sorted([1]) == [2]\n", entry_point="sorted"
    ).passed


def test_a_draft_exception_keeps_its_name_but_not_a_control_flow_meaning():
    code = "def solve(x):\n    if x < 0:\n        raise ValueError('negative')\n    raise StopIteration\n"
    caught = (
        "def check(candidate):\n    try:\n        candidate(-1)\n        assert False\n"
        "    except ValueError as exc:\n        assert 'negative' in str(exc)\n"
    )
    assert run_python_tests(code, caught, entry_point="solve").passed
    outcome = run_python_tests(code, "assert list(map(solve, [1, 2])) == []\n", entry_point="solve")
    assert not outcome.passed and "StopIteration" in outcome.summary
