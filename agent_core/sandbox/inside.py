"""The test harness that runs inside the sandbox (sent as source; stdlib only, never imported by the app).

Two processes: this harness runs the tests and alone holds the pipe the results go out on; before
any untrusted code runs it forks the *draft process*, which loads the code under test and answers
calls over a pair of pipes. The tests see proxies for the draft's top-level functions, and values
come back as plain data (see plain.py), so the draft can neither reach the harness's functions nor
write its records, and an object with a lying `__eq__` cannot cross: that test is failed and flagged.
The harness is made non-dumpable, so the draft cannot read or write its memory through /proc.

The draft never holds the tests: the launcher sends them in a second frame on stdin, which the
harness reads only after the fork, on a descriptor the draft's process closes before its code runs.
The tests run in a namespace of their own, with the real builtins: the draft contributes only names
the tests use and never bind themselves, never one that shadows a builtin or a dunder name.
"""

import ast
import builtins
import json
import linecache
import os
import resource
import signal
import struct
import sys
import traceback
import types

try:
    from . import plain
except ImportError:  # inside the sandbox, where the launcher loads plain.py under this name
    import sandbox_plain as plain  # type: ignore[import-not-found,no-redef]

HARNESS_FILES = ("<harness>", "sandbox_plain.py", __file__)
_HEADER = struct.Struct("!I")
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
#: Names the draft can never give the tests: every builtin (`abs`, `isinstance`, `AssertionError`,
#: `print`...), and the ones `site` adds in an ordinary interpreter (the sandbox's runs with -S).
BUILTIN_NAMES = frozenset(dir(builtins)) | {"exit", "quit", "copyright", "credits", "license", "help"}
#: Exceptions the draft may not raise as themselves: they steer the tests' control flow, not report a
#: failure (a StopIteration from `candidate` ends `all(map(...))` early, so it would say True).
_CONTROL_FLOW = (KeyboardInterrupt, GeneratorExit, StopIteration, StopAsyncIteration)
#: The tests' module name (unittest ids start with it); not "__main__", so `unittest.main()` is skipped.
TESTS_MODULE = "tests"


def clip(text, limit=1500):
    return text if len(text) <= limit else text[:limit] + " ..."


def safe_str(value):
    """str() of something the draft made; its __str__ may raise or lie about its type."""
    try:
        return str(value)
    except BaseException:
        return f"<unprintable {type(value).__name__}>"


class CappedWriter:
    """Stands in for sys.stdout/stderr: writes through until the cap, then only counts."""

    encoding, errors = "utf-8", "replace"

    def __init__(self, fd, cap):
        self.fd, self.cap, self.left = fd, cap, cap

    def write(self, s):
        s = str(s)
        keep = s[: max(self.left, 0)]
        if keep:
            os.write(self.fd, keep.encode("utf-8", "replace"))
            self.left -= len(keep)
        if len(keep) < len(s) and self.left >= 0:
            os.write(self.fd, b"\n[... output capped by the sandbox at %d characters]\n" % self.cap)
            self.left = -1
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False


def set_limits(p):
    cpu = p["cpu_s"]
    for which, soft, hard in (
        (resource.RLIMIT_CPU, cpu, cpu + 1),
        (resource.RLIMIT_AS, p["memory_mb"] << 20, None),
        (resource.RLIMIT_FSIZE, p["fsize"], None),
        (resource.RLIMIT_NPROC, p["nproc"], None),
        (resource.RLIMIT_NOFILE, 64, None),
        (resource.RLIMIT_CORE, 0, None),
    ):
        try:
            resource.setrlimit(which, (soft, soft if hard is None else hard))
        except (ValueError, OSError):
            pass  # e.g. a hard limit already lower than ours


