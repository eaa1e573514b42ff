"""Every byte judged code can hold is inside one stated bound per run, measured from outside.

A run's bound is `sandbox.memory_bound_mb(memory_mb)` (256 + 64 + 32 = 352 MB by default): the
cgroup's memory limit, which counts all the run's processes and every page of its tmpfs. /tmp is the
only writable storage (64 MB), /dev stores nothing (the old `--dev` was an unbounded tmpfs: 400 MB
went into /dev/shm on the host's memory), and no site-packages the sandbox can see is readable (a
venv over pyenv or conda left its base interpreter's importable).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from agent_core import sandbox
from agent_core.sandbox import cgroups, launcher, run_python_tests

APP = Path(__file__).resolve().parent.parent
MB = 1 << 20


@pytest.fixture
def measured(monkeypatch):
    """The memory files of each run's cgroup, read from outside just before the group is removed."""
    seen: list[dict[str, int]] = []
    leave = cgroups.Group.__exit__

    def exit_(self, *exc):
        files = {}
        for path in self.dirs:
            for name in (
                "memory.max_usage_in_bytes",
                "memory.peak",
                "memory.limit_in_bytes",
                "memory.max",
                "memory.memsw.limit_in_bytes",
                "memory.swap.max",
            ):
                try:
                    files[name] = int(Path(path, name).read_text().strip().replace("max", str(1 << 62)))
                except (OSError, ValueError):
                    pass
        seen.append(files)
        return leave(self, *exc)

    monkeypatch.setattr(cgroups.Group, "__exit__", exit_)
    return seen


def _need_memory_cgroup(outcome) -> None:
    if not any("memory" in layer for layer in outcome.isolation):
        pytest.skip("no writable memory cgroup here: memory is bounded per process only (docs/security.md)")


def _peak(files: dict[str, int]) -> int:
    return files.get("memory.max_usage_in_bytes", files.get("memory.peak", 0))


def _limit(files: dict[str, int]) -> int:
    return files.get("memory.limit_in_bytes", files.get("memory.max", 0))


def test_the_runs_memory_limit_is_the_stated_bound_with_no_swap_on_top(measured):
    outcome = run_python_tests("x = 1\n", "assert x == 1\n", memory_mb=256)
    _need_memory_cgroup(outcome)
    assert sandbox.memory_bound_mb(256) == 256 + launcher.TMPFS_BYTES // MB + sandbox.HARNESS_MB == 352
    files = measured[-1]
    assert _limit(files) == 352 * MB
    if "memory.memsw.limit_in_bytes" in files:  # v1: memory + swap together
        assert files["memory.memsw.limit_in_bytes"] == 352 * MB
    if "memory.swap.max" in files:  # v2: swap alone
        assert files["memory.swap.max"] == 0
    assert _peak(files) < sandbox.HARNESS_MB * MB  # the harness's allowance covers an idle run


def test_the_work_dirs_files_are_charged_to_the_run(measured):
    fill = (
        "def fill():\n"
        "    for i in range(60):\n"
        "        with open(f'/tmp/f{i}', 'wb') as f:\n"
        "            f.write(b'x' * (1 << 20))\n"
        "    return 60\n"
    )
    outcome = run_python_tests(fill, "assert fill() == 60\n")
    assert outcome.passed, outcome.details
    _need_memory_cgroup(outcome)
    assert _peak(measured[-1]) >= 60 * MB


def test_the_work_dir_holds_at_most_its_tmpfs_and_dev_holds_nothing():
    code = (
        "import errno, os\n"
        "def fill():\n"
        "    written, error = 0, None\n"
        "    for i in range(200):\n"
        "        try:\n"
        "            with open(f'/tmp/f{i}', 'wb') as f:\n"
        "                f.write(b'x' * (1 << 20))\n"
        "        except OSError as exc:\n"
        "            error = errno.errorcode.get(exc.errno)\n"
        "            break\n"
        "        written += 1\n"
        "    return written, error\n"
        "def dev():\n"
        "    return sorted(os.listdir('/dev')), os.path.exists('/dev/shm')\n"
    )
    tests = (
        "written, error = fill()\n"
        "assert 56 <= written <= 64 and error in ('ENOSPC', 'EFBIG'), (written, error)\n"
        "assert dev() == (['fd', 'full', 'null', 'random', 'stderr', 'stdin', 'stdout', 'urandom', 'zero'], False)\n"
    )
    outcome = run_python_tests(code, tests)
    assert outcome.passed, outcome.details


HOARD = r'''
import os, time
def hoard():
    """Fill /tmp, try /dev/shm and /dev, then four processes touching 200 MB each: 860 MB in all.
    Returns the signal that ended each process (0: it lived)."""
    for i in range(60):
        with open(f"/tmp/f{i}", "wb") as f:
            f.write(b"x" * (1 << 20))
    for path in ("/dev/shm/big", "/dev/big"):
        try:
            with open(path, "wb") as f:
                f.write(b"x" * (100 << 20))
        except OSError:
            pass
    kids = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:
            try:
                block = b"\x01" * (200 << 20)  # touched: resident, not just reserved
                time.sleep(3)
            finally:
                os._exit(0)
        kids.append(pid)
    return [os.WTERMSIG(s) if os.WIFSIGNALED(s) else 0 for s in (os.waitpid(pid, 0)[1] for pid in kids)]
'''


