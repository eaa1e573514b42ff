"""The old runner, for `--unsafe-local-sandbox` only: in-process audit-hook guards, no kernel isolation.

Layers, all best effort: a fresh temp dir as cwd, a stripped environment, resource limits,
audit-hook guards in the child (no network, no new processes, no writes outside the temp dir, no
peeking at other processes) and a wall-clock kill of the whole process group. Not a security
boundary: the guards live in the interpreter they guard (see docs/security.md). Meant for a
single-user laptop without bubblewrap, where the only author of the code is the user's own model.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time

from .outcome import TestOutcome, build

FILE_SIZE_LIMIT = 1 << 20  # bytes any one file the code writes may grow to (writes past it fail)
MAX_FILES_WRITTEN = 100  # opens for writing per run; with the size limit this bounds the disk used
ISOLATION = ("in-process audit hooks (unsafe)", "rlimits")


def run_guarded(
    code: str, tests: str, *, entry_point: str | None, timeout_s: float, memory_mb: int, max_output_chars: int
) -> TestOutcome:
    """Run `code` then `tests` in a child guarded by audit hooks (arguments already checked)."""
    payload = {
        "code": code,
        "tests": tests,
        "entry_point": entry_point,
        "max_output_chars": max_output_chars,
        "cpu_s": math.ceil(timeout_s) + 1,
        "memory_mb": memory_mb,
        "fsize": max(FILE_SIZE_LIMIT, 8 * max_output_chars),
        "max_files": MAX_FILES_WRITTEN,
    }
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sandbox-", ignore_cleanup_errors=True) as workdir:
        for name, text in (("runner.py", _RUNNER), ("payload.json", json.dumps(payload))):
            with open(os.path.join(workdir, name), "w", encoding="utf-8") as f:
                f.write(text)
        with (
            open(os.path.join(workdir, "stdout.txt"), "w+b") as out,
            open(os.path.join(workdir, "stderr.txt"), "w+b") as err,
        ):
            # Limits are set by the runner itself, not preexec_fn: preexec_fn is unsafe in threaded
            # parents such as Streamlit. -I: no user site, no PYTHON* variables, no cwd on sys.path.
            proc = subprocess.Popen(
                [sys.executable, "-I", "runner.py", "payload.json"],
                cwd=workdir,
                env=_child_env(workdir),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            timed_out = _wait_then_kill_group(proc, timeout_s)
            stdout, stderr = _read_capped(out, max_output_chars), _read_capped(err, max_output_chars)
        records = _read_records(os.path.join(workdir, "result.jsonl"))
    duration_ms = int((time.monotonic() - started) * 1000)
    try:
        return build(records, proc.returncode, timed_out, timeout_s, memory_mb, stdout, stderr, duration_ms, ISOLATION)
    except (KeyError, TypeError, ValueError, AttributeError):  # the code under test scribbled on the records
        return TestOutcome(
            passed=False,
            status="error",
            summary="the sandbox's result records were corrupted (did the code write to the runner's files?)",
            details=stdout,
            duration_ms=duration_ms,
            isolation=ISOLATION,
        )


def _child_env(workdir: str) -> dict[str, str]:
    # An allow-list built from scratch: nothing of the parent's (API keys above all) is inherited.
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": workdir,
        "TMPDIR": workdir,
        "PYTHONHASHSEED": "0",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    if "LD_LIBRARY_PATH" in os.environ:  # some Python builds cannot start without it
        env["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
    return env


def _wait_then_kill_group(proc: subprocess.Popen, timeout_s: float) -> bool:
    """Wait up to `timeout_s`, then kill the child's whole process group; True if it timed out."""
    deadline = time.monotonic() + timeout_s
    # WNOWAIT leaves the child unreaped, so its pid (= the group id) cannot be reused before killpg.
    while True:
        exited = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        if exited or time.monotonic() >= deadline:
            break
        time.sleep(0.01)
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # also takes any stragglers the code managed to start
    except ProcessLookupError:
        pass
    proc.wait()
    return not exited


