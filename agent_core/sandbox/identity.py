"""Who judged code is, inside the sandbox and on the host: never the server's uid when that uid is root.

bubblewrap maps the sandbox's uid to the uid that started it, so a server running as root got
`65534 0 1`: host uid 0 under another name, for which every root-owned sysctl is writable
(`/proc/sys/kernel/core_pattern` runs a command as root on the host). So the launcher writes the
user namespace's maps itself, while bwrap waits (`--userns-block-fd`):

- server as root: `0 0 1` and `65534 65534 1`. Root inside is host root *only* for bwrap's set-up
  and the interpreter's start (so an interpreter under `/root/.pyenv`, mode 0700, can still be
  mounted); the first lines the interpreter runs (`DROP`) clear the supplementary groups and set
  every uid and gid to 65534, host "nobody", before the payload is even read. The kernel clears all
  capabilities on that change, `no_new_privs` and `nosuid` mounts keep them from coming back, and
  the check after it stops the run if any uid, gid or capability is left.
- server as another user: `65534 <its uid> 1`, as bwrap would write it, with setgroups denied.

A server with ambient capabilities (which would survive into bwrap) is refused.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

UID = GID = 65534  # judged code's uid and gid inside the user namespace
HOST_UID = HOST_GID = 65534  # ... and on the host when the server is root: "nobody", which owns nothing mounted

#: Runs first in the sandbox's interpreter, before the payload is read: the server-as-root drop, then a
#: check that holds in both cases (a failure exits before the harness says hello: "did not start").
DROP = (
    f"import os\n"
    f"if os.getuid() == 0:\n"
    f"    os.setgroups([])\n"
    f"    os.setresgid({GID}, {GID}, {GID})\n"
    f"    os.setresuid({UID}, {UID}, {UID})\n"
    f"with open('/proc/self/status') as status:\n"
    f"    caps = [line.split()[1] for line in status if line.startswith(('CapPrm', 'CapEff', 'CapAmb'))]\n"
    f"if os.getresuid() != ({UID},) * 3 or os.getresgid() != ({GID},) * 3 or len(caps) != 3 \\\n"
    f"        or any(int(c, 16) for c in caps):\n"
    f"    raise SystemExit('sandbox: the uid drop did not hold')\n"
    f"del status, caps\n"
)


class Refused(RuntimeError):
    """The sandbox's identity cannot be set up here; the message says why and what to change."""


@dataclass(frozen=True)
class Mapping:
    """The user namespace's maps, and the bwrap options that go with them."""

    uid_map: str
    gid_map: str
    deny_setgroups: bool
    bwrap_caps: tuple[str, ...]  # what bwrap leaves the interpreter until DROP (root) or nothing

    def write(self, pid: int) -> None:
        """Write the maps of bwrap's child `pid` (raises OSError)."""
        if self.deny_setgroups:
            _write(f"/proc/{pid}/setgroups", "deny")
        _write(f"/proc/{pid}/uid_map", self.uid_map)
        _write(f"/proc/{pid}/gid_map", self.gid_map)

    def hand_over(self, *pipes: int) -> None:
        """Give the sandbox's uid the output pipes the server made, so `/dev/stdout` (a re-open through
        /proc/self/fd) works as it does for the server's own uid; nothing else of the server's is handed."""
        if self.deny_setgroups:  # not root: the pipes are already the sandbox's own uid's
            return
        for fd in pipes:
            os.fchown(fd, HOST_UID, HOST_GID)


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode("ascii"))
    finally:
        os.close(fd)


def ambient_caps() -> int:
    """This process's ambient capability set (the capabilities a non-root exec keeps)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("CapAmb:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError, IndexError):
        pass
    return 0


@functools.cache
def mapping() -> Mapping:
    """The maps for this server's identity (decided once per process); Refused when none is safe."""
    if os.geteuid() == 0:
        return Mapping(
            f"0 0 1\n{UID} {HOST_UID} 1\n",
            f"0 0 1\n{GID} {HOST_GID} 1\n",
            False,
            ("--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"),
        )
    if ambient_caps():
        raise Refused(
            f"the server holds ambient capabilities ({ambient_caps():#x}), which judged code would "
            "inherit; start it without them"
        )
    return Mapping(f"{UID} {os.geteuid()} 1\n", f"{GID} {os.getegid()} 1\n", True, ("--cap-drop", "ALL"))
