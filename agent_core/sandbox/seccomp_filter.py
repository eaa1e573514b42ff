"""The seccomp filter bubblewrap loads before the judged code starts: system calls it never needs.

Built once per process with pyseccomp (a ctypes binding to the system's libseccomp2) and exported
as BPF bytes, which the launcher hands to `bwrap --seccomp FD` through a pipe. Denied calls fail
with EPERM (sockets: EAFNOSUPPORT), so the code sees an ordinary OSError rather than a dead process.
"""

from __future__ import annotations

import errno
import os
import socket
import threading

#: Calls that reach other processes or the kernel's machinery; none has a use in a unit test.
DENIED = (
    # other processes' memory and signals (the server's API keys live in its memory)
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_open",
    "pidfd_getfd",
    "pidfd_send_signal",
    "kcmp",
    "process_madvise",
    # device nodes and FIFOs-as-devices, new mounts and namespaces
    "mknod",
    "mknodat",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "unshare",
    "setns",
    # the kernel itself
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "keyctl",
    "add_key",
    "request_key",
    "reboot",
    "swapon",
    "swapoff",
    "syslog",
    "acct",
    "quotactl",
    "lookup_dcookie",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
    "personality",
    "vhangup",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "sethostname",
    "setdomainname",
    "iopl",
    "ioperm",
)
FS_IOC_SETFLAGS = 0x40086602  # chattr +i: an immutable file the parent could not clean up
FS_IOC_FSSETXATTR = 0x401C5820  # the same flags through the newer ioctl
TIOCSTI = 0x5412  # pushing keystrokes into a terminal
#: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
CLONE_NEW_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)

_lock = threading.Lock()
_cached: bytes | None = None


class SeccompUnavailable(RuntimeError):
    """pyseccomp or the system's libseccomp2 is missing."""


def bpf() -> bytes:
    """The filter as BPF bytes, built on first use and cached (thread-safe)."""
    global _cached
    if _cached is None:
        with _lock:
            if _cached is None:
                _cached = _build()
    return _cached


def _build() -> bytes:
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as exc:  # OSError: the binding could not load libseccomp.so.2
        raise SeccompUnavailable(f"the seccomp library cannot be loaded ({exc})") from None
    f = seccomp.SyscallFilter(seccomp.ALLOW)
    eperm = seccomp.ERRNO(errno.EPERM)
    for name in DENIED:
        try:
            f.add_rule(eperm, name)
        except (ValueError, RuntimeError, OSError):
            pass  # a call this kernel's architecture does not have (e.g. iopl elsewhere than x86)
    # Sockets: only AF_UNIX (a socketpair between threads); no network of any kind, not even netlink.
    f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))
    f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socketpair", seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))
    for request in (FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR, TIOCSTI):
        f.add_rule(eperm, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    # New namespaces through clone (one rule per flag: a rule matches when the flag is set); clone3
    # passes its flags in memory a filter cannot read, so it gets ENOSYS and libc falls back to clone.
    for flag in CLONE_NEW_FLAGS:
        f.add_rule(eperm, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    fd = os.memfd_create("sandbox-seccomp", os.MFD_CLOEXEC)
    try:
        with open(fd, "w+b", closefd=False) as out:
            f.export_bpf(out)
            out.seek(0)
            return out.read()
    finally:
        os.close(fd)