def make_undumpable():
    """No /proc/<pid>/mem, fd or environ access to this process from the draft's (same uid) process."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE) failed")


def die_with_bwrap():
    """SIGKILL this process when bwrap (its parent) dies, as `--die-with-parent` had set: the change of
    uid before the payload is read clears that setting, and a run the launcher killed at its timeout
    would otherwise keep its PID namespace (the harness waiting on a draft that sleeps) after bwrap."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(1, signal.SIGKILL, 0, 0, 0) != 0:  # PR_SET_PDEATHSIG
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")


def compile_source(text, filename):
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)  # source lines in tracebacks
    return compile(text, filename, "exec")


def user_traceback(exc):
    """The traceback without the harness's own frames."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename not in HARNESS_FILES]
    return "".join(
        [
            "Traceback (most recent call last):\n",
            *traceback.format_list(frames),
            *traceback.format_exception_only(type(exc), exc),
        ]
    )


def deepest_line(exc, filename):
    """(lineno, text) of the deepest frame in `filename`, e.g. the failing assert inside check()."""
    found = (None, None)
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == filename:
            found = (lineno, linecache.getline(filename, lineno).strip())
    return found


# --- the wire between the two processes -------------------------------------------------------------


def send(fd, data):
    data = _HEADER.pack(len(data)) + data
    while data:
        data = data[os.write(fd, data) :]


def _read_exact(fd, n):
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def receive(fd):
    """One message's bytes; None at end of stream; ValueError past the size limit."""
    header = _read_exact(fd, _HEADER.size)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    if size > plain.MAX_MESSAGE_BYTES:
        raise ValueError("message too large")
    return _read_exact(fd, size)


# --- the draft's process ----------------------------------------------------------------------------


def reference(value):
    """(module, qualname) when `value` is a stdlib object the harness can import itself."""
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if type(module) is not str or type(qualname) is not str or module.partition(".")[0] not in _STDLIB:
        return None
    try:
        found = sys.modules[module]
        for part in qualname.split("."):
            found = getattr(found, part)
    except (KeyError, AttributeError):
        return None
    return (module, qualname) if found is value else None


def manifest(ns):
    """How the harness can see each top-level name: a proxy, a plain value, or a stdlib import."""
    names = {}
    for name, value in list(ns.items()):
        if name.startswith("__"):
            continue
        if isinstance(value, types.ModuleType):
            names[name] = ("module", safe_str(value.__name__))
            continue
        try:
            plain.encode(value)
            names[name] = ("value", value)
            continue
        except (plain.NotPlain, ValueError, TypeError):
            pass
        ref = reference(value)
        if ref:
            names[name] = ("ref", *ref)
        elif callable(value):
            names[name] = ("call",)
    return names


def draft_process(p, requests, replies):
    """Load the draft, describe it, then answer calls until the harness hangs up."""
    module = types.ModuleType("solution")  # a real module, so dataclasses, pickle and `from solution import` work
    sys.modules["solution"] = module
    ns = module.__dict__

    def reply(*message):
        try:
            data = plain.encode(message)
        except plain.NotPlain as exc:
            data = plain.encode(("notplain", exc.type_name))
        if len(data) > plain.MAX_MESSAGE_BYTES:
            data = plain.encode(("toolarge", len(data)))
        send(replies, data)

    try:
        exec(compile_source(p["code"], "<draft>"), ns)
    except MemoryError:
        reply("load_error", "memory", "ran out of memory while loading the draft", "")
        os._exit(0)
    except BaseException as exc:
        line = deepest_line(exc, "<draft>")[0]
        reply(
            "load_error",
            "error",
            f"the draft raised {type(exc).__name__} at line {line} while loading: {clip(safe_str(exc), 300)}",
            clip(user_traceback(exc), 3000),
        )
        os._exit(0)
    reply("manifest", manifest(ns))
    while True:
        data = receive(requests)
        if data is None:
            os._exit(0)
        _, name, args, kwargs = plain.decode(data)
        try:
            value = ns[name](*args, **kwargs)
        except MemoryError:
            reply("raise", "MemoryError", "", "")
            continue
        except BaseException as exc:
            reply("raise", type(exc).__name__, clip(safe_str(exc), 600), clip(user_traceback(exc), 3000))
            continue
        reply("ok", value)


