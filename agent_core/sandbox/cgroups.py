"""Optional cgroup limits for one sandboxed run: pids.max and a memory ceiling, where the machine allows.

Unlike rlimits, a cgroup binds every process of the run together (and root too). The app needs
write access to a cgroup hierarchy, which a root container or a delegated systemd unit has and an
ordinary desktop user usually does not; where it is missing this module applies nothing and says
so (`Group.applied` is empty). cgroup v2 is used when its pids and memory controllers can be
enabled, else the v1 pids and memory hierarchies. The launcher moves the sandbox's first process into
the group (`Group.join`) while bwrap waits for its user namespace, before anything of the sandbox is
set up, so every process of the run is inside; the server writes it, so the sandbox's unprivileged
uid needs no right over the group. The memory limit is the run's whole bound: swap is not extra
(v2 `memory.swap.max` 0, v1 `memory.memsw.limit_in_bytes` equal to the memory limit).
"""

from __future__ import annotations

import functools
import os
import time
import uuid
from dataclasses import dataclass

_ROOT = "/sys/fs/cgroup"


@dataclass(frozen=True)
class _Hierarchy:
    """Where groups are made, the file a process joins through, and how each limit is spelled."""

    parent: str
    procs: str
    limits: tuple[tuple[str, str], ...]  # (kind, file) with kind "pids", "memory", "memsw" or "swap"
    oom: str = ""  # the file whose "oom_kill N" line counts the group's OOM kills ("" in the pids hierarchy)


def _own_paths() -> dict[str, str]:
    paths = {}
    try:
        with open("/proc/self/cgroup", encoding="ascii") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for name in controllers.split(",") if controllers else [""]:
                    paths[name] = path
    except (OSError, ValueError):
        pass
    return paths


def _writable_dir(path: str) -> bool:
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


@functools.cache
def hierarchies() -> tuple[_Hierarchy, ...]:
    """The hierarchies this process may make groups in (looked up once)."""
    own = _own_paths()
    for base in (_ROOT, os.path.join(_ROOT, "unified")):
        if "" in own and os.path.exists(os.path.join(base, "cgroup.controllers")):
            parent = os.path.normpath(base + own[""])
            if _v2_ready(parent):
                return (
                    _Hierarchy(
                        parent,
                        "cgroup.procs",
                        (("pids", "pids.max"), ("memory", "memory.max"), ("swap", "memory.swap.max")),
                        "memory.events",
                    ),
                )
            break
    found = []
    for name, limit in (("pids", "pids.max"), ("memory", "memory.limit_in_bytes")):
        parent = os.path.normpath(os.path.join(_ROOT, name) + own.get(name, "/"))
        if name in own and _writable_dir(parent):  # the root group has no limit files; children do
            extra = (("memsw", "memory.memsw.limit_in_bytes"),) if name == "memory" else ()
            found.append(
                _Hierarchy(
                    parent, "cgroup.procs", ((name, limit), *extra), "memory.oom_control" if name == "memory" else ""
                )
            )
    return tuple(found)


def _v2_ready(parent: str) -> bool:
    """True when children of `parent` get the pids and memory controllers (enabling them if we may)."""
    if not _writable_dir(parent):
        return False
    try:
        with open(os.path.join(parent, "cgroup.controllers"), encoding="ascii") as f:
            if not {"pids", "memory"} <= set(f.read().split()):
                return False
        path = os.path.join(parent, "cgroup.subtree_control")
        with open(path, encoding="ascii") as f:
            if {"pids", "memory"} <= set(f.read().split()):
                return True
        with open(path, "w", encoding="ascii") as f:  # refused in a cgroup that holds processes itself
            f.write("+pids +memory")
        return True
    except OSError:
        return False


class Group:
    """A context manager: a fresh group per run with the limits written, removed afterwards."""

    def __init__(self, *, memory_bytes: int, pids: int) -> None:
        # v1's memsw counts memory plus swap, so equal to the memory limit it allows no swap; v2's
        # swap.max counts swap alone
        self.values = {"pids": str(pids), "memory": str(memory_bytes), "memsw": str(memory_bytes), "swap": "0"}
        self.dirs: list[str] = []
        self.procs: list[str] = []
        self.oom_files: list[str] = []
        self.applied: tuple[str, ...] = ()

    def __enter__(self) -> Group:
        name = f"agent-sandbox-{uuid.uuid4().hex[:12]}"
        applied = []
        for h in hierarchies():
            path = os.path.join(h.parent, name)
            try:
                os.mkdir(path)
            except OSError:
                continue
            self.dirs.append(path)
            wrote = []
            for kind, file in h.limits:
                try:
                    with open(os.path.join(path, file), "w", encoding="ascii") as f:
                        f.write(self.values[kind])
                    wrote.append(file)
                except OSError:
                    pass  # e.g. no swap accounting: the memory limit alone still holds
            if any(not file.startswith("memory.swap") and "memsw" not in file for file in wrote):
                self.procs.append(os.path.join(path, h.procs))
                applied += [f"cgroup {file}" for file in wrote if "swap" not in file and "memsw" not in file]
                if h.oom and "memory" in " ".join(wrote):
                    self.oom_files.append(os.path.join(path, h.oom))
        self.applied = tuple(applied)
        return self

    def join(self, pid: int) -> None:
        """Move process `pid` into the group (its later children follow); raises OSError."""
        for procs in self.procs:
            fd = os.open(procs, os.O_WRONLY | os.O_CLOEXEC)
            try:
                os.write(fd, str(pid).encode("ascii"))
            finally:
                os.close(fd)

    def oom_kills(self) -> int:
        """How many of the group's processes the kernel killed for the memory limit (0 when unknown)."""
        kills = 0
        for path in self.oom_files:
            try:
                with open(path, encoding="ascii") as f:
                    for line in f:
                        key, _, value = line.partition(" ")
                        if key == "oom_kill":
                            kills += int(value)
            except (OSError, ValueError):
                pass
        return kills

    def __exit__(self, *exc: object) -> None:
        """Remove the groups; never raises (a group still busy is retried briefly, then left)."""
        for path in self.dirs:
            for delay in (0, 0.005, 0.02, 0.05, 0.1):
                time.sleep(delay)
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    continue