def _read_capped(f, limit: int) -> str:
    """A backstop for bytes written past the runner's own cap (os.write to fd 1, say)."""
    limit += 100  # room for the runner's note
    f.seek(0)
    raw = f.read(4 * limit)  # a character is at most 4 bytes in UTF-8
    size = f.seek(0, os.SEEK_END)
    text = raw.decode("utf-8", "replace")
    if len(text) > limit or size > len(raw):
        return text[:limit] + f"\n[... output truncated: {size} bytes in all]"
    return text


def _read_records(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    if lines and not lines[-1].endswith("}"):
        lines.pop()  # a line cut short by a kill
    return [json.loads(line) for line in lines]


# The child's side, written next to the payload and run as a script: it must not import agent_core.
_RUNNER = r'''
import ast, json, linecache, os, resource, sys, traceback, types, unittest

with open(sys.argv[1], encoding="utf-8") as f:
    p = json.load(f)
ROOT = os.path.realpath(os.getcwd())
RESULT = os.open("result.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
RESULTS = []


def emit(kind, **fields):
    """Records go out one line at a time, so the parent knows how far a killed run got."""
    if kind == "test":
        RESULTS.append(fields)
    os.write(RESULT, (json.dumps({"kind": kind, **fields}) + "\n").encode("utf-8", "replace"))


def clip(text, limit=1500):
    return text if len(text) <= limit else text[:limit] + " ..."


class CappedWriter:
    """Stands in for sys.stdout/stderr: writes through until the cap, then only counts."""
    encoding, errors = "utf-8", "replace"
    def __init__(self, fd, cap):
        self.fd, self.left = fd, cap
    def write(self, s):
        s = str(s)
        keep = s[:max(self.left, 0)]
        if keep:
            os.write(self.fd, keep.encode("utf-8", "replace"))
            self.left -= len(keep)
        if len(keep) < len(s) and self.left >= 0:
            os.write(self.fd, b"\n[... output capped by the sandbox at %d characters]\n" % p["max_output_chars"])
            self.left = -1
        return len(s)
    def flush(self):
        pass
    def isatty(self):
        return False


def set_limits():
    cpu = p["cpu_s"]
    for which, soft, hard in ((resource.RLIMIT_CPU, cpu, cpu + 1), (resource.RLIMIT_AS, p["memory_mb"] << 20, None),
                              (resource.RLIMIT_FSIZE, p["fsize"], None), (resource.RLIMIT_NPROC, 64, None),
                              (resource.RLIMIT_NOFILE, 64, None), (resource.RLIMIT_CORE, 0, None)):
        try:
            resource.setrlimit(which, (soft, soft if hard is None else hard))
        except (ValueError, OSError):
            pass  # e.g. a hard limit already lower than ours


def install_guards():
    """Audit hooks cannot be removed, so user code cannot switch these off (short of memory tricks)."""
    realpath, isdir, getpid = os.path.realpath, os.path.isdir, os.getpid
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    no_process = frozenset({"os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                            "subprocess.Popen", "os.killpg", "pty.spawn", "ctypes.dlsym", "ctypes.call_function"})
    path_args = {"os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.rename": (0, 1), "os.link": (1,),
                 "os.symlink": (1,), "os.chmod": (0,), "os.chown": (0,), "os.truncate": (0,), "os.utime": (0,),
                 "shutil.rmtree": (0,)}
    own_proc = {"self", "thread-self", str(getpid())}
    files_written = [0]

    def inside(path):
        if isinstance(path, int):
            return True  # an fd: it was checked when it was opened
        real = realpath(os.fsdecode(path))
        return real == ROOT or real.startswith(ROOT + "/") or real == "/dev/null"

    def hook(event, args):
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int):
                return
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(flags & write_flags)
            if (writing or (mode is None and isdir(path))) and not inside(path):
                # os.open of an outside directory is refused too: with dir_fd it would be a way around
                raise PermissionError(f"writing outside the sandbox directory is disabled: {os.fsdecode(path)}")
            files_written[0] += writing
            if files_written[0] > p["max_files"]:
                raise PermissionError(f"the sandbox allows at most {p['max_files']} files opened for writing")
            parts = realpath(os.fsdecode(path)).split("/")
            if len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit() and parts[2] not in own_proc:
                raise PermissionError("reading other processes' /proc entries is disabled in the sandbox")
        elif event.startswith("socket."):
            raise PermissionError("network access is disabled in the sandbox")
        elif event in no_process:
            raise PermissionError(f"{event} is disabled in the sandbox (no new processes, no native calls)")
        elif event == "import" and args[0] == "_posixsubprocess":  # a re-import would undo the stub below
            raise PermissionError("re-importing _posixsubprocess is disabled in the sandbox")
        elif event == "os.kill" and args[0] != getpid():
            raise PermissionError("signalling other processes is disabled in the sandbox")
        elif event in path_args and not all(inside(args[i]) for i in path_args[event]):
            raise PermissionError(f"{event} outside the sandbox directory is disabled")

    def refuse(*args, **kwargs):
        raise PermissionError("starting processes is disabled in the sandbox")
    import _posixsubprocess  # multiprocessing forks through this without raising an audit event
    _posixsubprocess.fork_exec = refuse
    sys.addaudithook(hook)


def compile_source(text, filename):
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)  # source lines in tracebacks
    return compile(text, filename, "exec")


def user_traceback(exc):
    """The traceback without the runner's own frames."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
    return "".join(["Traceback (most recent call last):\n", *traceback.format_list(frames),
                    *traceback.format_exception_only(type(exc), exc)])


def deepest_line(exc, filename):
    """(lineno, text) of the deepest frame in `filename`, e.g. the failing assert inside check()."""
    found = (None, None)
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == filename:
            found = (lineno, linecache.getline(filename, lineno).strip())
    return found


class Abort(Exception):
    def __init__(self, status, summary, exc=None):
        super().__init__(summary)
        self.status, self.summary, self.exc = status, summary, exc


def run_test(source, thunk):
    emit("start", source=source)
    try:
        got = thunk()
    except MemoryError as exc:
        raise Abort("memory", f"ran out of memory in `{clip(source, 120)}`", exc)
    except AssertionError as exc:
        line, text = deepest_line(exc, "<tests>")[1], str(exc)
        message = f"failing assertion: {line}{f': {text}' if text else ''}" if line and line != source else text
        emit("test", source=source, ok=False, message=clip(message))
        return
    except (Exception, SystemExit) as exc:
        message = f"raised {type(exc).__name__}: {exc}\n{user_traceback(exc)}"
        emit("test", source=source, ok=False, message=clip(message))
        return
    emit("test", source=source, ok=got is not False, message="" if got is not False else "(the check returned False)")


def statement_thunk(node, source, ns):
    """Run one statement; `assert a == b` evaluates each side once so a failure can say what it got."""
    if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 \
            and isinstance(node.test.ops[0], ast.Eq):
        left = compile(ast.Expression(node.test.left), "<tests>", "eval")
        right = compile(ast.Expression(node.test.comparators[0]), "<tests>", "eval")
        msg = node.msg and compile(ast.Expression(node.msg), "<tests>", "eval")
        def thunk():
            got, want = eval(left, ns), eval(right, ns)
            if not got == want:
                note = f"{eval(msg, ns)}; " if msg else ""
                raise AssertionError(note + clip(f"got {got!r}, expected {want!r}", 600))
        return thunk
    code = compile(ast.Module([node], []), "<tests>", "exec")
    return lambda: exec(code, ns)


def is_test(node):
    """Asserts, statements holding asserts, and calls like `check(f)` or `test_x()` are tests; the rest is setup."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        name = getattr(node.value.func, "id", getattr(node.value.func, "attr", ""))
        if name == "check" or name.startswith("test"):
            return True
    return any(isinstance(n, ast.Assert) for n in ast.walk(node))


def run_statements(body, tests_src, ns):
    for node in body:
        source = ast.get_source_segment(tests_src, node) or ""
        if is_test(node):
            run_test(source, statement_thunk(node, source, ns))
        else:
            try:
                exec(compile(ast.Module([node], []), "<tests>", "exec"), ns)
            except MemoryError as exc:
                raise Abort("memory", "ran out of memory while setting up the tests", exc)
            except BaseException as exc:
                raise Abort("error", f"the test setup `{clip(source, 120)}` raised {type(exc).__name__}: {exc}", exc)


def run_check(check, candidate, tests_src, ns):
    """HumanEval: each statement of check's body is a test, with `candidate` bound to the draft."""
    node = next(n for n in ast.parse(tests_src).body if isinstance(n, ast.FunctionDef) and n.name == "check")
    try:
        for stmt in node.body:
            compile(ast.Module([stmt], []), "<tests>", "exec")  # `return` and the like only work in a function
        if not node.args.args:
            raise SyntaxError("check takes no argument")
    except SyntaxError:
        return run_test("check(candidate)", lambda: check(candidate))
    ns[node.args.args[0].arg] = candidate
    run_statements(node.body, tests_src, ns)


def run_unittest_cases(ns):
    for case in [v for v in ns.values() if isinstance(v, type) and issubclass(v, unittest.TestCase)]:
        for test in unittest.defaultTestLoader.loadTestsFromTestCase(case):
            run_test(test.id().removeprefix("solution."), test.debug)  # debug() raises instead of collecting


def main():
    draft_src, tests_src, entry_point = p["code"], p["tests"], p["entry_point"]
    try:
        draft = compile_source(draft_src, "<draft>")
    except SyntaxError as exc:
        raise Abort("error", f"SyntaxError in the draft, line {exc.lineno}: {exc.msg}: `{(exc.text or '').strip()}`")
    module = types.ModuleType("solution")  # a real module, so dataclasses, pickle and `from solution import` work
    sys.modules["solution"] = module
    ns = module.__dict__
    try:
        exec(draft, ns)
    except MemoryError as exc:
        raise Abort("memory", "ran out of memory while loading the draft", exc)
    except BaseException as exc:
        line = deepest_line(exc, "<draft>")[0]
        raise Abort("error", f"the draft raised {type(exc).__name__} at line {line} while loading: {exc}", exc)
    if entry_point and not callable(ns.get(entry_point)):
        raise Abort("error", f"the draft does not define a function `{entry_point}`")
    tests = ast.parse(tests_src)
    compile_source(tests_src, "<tests>")
    if entry_point and any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in tests.body):
        run_statements([n for n in tests.body if not is_test(n)], tests_src, ns)
        run_check(ns["check"], ns[entry_point], tests_src, ns)
        return
    run_statements(tests.body, tests_src, ns)
    called = {n.func.id for n in ast.walk(tests) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    for node in tests.body:  # pytest-style test functions nobody called
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test") and node.name not in called:
            run_test(f"{node.name}()", ns[node.name])
    run_unittest_cases(ns)


set_limits()
sys.dont_write_bytecode = True  # imports made by the code must not leave .pyc files outside the temp dir
install_guards()
sys.stdout, sys.stderr = CappedWriter(1, p["max_output_chars"]), CappedWriter(2, p["max_output_chars"])
try:
    main()
except Abort as abort:
    trace = clip(user_traceback(abort.exc), 3000) if abort.exc else ""
    emit("done", status=abort.status, summary=abort.summary, traceback=trace)
else:
    failed = [r for r in RESULTS if not r["ok"]]
    if not RESULTS:
        emit("done", status="error", summary="the tests ran but contained no assertions or test cases")
    elif not failed:
        emit("done", status="passed", summary=f"all {len(RESULTS)} tests passed")
    else:
        listed = "; ".join(clip(" ".join((f"{r['source']} ({r['message'].splitlines()[0]})" if r["message"]
                                          else r["source"]).split()), 200) for r in failed[:3])
        more = f"; and {len(failed) - 3} more" if len(failed) > 3 else ""
        emit("done", status="failed", summary=f"{len(failed)} of {len(RESULTS)} tests failed: {listed}{more}")
os._exit(0)  # without waiting for threads the code may have left running
'''
