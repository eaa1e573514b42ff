"""`streamlit run` with a CPU-weighted stack sampler inside, for bench_load.py's --profile.

py-spy is not on the machine, and cProfile sees one thread at twice the cost. This samples every
thread of the server from a thread of its own: every INTERVAL_S it reads each thread's time on a CPU
from /proc/self/task/<tid>/schedstat (nanoseconds, kept open and re-read with pread, so the sampler
costs a few syscalls a tick) and charges the time each thread ran since the last tick to the Python
stack that thread has now (sys._current_frames). Threads that only waited ran for no time and cost
nothing, so the profile is where the server's CPU went, not where its threads sat.

SIGUSR1 starts a window (the counts so far are dropped), SIGUSR2 ends it and writes the profile as
JSON to $AGENT_BENCH_PROFILE_OUT: CPU seconds by kind of thread (the event loop that speaks the
websockets, script runs, run handles, ...) and by stack, collapsed to "file:function" frames.

    AGENT_BENCH_PROFILE_OUT=/tmp/p.json python tests/bench/_server_profile.py run app.py ...
"""

from __future__ import annotations

import collections
import json
import os
import signal
import sys
import threading
import time

INTERVAL_S = 0.01
#: frames kept from the leaf up: enough to reach the page code from inside Streamlit or protobuf
DEPTH = 40


def kind(name: str) -> str:
    """The sort of work a thread does, from the name Python or Streamlit gave it."""
    if name == "MainThread":
        return "event loop (tornado: websockets, HTTP, forward messages)"
    if name.startswith("ScriptRunner"):
        return "script runs (pages, drawing)"
    if name.startswith("run-handle"):
        return "run handles (the runs: model, parsing, verdicts)"
    return name.rstrip("0123456789-_ ") or "other"


def where(code) -> str:  # noqa: ANN001 (a code object)
    path = code.co_filename
    for marker in ("site-packages/", "/work/main/", "lib/python3.11/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{path}:{code.co_name}"


class Sampler(threading.Thread):
    def __init__(self, out: str) -> None:
        super().__init__(name="bench-profiler", daemon=True)
        self.out = out
        self.on = False
        self._fds: dict[int, int] = {}
        self._last: dict[int, int] = {}
        self.reset()

    def reset(self) -> None:
        self.by_kind: collections.Counter[str] = collections.Counter()
        self.stacks: collections.Counter[tuple[str, tuple[str, ...]]] = collections.Counter()
        self.began = time.monotonic()
        self.ticks = 0

    def _ran_ns(self, tid: int) -> int | None:
        fd = self._fds.get(tid)
        try:
            if fd is None:
                fd = self._fds[tid] = os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY)
            return int(os.pread(fd, 128, 0).split()[0])
        except (OSError, ValueError):
            if fd is not None:
                os.close(self._fds.pop(tid))
            return None

    def run(self) -> None:
        me = threading.get_ident()
        while True:
            time.sleep(INTERVAL_S)
            if not self.on:
                continue
            frames = sys._current_frames()
            self.ticks += 1
            for thread in threading.enumerate():
                if thread.ident == me or thread.native_id is None:
                    continue
                ran = self._ran_ns(thread.native_id)
                if ran is None:
                    continue
                before = self._last.get(thread.native_id, ran)
                self._last[thread.native_id] = ran
                if ran <= before:
                    continue
                frame, stack = frames.get(thread.ident), []
                while frame is not None and len(stack) < DEPTH:
                    stack.append(where(frame.f_code))
                    frame = frame.f_back
                group = kind(thread.name)
                self.by_kind[group] += ran - before
                self.stacks[(group, tuple(stack))] += ran - before

    def start_window(self, *_: object) -> None:
        self.reset()
        self._last.clear()
        self.on = True

    def end_window(self, *_: object) -> None:
        self.on = False
        wall = time.monotonic() - self.began
        profile = {
            "wall_s": wall,
            "ticks": self.ticks,
            "by_kind_s": {k: v / 1e9 for k, v in self.by_kind.most_common()},
            "stacks": [
                {"kind": group, "stack": list(stack), "s": ns / 1e9}
                for (group, stack), ns in self.stacks.most_common()
                if ns >= 1e6
            ],
        }
        with open(self.out, "w", encoding="utf-8") as fh:
            json.dump(profile, fh)


if __name__ == "__main__":
    sampler = Sampler(os.environ["AGENT_BENCH_PROFILE_OUT"])
    sampler.start()
    signal.signal(signal.SIGUSR1, sampler.start_window)
    signal.signal(signal.SIGUSR2, sampler.end_window)
    sys.argv = ["streamlit", *sys.argv[1:]]
    from streamlit.web.cli import main

    main()
