"""Run an evaluation's jobs N at a time, and hand back progress and rows in the order of a sequential run.

Each job (one pattern on one task) runs in a worker thread: waiting on a model endpoint releases the
GIL, and judging runs in a sandbox subprocess, so N workers use the network and the cores at once.
Results come back in job order whatever order they finish in, so the rows, the CSV and the scores
are those of a sequential run. `stop()` may be called from any thread (a page's Stop callback): it
asks every worker to close its run (which closes its HTTP stream) at its next event, drops the
unfinished runs, and keeps every finished row, including rows not yet handed out (`finished_rows`).

Judging takes one of the server's judge slots (agent_core.sandbox.admission), shared with every other
session: the evaluation is one caller there, its workers wait in line when the slots are taken, a
stop (or a cancel check of the context it was made in) ends their wait, and while any of them waits
the iteration also yields the line's `QueueState` about every HEARTBEAT_S and as runs finish, then
once more when none of its workers waits any longer.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from ..ratelimit import RateGate
from ..sandbox import admission

#: The most tasks an evaluation may run at once (each holds a connection and, when judging, a process).
MAX_CONCURRENCY = 32
DEFAULT_CONCURRENCY = 4
#: How often the iteration looks at the judge queue while its workers wait there (seconds).
HEARTBEAT_S = 0.5


@dataclass(frozen=True)
class EvalProgress:
    """A run is about to start: `index` runs of `total` are done, `running` are under way."""

    index: int
    total: int
    task_id: str
    pattern: str
    running: int = 1

    @property
    def fraction(self) -> float:
        return self.index / self.total if self.total else 1.0


@dataclass(frozen=True)
class Job:
    """One pattern on one task, at its place in the sequential order."""

    index: int
    task_id: str
    pattern: str
    payload: Any


#: Runs a job; returns its row, or None when `stopped` was set before the row was complete.
RunJob = Callable[[Job, threading.Event], Any]


class Evaluation:
    """An evaluation under way: iterate it for EvalProgress and rows (in job order); stop it any time."""

    def __init__(
        self,
        jobs: Sequence[Job],
        run: RunJob,
        *,
        concurrency: int = 1,
        gate: RateGate | None = None,
        stop_timeout_s: float = 5.0,
    ) -> None:
        self.jobs = list(jobs)
        self.total = len(self.jobs)
        self.concurrency = max(1, min(concurrency, self.total or 1))
        self.gate = gate or RateGate()
        self._run = run
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._next_job = 0
        self._rows: dict[int, Any] = {}
        self._events: queue.Queue[tuple[str, int, Any]] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._stop_timeout_s = stop_timeout_s
        #: who this evaluation's judged runs count against in the server's judge queue
        self.caller = admission.named_caller() or f"evaluation-{id(self):x}"
        self._context = contextvars.copy_context()  # a page's cancel check reaches the workers' waits
        self._items = self._generate()

    # -- the iterator ------------------------------------------------------------------------------
    def __iter__(self) -> Evaluation:
        return self

    def __next__(self) -> Any:
        return next(self._items)

    def close(self) -> None:
        """Stop the evaluation and end the iteration (call it from the iterating thread)."""
        self._items.close()
        self.stop()

    def _generate(self) -> Generator[Any, None, None]:
        self._threads = [
            threading.Thread(target=self._context.copy().run, args=(self._work,), name=f"eval-{i}", daemon=True)
            for i in range(self.concurrency)
        ]
        for thread in self._threads:
            thread.start()
        done, running, next_out, exited, ready = 0, 0, 0, 0, {}
        look_at, was_waiting = time.monotonic() + HEARTBEAT_S, False
        try:
            while next_out < self.total and exited < len(self._threads):
                try:
                    kind, index, value = self._events.get(timeout=HEARTBEAT_S)
                except queue.Empty:
                    kind, index, value = "idle", -1, None
                if time.monotonic() >= look_at or (was_waiting and kind == "done"):  # a run done: the line moved
                    look_at = time.monotonic() + HEARTBEAT_S
                    line = admission.server().state(self.caller)
                    if line.caller_waiting or was_waiting:
                        was_waiting = bool(line.caller_waiting)
                        yield line
                if kind == "idle":
                    continue
                if kind == "error":
                    raise value
                if kind == "exit":  # a worker left: no job left, or the pool was stopped
                    exited += 1
                elif kind == "start":
                    running += 1
                    job = self.jobs[index]
                    yield EvalProgress(done, self.total, job.task_id, job.pattern, running)
                else:
                    done, running = done + 1, running - 1
                    ready[index] = value
                    while next_out in ready:
                        yield ready.pop(next_out)
                        next_out += 1
            if was_waiting:
                yield admission.server().state(self.caller)
        finally:
            self.stop()

    # -- the workers -------------------------------------------------------------------------------
    def _take(self) -> Job | None:
        with self._lock:
            if self._stop.is_set() or self._next_job >= self.total:
                return None
            job = self.jobs[self._next_job]
            self._next_job += 1
            return job

    def _work(self) -> None:
        try:
            with admission.acting_for(self.caller), admission.cancelled_when(self._stop.is_set):
                self._jobs()
        finally:
            self._events.put(("exit", -1, None))

    def _jobs(self) -> None:
        while (job := self._take()) is not None:
            self._events.put(("start", job.index, None))
            try:
                row = self._run(job, self._stop)
            except admission.WaitCancelled:  # stopped, or whoever started it went away, while in line
                self._stop.set()
                return
            except BaseException as exc:  # a bug, not a failed run (those are rows): end the evaluation
                self._stop.set()
                self._events.put(("error", job.index, exc))
                return
            if row is None:  # stopped part-way: the unfinished run is dropped
                return
            with self._lock:
                self._rows[job.index] = row
            self._events.put(("done", job.index, row))

    # -- stopping ----------------------------------------------------------------------------------
    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def stop(self, timeout: float | None = None) -> None:
        """Ask every worker to end its run at the next event, and wait for them (from any thread)."""
        self._stop.set()
        self.gate.stop()
        admission.server().wake()  # workers waiting for a judge slot see the stop now
        deadline = time.monotonic() + (self._stop_timeout_s if timeout is None else timeout)
        for thread in self._threads:
            if thread is not threading.current_thread() and thread.ident is not None:
                thread.join(max(0.0, deadline - time.monotonic()))

    @property
    def in_flight(self) -> int:
        """Runs started and not yet finished."""
        with self._lock:
            return self._next_job - len(self._rows)

    def finished_rows(self) -> list[Any]:
        """Every row finished so far, in job order (also those the iteration has not reached yet)."""
        with self._lock:
            return [self._rows[i] for i in sorted(self._rows)]

    def alive_workers(self) -> int:
        return sum(thread.is_alive() for thread in self._threads)
