"""Start the in-sandbox harness under bubblewrap and read what comes back, bounded, over pipes.

The sandbox: new user (a non-root uid inside), PID, network, IPC, UTS and cgroup namespaces; a root
of its own holding only /usr, the interpreter and its standard library (site-packages masked),
all read-only, a fresh /proc and a minimal /dev; a private size-limited tmpfs at /tmp as the work
dir; an empty environment plus an allow-list; `--die-with-parent`, `--new-session`, and the seccomp
filter of seccomp_filter.py. The parent never opens a path inside it: the payload goes in on
stdin, results come out on a pipe the parent created, and stdout/stderr are pipes read with caps.
"""

from __future__ import annotations

import functools
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

from . import seccomp_filter

UID = 65534  # "nobody" inside the user namespace: not root, owns nothing of the host's
WORK_DIR = "/tmp"
TMPFS_BYTES = 64 << 20  # the work dir's size: files written count against memory, so it is bounded
RECORDS_LIMIT = 2 << 20  # bytes of result records the parent keeps

_HERE = Path(__file__).resolve().parent
#: Payload keys sent in a second frame, which the harness reads only after it has forked the draft's
#: process: the draft's memory never holds them (it could walk its frames to the asserts otherwise).
HELD_BACK = ("tests",)
# The bootstrap reads the harness, plain.py and the payload's first frame from stdin (nothing of the app
# is mounted), by exact length with os.read: a buffered read would pull the tests in before the fork.
_BOOT = ("import os, sys, json, types\n"
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
         "exec(compile(m['inside'], '<harness>', 'exec'), {'__name__': '__main__', '__file__': '<harness>', 'PAYLOAD': m['payload']})\n")


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
    """The bwrap executable; LaunchError when it is not installed."""
    found = shutil.which("bwrap")
    if not found:
        raise LaunchError("bubblewrap (bwrap) is not installed")
    return found


@functools.cache
def interpreter() -> str:
    return os.path.realpath(sys.executable)


def _interpreter_paths() -> tuple[list[str], list[str]]:
    """(paths to bind read-only, site-packages dirs to mask) for the running interpreter."""
    paths = sysconfig.get_paths()
    bind = [interpreter(), paths["stdlib"], paths["platstdlib"]]
    libdir, soname = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME")
    if libdir and soname and os.path.exists(os.path.join(libdir, soname)):
        bind.append(os.path.realpath(os.path.join(libdir, soname)))  # a --enable-shared build's libpython
    mask = {os.path.realpath(p) for p in (paths["purelib"], paths["platlib"], *sys.path)
            if p and ("site-packages" in p or "dist-packages" in p) and os.path.isdir(p)}
    return list(dict.fromkeys(os.path.realpath(p) for p in bind if p and os.path.exists(p))), sorted(mask)


@functools.cache
def mount_args() -> tuple[str, ...]:
    """bwrap's filesystem options, computed once: a read-only system plus the interpreter."""
    args = ["--ro-bind", "/usr", "/usr",
            # /usr/local holds whatever the machine's admin installed (pip --user apps, tools): hidden
            "--tmpfs", "/usr/local"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    bind, mask = _interpreter_paths()
    for path in bind:
        if not path.startswith("/usr/") or path.startswith("/usr/local/"):
            args += ["--ro-bind", path, path]
    for path in mask:
        args += ["--tmpfs", path, "--remount-ro", path]
    args += ["--remount-ro", "/usr/local", "--proc", "/proc", "--dev", "/dev",
             "--size", str(TMPFS_BYTES), "--perms", "1777", "--tmpfs", WORK_DIR, "--chdir", WORK_DIR,
             "--remount-ro", "/"]
    return tuple(args)


def environment() -> dict[str, str]:
    """The whole environment inside: an allow-list, nothing of the parent's (API keys above all)."""
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": WORK_DIR, "TMPDIR": WORK_DIR,
            "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def command(seccomp_fd: int) -> list[str]:
    env = [a for name, value in environment().items() for a in ("--setenv", name, value)]
    return [bwrap_path(), "--unshare-all", "--unshare-user", "--uid", str(UID), "--gid", str(UID),
            "--hostname", "sandbox", "--as-pid-1", "--die-with-parent", "--new-session", "--clearenv", *env,
            *mount_args(), "--seccomp", str(seccomp_fd),
            interpreter(), "-I", "-S", "-B", "-c", _BOOT]


def run(payload: dict, *, timeout_s: float, output_cap: int, wrapper: list[str] | None = None) -> Finished:
    """Run the harness on `payload` in a fresh sandbox; never waits past `timeout_s` (plus the kill)."""
    inside, plain = _sources()
    bpf = seccomp_filter.bpf()
    seccomp_r, seccomp_w = os.pipe()
    result_r, result_w = os.pipe()
    try:
        os.write(seccomp_w, bpf)  # a few hundred bytes: far below a pipe's buffer
        os.close(seccomp_w)
        seccomp_w = -1
        first = {k: v for k, v in payload.items() if k not in HELD_BACK}
        stdin = (_frame({"inside": inside, "plain": plain, "payload": {**first, "result_fd": result_w}})
                 + _frame({k: payload[k] for k in HELD_BACK if k in payload}))
        proc = subprocess.Popen([*(wrapper or []), *command(seccomp_r)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(seccomp_r, result_w),
                                env=environment(), start_new_session=True)
    except OSError as exc:
        for fd in (seccomp_r, seccomp_w, result_r, result_w):
            if fd >= 0:
                os.close(fd)
        raise LaunchError(f"bubblewrap could not be started ({exc})") from None
    os.close(seccomp_r)
    os.close(result_w)
    try:
        return _collect(proc, stdin, result_r, timeout_s, output_cap)
    finally:
        os.close(result_r)
        _kill(proc)


def _collect(proc: subprocess.Popen, stdin: bytes, result_r: int, timeout_s: float, output_cap: int) -> Finished:
    deadline = time.monotonic() + timeout_s
    out, err = proc.stdout.fileno(), proc.stderr.fileno()
    limits = {out: output_cap, err: output_cap, result_r: RECORDS_LIMIT}
    kept: dict[int, bytearray] = {fd: bytearray() for fd in limits}
    totals = dict.fromkeys(limits, 0)
    view = memoryview(stdin)
    stdin_fd = proc.stdin.fileno()
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
                        view = view[os.write(fd, view[:65536]):]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # the harness died before reading it all
                        view = view[:0]
                    if not view:
                        sel.unregister(fd)
                        proc.stdin.close()
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
    _kill(proc)
    return Finished(bytes(kept[result_r]), bytes(kept[out]), bytes(kept[err]), totals[out], totals[err],
                    proc.returncode, timed_out)


def _kill(proc: subprocess.Popen) -> None:
    """SIGKILL bwrap's process group; its PID namespace (so every process the code started) goes too."""
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