# --- the harness's side -----------------------------------------------------------------------------


class Uncheckable(BaseException):
    """The draft sent back something that is not plain data: the test fails, flagged.

    A BaseException, so test code's `except Exception` does not swallow it."""


class DraftGone(BaseException):
    """The draft's process died or broke the protocol while a test was calling it."""

    def __init__(self, message, status="error"):
        super().__init__(message)
        self.status = status


_REMOTE_TYPES: dict[str, type] = {}  # exception classes made for the draft's, by name


def remote_exception(type_name, message, remote_tb):
    """An exception like the draft's: builtin types are themselves (`except ValueError` works)."""
    cls = getattr(builtins, type_name, None) if type_name.isidentifier() else None
    if not (isinstance(cls, type) and issubclass(cls, BaseException)) or cls in _CONTROL_FLOW:
        name = type_name if type_name.isidentifier() else "DraftError"
        cls = _REMOTE_TYPES.setdefault(name, type(name, (Exception,), {}))
    try:
        exc = cls(message) if message else cls()
    except BaseException:
        exc = _REMOTE_TYPES.setdefault(type_name, type("DraftError", (Exception,), {}))(message)
    exc.remote_traceback = remote_tb
    return exc


class Channel:
    """The harness's end of the draft process's pipes."""

    def __init__(self, pid, requests, replies):
        self.pid, self.requests, self.replies = pid, requests, replies
        self.flagged = []

    def reply(self):
        try:
            data = receive(self.replies)
            if data is None:
                raise self.death()
            message = plain.decode(data)
        except ValueError as exc:
            raise DraftGone(f"the draft's process sent a reply the harness cannot read ({exc})") from None
        if type(message) is not tuple or not message or type(message[0]) is not str:
            raise DraftGone("the draft's process broke the protocol")
        return message

    def death(self):
        """Why the draft's process stopped answering, as the exception to raise."""
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return DraftGone("the draft's process is gone")
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXCPU:
                return DraftGone("the draft used up its CPU time", "timeout")
            return DraftGone(f"the draft's process was killed by {signal.Signals(sig).name}", "killed")
        return DraftGone(f"the draft's process exited with code {os.WEXITSTATUS(status)}")

    def call(self, name, args, kwargs):
        try:
            request = plain.encode(("call", name, args, kwargs))
        except plain.NotPlain as exc:
            raise TypeError(
                f"a {exc.type_name} cannot be passed to the draft: only plain data crosses "
                "to the sandboxed draft process"
            ) from None
        try:
            send(self.requests, request)
        except OSError:
            raise self.death() from None
        message = self.reply()
        kind = message[0]
        if kind == "ok" and len(message) == 2:
            return message[1]
        if kind == "raise" and len(message) == 4 and all(type(m) is str for m in message[1:]):
            if message[1] == "MemoryError":
                raise MemoryError()
            raise remote_exception(*message[1:])
        if kind == "notplain" and len(message) == 2 and type(message[1]) is str:
            note = f"`{name}` returned a {clip(message[1], 60)} that cannot be checked safely"
        elif kind == "toolarge":
            note = f"`{name}` returned a value too large to check"
        else:
            raise DraftGone("the draft's process broke the protocol")
        self.flagged.append(note)
        raise Uncheckable(note)


class Remote:
    """A function of the draft, called in the draft's process."""

    def __init__(self, channel, name):
        self._channel, self.__name__, self.__qualname__ = channel, name, name

    def __call__(self, *args, **kwargs):
        return self._channel.call(self.__name__, args, kwargs)

    def __repr__(self):
        return f"<function {self.__name__} of the draft>"


