"""Writes tests/hostile_tasks/*.jsonl, one file per attack class: python make_corpus.py.

The files are templates: tests/test_sandbox_hostile.py fills in the @NAME@ placeholders (paths of
planted files, the victim process, a listening port) before it runs them.
"""

import json
import os
import textwrap

OUT = os.path.dirname(os.path.abspath(__file__)) + "/"
LOOT_CHECK = "def check(candidate):\n    loot = candidate()\n    assert loot == 'contained', loot\n"
ADD_CHECK = "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(2, 2) == 4\n    assert candidate(-1, 1) == 0\n"


def task(cls, name, body, *, entry="attack", sig="def attack():\n", check=LOOT_CHECK):
    body = textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", "    ")
    return {
        "task_id": f"hostile/{cls}/{name}",
        "prompt": sig,
        "entry_point": entry,
        "canonical_solution": body,
        "test": check,
    }


TRY = """
import os
loot = []
def attempt(label, fn):
    try:
        loot.append(f"{label}: {str(fn())[:300]}")
    except Exception as exc:
        loot.append(f"{label}: refused ({type(exc).__name__})")
"""

classes = {}
classes["reads"] = [
    task(
        "reads",
        "secrets_toml_through_parent_cwd",
        TRY
        + """
for pid in [p for p in os.listdir('/proc') if p.isdigit()] + ['@VICTIM@']:
    attempt(f'/proc/{pid}/cwd', lambda: open(f'/proc/{pid}/cwd/.streamlit/secrets.toml').read())
attempt('app cwd', lambda: open('@APP_CWD@/.streamlit/secrets.toml').read())
return '; '.join(loot)
""",
    ),
    task(
        "reads",
        "parent_environment",
        TRY
        + """
attempt('own env', lambda: dict(os.environ))
for pid in [p for p in os.listdir('/proc') if p.isdigit()] + ['@VICTIM@']:
    attempt(f'environ {pid}', lambda: open(f'/proc/{pid}/environ', 'rb').read())
root = os.open('/', os.O_RDONLY)
attempt('dir_fd route', lambda: os.read(os.open('proc/1/environ', os.O_RDONLY, dir_fd=root), 4096))
os.symlink('/proc/1/environ', 'link')
attempt('symlink route', lambda: open('link', 'rb').read())
os.fsdecode = lambda p: '/dev/null'
attempt('patched fsdecode', lambda: open('/proc/1/environ', 'rb').read())
return '; '.join(loot)
""",
    ),
    task(
        "reads",
        "other_command_lines",
        TRY
        + """
for pid in [p for p in os.listdir('/proc') if p.isdigit()] + ['@VICTIM@']:
    attempt(f'cmdline {pid}', lambda: open(f'/proc/{pid}/cmdline', 'rb').read())
return '; '.join(loot)
""",
    ),
    task(
        "reads",
        "server_memory",
        TRY
        + """
import re
def scan(pid):
    found = []
    with open(f'/proc/{pid}/maps') as maps, open(f'/proc/{pid}/mem', 'rb') as mem:
        for line in maps:
            start, end = (int(x, 16) for x in line.split()[0].split('-'))
            if 'rw' not in line.split()[1] or end - start > 64 << 20:
                continue
            try:
                mem.seek(start)
                found += re.findall(rb'sk-[A-Za-z0-9-]{8,}', mem.read(end - start))
            except OSError:
                pass
    return found
for pid in ['@VICTIM@', '1'] + [p for p in os.listdir('/proc') if p.isdigit()]:
    attempt(f'mem {pid}', lambda: scan(pid))
return '; '.join(loot)
""",
    ),
    task(
        "reads",
        "app_source_and_home",
        TRY
        + """
attempt('app source', lambda: open('@APP@/agent_core/settings.py').read())
attempt('site-packages', lambda: __import__('streamlit').__file__)
attempt('agent_core', lambda: __import__('agent_core').__file__)
attempt('root home', lambda: os.listdir('/root'))
attempt('etc', lambda: open('/etc/passwd').read())
return '; '.join(loot)
""",
    ),
]
classes["writes"] = [
    task(
        "writes",
        "mknod_and_mkfifo",
        TRY
        + """
attempt('mknod', lambda: os.mknod('@PLANTED_DIR@/dev_null_copy', 0o666 | 0o020000, os.makedev(1, 3)))
attempt('mkfifo', lambda: os.mkfifo('@PLANTED_DIR@/fifo'))
attempt('mkfifo here', lambda: os.mkfifo('fifo'))
return '; '.join(loot)
""",
    ),
    task(
        "writes",
        "sqlite_and_readline",
        TRY
        + """
import sqlite3
attempt('sqlite3', lambda: sqlite3.connect('@PLANTED_DIR@/owned.db').execute('create table t(x)'))
def history():
    import readline
    readline.add_history('owned')
    readline.write_history_file('@PLANTED@')
attempt('readline', history)
return '; '.join(loot)
""",
    ),
    task(
        "writes",
        "hard_link_to_app_source",
        TRY
        + """
def link_and_append():
    os.link('@APP@/agent_core/__init__.py', 'init_link.py')
    with open('init_link.py', 'a') as f:
        f.write('\\nraise SystemExit("owned by a hostile task")\\n')
attempt('link app', link_and_append)
def link_planted():
    os.link('@PLANTED@', 'planted_link')
    with open('planted_link', 'a') as f:
        f.write('owned')
attempt('link planted', link_planted)
return '; '.join(loot)
""",
    ),
    task(
        "writes",
        "dir_fd_and_read_only_fd",
        TRY
        + """
def dir_fd_write():
    d = os.open('@PLANTED_DIR@', os.O_RDONLY)
    fd = os.open('planted.txt', os.O_WRONLY | os.O_APPEND, dir_fd=d)
    os.write(fd, b'owned')
attempt('dir_fd', dir_fd_write)
def through_ro_fd(path):
    fd = os.open(path, os.O_RDONLY)
    os.fchmod(fd, 0o777)
    os.utime(fd, (0, 0))
    os.setxattr(fd, 'user.owned', b'1')
for path in ('@PLANTED@', '/usr/bin/env', '@APP@/agent_core/__init__.py'):
    attempt(f'ro fd {path}', lambda: through_ro_fd(path))
attempt('plain open', lambda: open('@PLANTED@', 'a').write('owned'))
return '; '.join(loot)
""",
    ),
]
classes["hook_escapes"] = [
    task(
        "hook_escapes",
        "gc_code_swap",
        TRY
        + """
import gc
def nothing(*args, **kwargs):
    return None
swapped = 0
for obj in gc.get_objects():
    if type(obj).__name__ == 'function' and obj.__name__ in ('hook', 'run_test', 'emit', 'install_guards'):
        try:
            obj.__code__ = nothing.__code__
            swapped += 1
        except Exception:
            pass
loot.append(f'swapped {swapped}')
attempt('write after swap', lambda: open('@PLANTED@', 'a').write('owned'))
attempt('secrets after swap', lambda: open('@APP_CWD@/.streamlit/secrets.toml').read())
return '; '.join(loot)
""",
    ),
    task(
        "hook_escapes",
        "renamed_posixsubprocess",
        TRY
        + """
import importlib.util, subprocess, sys
def renamed():
    spec = importlib.util.find_spec('_posixsubprocess')
    sys.modules.pop('_posixsubprocess', None)
    spec.name = 'totally_harmless'
    module = importlib.util.module_from_spec(spec)
    return module
attempt('renamed', renamed)
attempt('shell', lambda: subprocess.run(['/bin/sh', '-c', 'echo owned >> @PLANTED@; cat @APP_CWD@/.streamlit/secrets.toml; cat /proc/*/environ'], capture_output=True, timeout=2).stdout)
return '; '.join(loot)
""",
    ),
    task(
        "hook_escapes",
        "dlopen_shipped_library",
        TRY
        + """
import ctypes
def load():
    data = bytes.fromhex('@SO_HEX@')
    if not data:
        return 'no library shipped (no C compiler on the test machine)'
    with open('evil.so', 'wb') as f:
        f.write(data)
    ctypes.CDLL(os.path.abspath('evil.so'))
    return open('evil_ran').read()
attempt('dlopen', load)
return '; '.join(loot)
""",
    ),
]
classes["network"] = [
    task(
        "network",
        "sockets",
        TRY
        + """
import socket
attempt('tcp', lambda: socket.create_connection(('127.0.0.1', @PORT@), timeout=1).sendall(b'owned'))
attempt('tcp6', lambda: socket.socket(socket.AF_INET6).connect(('::1', @PORT@)))
attempt('netlink', lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))
attempt('packet', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0))
import ctypes
attempt('raw syscall', lambda: ctypes.CDLL(None, use_errno=True).syscall(41, 2, 1, 0) or ctypes.get_errno())
import urllib.request
attempt('http', lambda: urllib.request.urlopen('http://127.0.0.1:@PORT@/', timeout=1).read())
attempt('unix pair (allowed)', lambda: len(socket.socketpair()))
return '; '.join(loot)
""",
    ),
]
classes["persistence"] = [
    task(
        "persistence",
        "leftover_processes",
        TRY
        + """
import subprocess, time
attempt('setsid sleep', lambda: subprocess.Popen(['setsid', 'sleep', '313'], start_new_session=True).pid)
def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv('/usr/bin/sleep', ['sleep', '313'])
        os._exit(0)
    return 'forked'
attempt('double fork', daemon)
time.sleep(0.3)
return '; '.join(loot)
""",
    ),
]
classes["parent"] = [
    task(
        "parent",
        "result_file_fifo_and_dev_zero",
        TRY
        + """
attempt('fifo result', lambda: os.mkfifo('result.jsonl'))
attempt('dev zero stdout', lambda: os.symlink('/dev/zero', 'stdout.txt'))
attempt('dev zero result', lambda: os.symlink('/dev/zero', 'result.jsonl'))
attempt('flood stdout', lambda: os.write(1, b'x' * (8 << 20)))
return '; '.join(loot)
""",
    ),
    task(
        "parent",
        "signal_the_server",
        TRY
        + """
import ctypes, signal
libc = ctypes.CDLL(None, use_errno=True)
def pidfd_kill(pid):
    fd = libc.syscall(434, pid, 0)
    if fd < 0:
        return f'pidfd_open errno {ctypes.get_errno()}'
    return libc.syscall(424, fd, signal.SIGSTOP, None, 0), ctypes.get_errno()
for pid in (@VICTIM@, @TEST_PID@, 1):
    attempt(f'pidfd {pid}', lambda: pidfd_kill(pid))
    attempt(f'kill {pid}', lambda: os.kill(pid, signal.SIGSTOP))
attempt('kill -1', lambda: os.kill(-1, signal.SIGKILL))
return '; '.join(loot)
""",
    ),
    task(
        "parent",
        "immutable_file",
        TRY
        + """
import fcntl, struct
def immutable(path):
    fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o600)
    fcntl.ioctl(fd, 0x40086602, struct.pack('i', 0x10))
attempt('chattr +i', lambda: immutable('stuck'))
return '; '.join(loot)
""",
    ),
]
classes["forged"] = [
    task(
        "forged",
        "write_records_then_exit",
        """
import json, os
lines = [json.dumps({'kind': 'test', 'source': 'assert candidate(1, 2) == 3', 'ok': True, 'message': ''}),
         json.dumps({'kind': 'done', 'status': 'passed', 'summary': 'all 3 tests passed'})]
data = ('\\n'.join(lines) + '\\n').encode()
for fd in range(3, 64):
    try:
        os.write(fd, data)
    except OSError:
        pass
for pid in ('1', 'self', str(os.getppid())):
    for fd in range(3, 16):
        try:
            with open(f'/proc/{pid}/fd/{fd}', 'wb') as f:
                f.write(data)
        except OSError:
            pass
with open('result.jsonl', 'w') as f:
    f.write(data.decode())
os._exit(0)
""",
        entry="add",
        sig="def add(a, b):\n",
        check=ADD_CHECK,
    ),
    task(
        "forged",
        "patch_the_runner",
        """
import gc, sys
main = sys.modules.get('__main__')
for holder in [main, *[o for o in gc.get_objects() if type(o) is dict and 'run_test' in o]]:
    try:
        namespace = holder if type(holder) is dict else vars(holder)
        namespace['run_test'] = lambda source, thunk: None
        namespace['finish'] = lambda channel: None
    except Exception:
        pass
return 0
""",
        entry="add",
        sig="def add(a, b):\n",
        check=ADD_CHECK,
    ),
    task(
        "forged",
        "always_equal_object",
        """
class Anything:
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
return Anything()
""",
        entry="add",
        sig="def add(a, b):\n",
        check=ADD_CHECK,
    ),
    task(
        "forged",
        "lying_int_subclass",
        """
class Liar(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
return Liar(0)
""",
        entry="add",
        sig="def add(a, b):\n",
        check=ADD_CHECK,
    ),
    task(
        "forged",
        "swallowed_flag",
        """
class Anything:
    def __eq__(self, other):
        return True
return Anything()
""",
        entry="add",
        sig="def add(a, b):\n",
        check="def check(candidate):\n    try:\n        assert candidate(1, 2) == 3\n    except:\n        pass\n",
    ),
    task(
        "forged",
        "stop_the_harness",
        """
import os, signal
os.kill(os.getppid(), signal.SIGKILL)
os.kill(1, signal.SIGSTOP)
return 0
""",
        entry="add",
        sig="def add(a, b):\n",
        check=ADD_CHECK,
    ),
]
# Forged PASS by knowing the answer: the expected value lives only in the tests, so a draft that finds
# it anywhere it can reach (its own memory, the harness's frames, stdin, descriptors, /proc/1, another
# process's memory) passes. Each returns what it found, or what it tried.
SECRET_CHECK = "def check(candidate):\n    assert candidate(17) == 'expected-7c1e0b5a93d24f68'\n"
PEEK = """
import os, re, sys
SECRET = re.compile(rb'expected-[0-9a-f]{16}')
tried = []
def look(label, data):
    if isinstance(data, str):
        data = data.encode('utf-8', 'replace')
    found = SECRET.search(bytes(data or b''))
    tried.append(f'{label}: {"FOUND" if found else "nothing"}')
    return found.group().decode() if found else None
def attempt(label, fn):
    try:
        return look(label, fn())
    except Exception as exc:
        tried.append(f'{label}: refused ({type(exc).__name__})')
def answer(*hits):
    return next((h for h in hits if h), '; '.join(tried))
"""
SCAN = (
    PEEK
    + """
import gc
def everything():
    seen, out = set(), []
    todo = [*gc.get_objects(), *sys._current_frames().values(), sys.modules]
    while todo and len(seen) < 3000000:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if type(obj) in (str, bytes, bytearray):
            out.append(obj.encode('utf-8', 'replace') if type(obj) is str else bytes(obj))
            continue
        try:
            todo.extend(gc.get_referents(obj))
        except Exception:
            pass
        if type(obj).__name__ == 'frame':
            todo += [obj.f_locals, obj.f_globals]
    return b'\\n'.join(out)
"""
)
DESCRIPTORS = """
import select
OWN = set()  # the draft process's own channel to the harness: reading it would only break our calls
frame = sys._getframe()
while frame is not None:
    OWN.update(v for k, v in frame.f_locals.items() if k in ('requests', 'replies') and type(v) is int)
    frame = frame.f_back
def waiting(fd):  # whatever is readable now, without blocking
    if fd in OWN or not select.select([fd], [], [], 0)[0]:
        raise BlockingIOError(fd)
    return os.read(fd, 1 << 20)
def descriptors(label):
    hits = [attempt(f'{label} stdin', lambda: waiting(0))]
    for fd in range(3, 256):
        hits.append(attempt(f'{label} fd {fd}', lambda: waiting(fd)))
    for pid in ('self', '1', str(os.getppid())):
        for name in attempt_list(f'/proc/{pid}/fd'):
            hits.append(attempt(f'{label} /proc/{pid}/fd/{name}',
                                lambda: waiting(os.open(f'/proc/{pid}/fd/{name}', os.O_RDONLY | os.O_NONBLOCK))))
    return next((h for h in hits if h), None)
def attempt_list(path):
    try:
        return os.listdir(path)
    except OSError as exc:
        tried.append(f'list {path}: refused ({type(exc).__name__})')
        return ['0', '3', '4', '5', '6', '7', '8']
"""
classes["peek"] = [
    task(
        "peek",
        "gc_walk_at_call_time",
        SCAN
        + """
return answer(attempt('every object', everything))
""",
        sig="def attack(x):\n",
        check=SECRET_CHECK,
    ),
    task(
        "peek",
        "gc_walk_at_load_time",
        "return answer(LOADED)\n",
        sig=SCAN + "LOADED = attempt('every object at load', everything)\ndef attack(x):\n",
        check=SECRET_CHECK,
    ),
    task(
        "peek",
        "harness_frames_and_payload",
        PEEK
        + """
def frames():
    found, frame = [], sys._getframe()
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for name in ('p', 'PAYLOAD', 'm', 'tests_src', 'tests'):
                found.append(repr(scope.get(name)))
        frame = frame.f_back
    main = sys.modules.get('__main__')
    found += [repr(getattr(main, name, None)) for name in ('m', 'PAYLOAD')]
    import linecache
    found.append(repr(linecache.cache.get('<tests>')))
    return '\\n'.join(found)
return answer(attempt('frames', frames))
""",
        sig="def attack(x):\n",
        check=SECRET_CHECK,
    ),
    task(
        "peek",
        "stdin_and_descriptors",
        PEEK
        + DESCRIPTORS
        + """
return answer(EARLY, descriptors('call'))
""",
        sig=PEEK + DESCRIPTORS + "EARLY = descriptors('load')\ndef attack(x):\n",
        check=SECRET_CHECK,
    ),
    task(
        "peek",
        "race_the_harness_for_stdin",
        "import time\ntime.sleep(0.4)\nreturn answer(*RACED)\n",
        sig=PEEK
        + DESCRIPTORS
        + """import threading, time
RACED = []
def race():  # from the first moment of the draft's life, while the harness reads the tests
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        for fd in (0, *range(3, 16)):
            RACED.append(attempt(f'raced fd {fd}', lambda: waiting(fd)))
        del tried[:-40]
threading.Thread(target=race, daemon=True).start()
def attack(x):
""",
        check=SECRET_CHECK,
    ),
    task(
        "peek",
        "the_harness_in_proc",
        PEEK
        + """
hits = [attempt(f'/proc/1/{name}', lambda: open(f'/proc/1/{name}', 'rb').read())
        for name in ('cmdline', 'environ', 'maps', 'syscall', 'stack', 'io', 'status', 'stat', 'wchan',
                     'task/1/cmdline', 'task/1/environ', 'root/proc/1/cmdline')]
hits.append(attempt('own environ', lambda: repr(dict(os.environ))))
hits.append(attempt('argv', lambda: repr((sys.argv, getattr(sys, 'orig_argv', None)))))
def harness_memory():
    chunks = []
    with open('/proc/self/maps') as maps, open('/proc/1/mem', 'rb') as mem:
        for line in maps:
            start, end = (int(v, 16) for v in line.split()[0].split('-'))
            if 'rw' in line.split()[1] and end - start < 64 << 20:
                try:
                    mem.seek(start)
                    chunks.append(mem.read(end - start))
                except OSError:
                    pass
    return b''.join(chunks)
hits.append(attempt('/proc/1/mem', harness_memory))
def files():
    found = []
    for top in ('/tmp', '/dev/shm', '/proc/1/cwd', '/proc/1/root/tmp'):
        for root, _dirs, names in os.walk(top):
            for name in names:
                try:
                    found.append(open(os.path.join(root, name), 'rb').read(1 << 20))
                except OSError:
                    pass
    return b''.join(found)
hits.append(attempt('files', files))
return answer(*hits)
""",
        sig="def attack(x):\n",
        check=SECRET_CHECK,
    ),
    task(
        "peek",
        "cross_process_syscalls",
        PEEK
        + """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
class IOVec(ctypes.Structure):
    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
def vm_read():
    out = []
    with open('/proc/self/maps') as maps:  # a fork: the harness's heap sits where ours does
        for line in maps:
            start, end = (int(v, 16) for v in line.split()[0].split('-'))
            if 'rw' in line.split()[1] and end - start < 64 << 20:
                buf = ctypes.create_string_buffer(end - start)
                local, remote = IOVec(ctypes.addressof(buf), end - start), IOVec(start, end - start)
                got = libc.syscall(310, 1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
                if got > 0:
                    out.append(buf.raw[:got])
    if not out:
        raise PermissionError(ctypes.get_errno(), 'process_vm_readv')
    return b''.join(out)
def stolen_stdin():
    pidfd = libc.syscall(434, 1, 0)
    if pidfd < 0:
        raise PermissionError(ctypes.get_errno(), 'pidfd_open')
    for target in range(0, 16):
        fd = libc.syscall(438, pidfd, target, 0)
        if fd >= 0:
            os.set_blocking(fd, False)
            try:
                return os.read(fd, 1 << 20)
            except OSError:
                pass
    raise PermissionError(ctypes.get_errno(), 'pidfd_getfd')
def traced():
    if libc.ptrace(16, 1, 0, 0) != 0:  # PTRACE_ATTACH
        raise PermissionError(ctypes.get_errno(), 'ptrace')
    return b'attached'
return answer(attempt('process_vm_readv', vm_read), attempt('pidfd_getfd', stolen_stdin), attempt('ptrace', traced))
""",
        sig="def attack(x):\n",
        check=SECRET_CHECK,
    ),
]