def test_a_draft_hoarding_files_and_memory_in_many_processes_stays_inside_the_bound(measured):
    outcome = run_python_tests(HOARD, "print(hoard())\n", timeout_s=20)
    _need_memory_cgroup(outcome)
    files = measured[-1]
    assert _peak(files) <= _limit(files) == sandbox.memory_bound_mb(256) * MB
    signals = eval(outcome.details.split("--- stdout ---\n", 1)[1].strip())
    assert 9 in signals, signals  # the kernel killed processes at the run's bound, not the code's luck


GREEDY = r'''
import os, time
def greedy():
    """60 MB of files, a child holding 120 MB, then 200 MB in the draft's own process: past the bound, and
    the draft's process is the largest when it is reached."""
    for i in range(60):
        with open(f"/tmp/f{i}", "wb") as f:
            f.write(b"x" * (1 << 20))
    if os.fork() == 0:
        block = b"\x01" * (120 << 20)
        time.sleep(5)
        os._exit(0)
    time.sleep(0.5)
    block = b"\x02" * (200 << 20)
    return len(block)
'''


def test_a_draft_killed_at_the_runs_bound_is_reported_as_out_of_memory(measured):
    outcome = run_python_tests(GREEDY, "assert greedy() == 200 << 20\n", timeout_s=20)
    _need_memory_cgroup(outcome)
    assert _peak(measured[-1]) <= sandbox.memory_bound_mb(256) * MB
    assert outcome.status == "memory", (outcome.status, outcome.summary)
    assert "the run reached its 352 MB bound" in outcome.summary


def test_code_inside_the_bound_is_not_disturbed_by_it():
    code = (
        "def work():\n"
        "    block = b'\\x01' * (150 << 20)\n"
        "    with open('/tmp/data', 'wb') as f:\n"
        "        f.write(b'y' * (1 << 20))\n"
        "    return len(block) >> 20\n"
    )
    outcome = run_python_tests(code, "assert work() == 150\n", timeout_s=20)
    assert outcome.passed, outcome.details


def _base_site_packages() -> str:
    return sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix})["purelib"]


PACKAGES_PROBE = r'''
import os, sys
def probe(base_site):
    """What of the base interpreter's packages can be listed or imported (pytest sits in its site-packages)?"""
    seen = {}
    for path in (base_site, "/usr/lib/python3/dist-packages"):
        if os.path.isdir(path):
            seen[path] = os.listdir(path)
    sys.path.insert(0, base_site)
    try:
        import pytest
        seen["import pytest"] = pytest.__file__
    except ImportError:
        pass
    return {k: v for k, v in seen.items() if v}
'''


def test_no_site_packages_is_readable_inside():
    base = _base_site_packages()
    if not Path(base, "pytest").is_dir():
        pytest.skip("pytest is not in the base interpreter's site-packages")
    outcome = run_python_tests(PACKAGES_PROBE, f"assert probe({base!r}) == {{}}\n", entry_point="probe")
    assert outcome.passed, outcome.details


def test_in_a_venv_the_base_interpreters_site_packages_is_masked_too(tmp_path):
    """The venv's python runs the base interpreter inside, whose stdlib (mounted) holds site-packages."""
    base = _base_site_packages()
    if not Path(base, "pytest").is_dir():
        pytest.skip("pytest is not in the base interpreter's site-packages")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    libs = tmp_path / "libs"  # the app's one compiled-in need, outside any site-packages
    libs.mkdir()
    import pyseccomp

    shutil.copy(pyseccomp.__file__, libs)
    script = (
        "import sys\n"
        "assert sys.prefix != sys.base_prefix\n"
        "from agent_core.sandbox import run_python_tests\n"
        f"o = run_python_tests({PACKAGES_PROBE!r}, {f'assert probe({base!r}) == {{}}' + chr(10)!r}, "
        "entry_point='probe')\n"
        "print(o.passed)\n"
        "print(o.details)\n"
    )
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": f"{APP}{os.pathsep}{libs}"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("True"), done.stdout


@pytest.mark.parametrize(
    "code, tests",
    [
        ("import time\ndef nap():\n    time.sleep(30)\n", "nap()\n"),  # killed at its timeout while it sleeps
        (
            "import os, time\ndef bomb():\n    while True:\n        try:\n            os.fork()\n        except OSError:\n"
            "            time.sleep(30)\n",
            "bomb()\n",
        ),  # a fork bomb at its process limit, all asleep
    ],
)
def test_a_killed_runs_cgroup_is_removed_with_it(monkeypatch, code, tests):
    """A run killed at its timeout leaves no cgroup behind: the launcher kills the sandbox's PID 1 while
    bwrap still lives to reap it, and waits for it before the group is removed."""
    made: list[str] = []
    enter = cgroups.Group.__enter__

    def enter_(self):
        group = enter(self)
        made.extend(group.dirs)
        return group

    monkeypatch.setattr(cgroups.Group, "__enter__", enter_)
    outcome = run_python_tests(code, tests, timeout_s=1)
    assert outcome.status in ("timeout", "killed"), outcome.summary
    if not made:
        pytest.skip("no writable cgroup here")
    assert [d for d in made if os.path.exists(d)] == []