def close_all_but(keep):
    """Close every descriptor of this process but `keep`: the draft's process inherits nothing else
    (not the result pipe, not the rest of stdin where the tests wait)."""
    try:
        open_fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        open_fds = range(3, 1024)
    for fd in open_fds:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass  # the listing's own descriptor, already closed


def start_draft(p):
    """Fork the draft's process (before the tests are read); return the harness's channel to it."""
    from_harness, to_draft = os.pipe()
    from_draft, to_harness = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            close_all_but({0, 1, 2, from_harness, to_harness})
            draft_process(p, from_harness, to_harness)
        except BaseException:  # a harness bug (the draft's own errors are replies): say where
            traceback.print_exc(file=sys.__stderr__)
            os._exit(70)
        finally:
            os._exit(0)
    os.close(from_harness)
    os.close(to_harness)
    return Channel(pid, to_draft, from_draft)


def load_solution(channel):
    """The draft's module as the harness sees it: its names as proxies, plain values and stdlib imports.

    The draft's process writes the manifest, so it may say anything: a module or stdlib object is
    taken only under its own name (`import math`, `from math import sqrt`), never `import random as
    math`. Tests reach it as `solution` (`from solution import add`); `from solution import *` brings
    no name that shadows a builtin."""
    message = channel.reply()
    if message[0] == "load_error" and len(message) == 4 and all(type(m) is str for m in message[1:]):
        status = message[1] if message[1] in ("memory", "error") else "error"
        raise Abort(status, message[2], text=message[3])
    if message[0] != "manifest" or len(message) != 2 or type(message[1]) is not dict:
        raise DraftGone("the draft's process broke the protocol")
    module = types.ModuleType("solution")
    sys.modules["solution"] = module
    ns, imports = module.__dict__, {}
    for name, entry in message[1].items():
        if (
            type(name) is not str
            or not name.isidentifier()
            or name.startswith("__")
            or type(entry) is not tuple
            or not entry
        ):
            continue
        if entry[0] == "call" and len(entry) == 1:
            ns[name] = Remote(channel, name)
        elif entry[0] == "value" and len(entry) == 2:
            ns[name] = entry[1]
        elif (
            entry[0] in ("module", "ref")
            and len(entry) == (2 if entry[0] == "module" else 3)
            and all(type(e) is str for e in entry[1:])
            and entry[-1].rpartition(".")[2] == name
        ):
            imports[name] = entry[1:]

    def __getattr__(name):  # imported here only when the tests ask: a stdlib import may have side effects
        found = stdlib_object(*imports.pop(name)) if name in imports else None
        if found is None:
            raise AttributeError(f"the draft defines no `{name}`")
        ns[name] = found
        return found

    ns["__getattr__"] = __getattr__
    ns["__all__"] = [name for name in (*ns, *imports) if not name.startswith("__") and name not in BUILTIN_NAMES]
    return module