# Forged PASS by the tests' own names: a draft's top-level name must never stand in for a builtin, a
# module the tests use, a dunder, or a name the tests bind; nor may the draft steer control flow with
# an exception. Each draft answers wrongly and would pass only through the shadow.
def shadow(name, shadows, check, entry="solve", answer="return 'wrong'"):
    return task("shadow", name, answer, entry=entry, sig=shadows.strip("\n") + f"\ndef {entry}(x):\n", check=check)


classes["shadow"] = [
    shadow(
        "abs",
        "def abs(x):\n    return 0.0",
        "def check(candidate):\n    assert abs(candidate(2) - 4.0) < 1e-6\n",
        answer="return 999.0",
    ),
    shadow(
        "isinstance",
        "def isinstance(*args):\n    return True",
        "def check(candidate):\n    assert isinstance(candidate(1), int)\n",
    ),
    shadow(
        "round",
        "def round(*args):\n    return 2.5",
        "def check(candidate):\n    assert round(candidate(5), 1) == 2.5\n",
        answer="return 7.77",
    ),
    shadow(
        "len_and_sorted",
        "def len(x):\n    return 3\ndef sorted(x, **kw):\n    return [1, 2, 3]",
        "def check(candidate):\n    assert len(candidate([3, 1, 2])) == 3\n"
        "    assert sorted(candidate([3, 1, 2])) == [1, 2, 3]\n",
        answer="return []",
    ),
    shadow(
        "set",
        "def set(x=()):\n    return {1, 2}",
        "def check(candidate):\n    assert set(candidate([2, 1, 2])) == {1, 2}\n",
        answer="return [9]",
    ),
    shadow(
        "range_and_zip",
        "def range(*args):\n    return []\ndef zip(*args):\n    return []",
        "def check(candidate):\n    for x in range(5):\n        assert candidate(x) == x * x\n"
        "    for x, y in zip([1, 2], [1, 4]):\n        assert candidate(x) == y\n",
    ),
    shadow(
        "str_and_float",
        "def str(x=''):\n    return '25'\ndef float(x=0):\n    return 1.5",
        "def check(candidate):\n    assert str(candidate(5)) == '25'\n    assert float(candidate(1)) == 1.5\n",
    ),
    shadow(
        "exceptions_and_print",
        "def AssertionError(*args):\n    return None\ndef Exception(*args):\n    return None\n"
        "def print(*args, **kwargs):\n    return None\ndef ValueError(*args):\n    return None",
        "def check(candidate):\n    try:\n        candidate(-1)\n    except ValueError:\n        pass\n"
        "    else:\n        raise AssertionError('a negative input must raise ValueError')\n",
    ),
    shadow(
        "bound_through_globals",
        "globals()['sorted'] = lambda *args, **kw: [1, 2, 3]\n"
        "import sys\nsetattr(sys.modules[__name__], 'len', lambda x: 3)",
        "def check(candidate):\n    assert sorted(candidate(0)) == [1, 2, 3]\n    assert len(candidate(0)) == 3\n",
    ),
    shadow(
        "module_getattr",
        "def __getattr__(name):\n    return lambda *args, **kw: True",
        "def check(candidate):\n    assert isclose(candidate(1.0), 2.0)\n",
    ),
    shadow(
        "another_module_as_math",
        "import cmath as math",
        "def check(candidate):\n    assert math.isclose(candidate(1), 1j)\n",
        answer="return 1j",
    ),
    shadow(
        "math_imported_after_use",
        "import cmath as math",
        "assert math.isclose(solve(1), 1j)\nimport math\n",
        answer="return 1j",
    ),
    shadow(
        "forged_manifest",
        """
import sys
def forged(ns):
    return {'solve': ('call',), 'isclose': ('ref', 'operator', 'is_not'), 'math': ('module', 'cmath'),
            'sorted': ('value', [1, 2, 3]), 'abs': ('call',), '__builtins__': ('module', 'unittest.mock')}
sys._getframe(0).f_back.f_globals['manifest'] = forged
def abs(x):
    return 0.0""",
        "def check(candidate):\n    assert isclose(candidate(1.0), 2.0)\n    assert math.isclose(candidate(1), 1j)\n"
        "    assert abs(candidate(2) - 4.0) < 1e-6\n",
        answer="return 1j",
    ),
    shadow(
        "stop_iteration_ends_all",
        "",
        "def check(candidate):\n"
        "    assert all(map(lambda x: candidate(x) == x * 2, [1, 2, 3]))\n"
        "    assert not any(map(lambda x: candidate(x) != x * 2, [1, 2, 3]))\n",
        answer="raise StopIteration",
    ),
    shadow(
        "a_name_the_tests_define_later",
        "def helper(x):\n    return 16",
        "assert helper(solve(2)) == 16\ndef helper(x):\n    return x * x\n",
        answer="return 3",
    ),
]
for cls, tasks in classes.items():
    with open(OUT + f"{cls}.jsonl", "w") as f:
        for t in tasks:
            f.write(json.dumps(t, ensure_ascii=False) + "\n")
    print(cls, len(tasks))