def bound_names(tree):
    """Every name the tests bind anywhere (any scope: check's body runs statement by statement at top
    level): assignments, deletions, loop and `with` targets, imports, defs, classes, parameters,
    `except ... as`, match captures, `global`/`nonlocal`."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        elif type(getattr(node, "name", None)) is str:  # def, class, except-as, match-as/star, type params
            names.add(node.name)
    return names


def tests_namespace(solution, tree, entry_point):
    """The tests' own globals: the real builtins, and from the draft only the entry point and the names
    the tests use but never bind (the prompt's helpers a HumanEval check calls, say `poly`): never a
    builtin's name (`def abs(x): return 0.0` cannot make `abs(candidate(x) - y) < 1e-6` true), never a
    dunder (`__builtins__`, `__getattr__`), never a module under another module's name."""
    module = types.ModuleType(TESTS_MODULE)  # a real module: dataclasses and pickle of the tests' classes work
    sys.modules[TESTS_MODULE] = module
    ns = module.__dict__
    ns["__builtins__"] = builtins
    bound = bound_names(tree)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for name in sorted(used - bound - BUILTIN_NAMES):
        if not name.startswith("__") and hasattr(solution, name):
            ns[name] = getattr(solution, name)
    if entry_point and entry_point not in bound:  # the task names it, so it may be any name, even `sorted`
        ns[entry_point] = getattr(solution, entry_point)
    return ns


def stdlib_object(module, qualname=""):
    """A stdlib module or object by name, imported here; None for anything else."""
    if module.partition(".")[0] not in _STDLIB or not all(p.isidentifier() for p in module.split(".")):
        return None
    try:
        found = __import__(module, fromlist=["_"] if "." in module else [])
        for part in filter(None, qualname.split(".")):
            found = getattr(found, part)
    except Exception:
        return None
    return found


# --- running the tests (as before the split: one record per test) -----------------------------------


class Abort(Exception):
    def __init__(self, status, summary, exc=None, text=""):
        super().__init__(summary)
        self.status, self.summary, self.exc, self.text = status, summary, exc, text


class Recorder:
    """Records go out one line at a time on the harness's own pipe, so the parent knows how far a
    killed run got."""

    def __init__(self, fd):
        self.fd, self.results = fd, []

    def emit(self, kind, **fields):
        if kind == "test":
            self.results.append(fields)
        send_line = (json.dumps({"kind": kind, **fields}) + "\n").encode("utf-8", "replace")
        while send_line:
            send_line = send_line[os.write(self.fd, send_line) :]


RECORD = None


def run_test(source, thunk):
    RECORD.emit("start", source=source)
    try:
        got = thunk()
    except MemoryError as exc:
        raise Abort("memory", f"ran out of memory in `{clip(source, 120)}`", exc) from exc
    except DraftGone as exc:
        raise Abort(exc.status, f"{exc} while running `{clip(source, 120)}`") from exc
    except Uncheckable as exc:
        RECORD.emit("test", source=source, ok=False, flagged=True, message=clip(str(exc)))
        return
    except AssertionError as exc:
        line, text = deepest_line(exc, "<tests>")[1], safe_str(exc)
        message = f"failing assertion: {line}{f': {text}' if text else ''}" if line and line != source else text
        RECORD.emit("test", source=source, ok=False, message=clip(message))
        return
    except (Exception, SystemExit) as exc:
        remote = getattr(exc, "remote_traceback", "")
        message = f"raised {type(exc).__name__}: {safe_str(exc)}\n{user_traceback(exc)}"
        if remote:
            message += f"\nIn the draft:\n{remote}"
        RECORD.emit("test", source=source, ok=False, message=clip(message))
        return
    ok = got is not False
    RECORD.emit("test", source=source, ok=ok, message="" if ok else "(the check returned False)")


def statement_thunk(node, ns):
    """Run one statement; `assert a == b` evaluates each side once so a failure can say what it got."""
    if (
        isinstance(node, ast.Assert)
        and isinstance(node.test, ast.Compare)
        and len(node.test.ops) == 1
        and isinstance(node.test.ops[0], ast.Eq)
    ):
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
            run_test(source, statement_thunk(node, ns))
            continue
        try:
            exec(compile(ast.Module([node], []), "<tests>", "exec"), ns)
        except MemoryError as exc:
            raise Abort("memory", "ran out of memory while setting up the tests", exc) from exc
        except DraftGone as exc:
            raise Abort(exc.status, f"{exc} while setting up the tests") from exc
        except BaseException as exc:
            raise Abort(
                "error", f"the test setup `{clip(source, 120)}` raised {type(exc).__name__}: {safe_str(exc)}", exc
            ) from exc


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
    unittest = sys.modules.get("unittest")
    if unittest is None:  # the tests never imported it, so they define no cases
        return
    for case in [v for v in ns.values() if isinstance(v, type) and issubclass(v, unittest.TestCase)]:
        for test in unittest.defaultTestLoader.loadTestsFromTestCase(case):
            run_test(test.id().removeprefix(TESTS_MODULE + "."), test.debug)  # debug() raises instead of collecting


def read_held(fd):
    """The payload's second frame (the tests), read from the rest of stdin once the draft is forked."""
    header = _read_exact(fd, _HEADER.size)
    data = header and _read_exact(fd, _HEADER.unpack(header)[0])
    os.close(fd)
    if data is None:
        raise Abort("error", "the sandbox's payload was cut short")
    return json.loads(data)


def run_tests(p, held):
    draft_src, entry_point = p["code"], p["entry_point"]
    try:
        compile(draft_src, "<draft>", "exec")  # in the harness, for the same message whatever the draft does
    except SyntaxError as exc:
        raise Abort(
            "error", f"SyntaxError in the draft, line {exc.lineno}: {exc.msg}: `{(exc.text or '').strip()}`"
        ) from exc
    channel = start_draft(p)  # forked before the tests are read: the draft's memory never held them
    tests_src = read_held(held)["tests"]  # while the draft loads
    solution = load_solution(channel)
    if entry_point and not isinstance(vars(solution).get(entry_point), Remote):
        raise Abort("error", f"the draft does not define a function `{entry_point}`")
    tests = ast.parse(tests_src)
    compile_source(tests_src, "<tests>")
    ns = tests_namespace(solution, tests, entry_point)
    if entry_point and any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in tests.body):
        run_statements([n for n in tests.body if not is_test(n)], tests_src, ns)
        run_check(ns["check"], getattr(solution, entry_point), tests_src, ns)
        return channel
    run_statements(tests.body, tests_src, ns)
    called = {n.func.id for n in ast.walk(tests) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    for node in tests.body:  # pytest-style test functions nobody called
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test") and node.name not in called:
            run_test(f"{node.name}()", ns[node.name])
    run_unittest_cases(ns)
    return channel


def finish(channel):
    results = RECORD.results
    failed = [r for r in results if not r["ok"]]
    flagged = channel.flagged if channel else []
    if not results:
        RECORD.emit("done", status="error", summary="the tests ran but contained no assertions or test cases")
    elif not failed and not flagged:
        RECORD.emit("done", status="passed", summary=f"all {len(results)} tests passed")
    elif not failed:  # the tests swallowed the flag (a bare `except:`): still not a pass
        RECORD.emit("done", status="failed", summary=f"flagged: {flagged[0]}")
    else:
        listed = "; ".join(
            clip(
                " ".join((f"{r['source']} ({r['message'].splitlines()[0]})" if r["message"] else r["source"]).split()),
                200,
            )
            for r in failed[:3]
        )
        more = f"; and {len(failed) - 3} more" if len(failed) > 3 else ""
        RECORD.emit("done", status="failed", summary=f"{len(failed)} of {len(results)} tests failed: {listed}{more}")


def main(p):
    global RECORD
    die_with_bwrap()
    held = os.dup(0)  # the rest of stdin holds the tests: read after the fork, closed in the draft's process
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)  # the code under test reads nothing from stdin
    os.close(null)
    RECORD = Recorder(p["result_fd"])
    RECORD.emit("hello")
    set_limits(p)
    make_undumpable()
    sys.dont_write_bytecode = True
    sys.stdout, sys.stderr = CappedWriter(1, p["max_output_chars"]), CappedWriter(2, p["max_output_chars"])
    channel = None
    try:
        channel = run_tests(p, held)
    except Abort as abort:
        trace = clip(user_traceback(abort.exc), 3000) if abort.exc else abort.text
        RECORD.emit("done", status=abort.status, summary=abort.summary, traceback=trace)
    except DraftGone as exc:  # while the draft was loading
        RECORD.emit("done", status=exc.status, summary=f"{exc} while loading the draft")
    else:
        finish(channel)
    os._exit(0)  # the draft's process dies with the sandbox's PID namespace


if __name__ == "__main__":
    main(PAYLOAD)  # type: ignore[name-defined]  # noqa: F821 -- the launcher's bootstrap defines it
