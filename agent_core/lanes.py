"""Concurrent lanes: several runs side by side, each in its own worker thread.

The core stays synchronous: a lane is an ordinary `stream()` generator, iterated by a worker that
puts `(lane index, event)` on one queue. The caller (a page's script thread) drains the queue and
renders; `stop()` asks every worker to close its generator — which closes any open HTTP stream —
and keeps every event already produced. Waiting on the network releases the GIL, so lanes that wait
on an endpoint overlap almost perfectly.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from . import events as ev

StreamFactory = Callable[[], Iterator[ev.Event]]


@dataclass
class Lane:
    """One lane: a name for the UI and a factory that starts its run (so it starts in the worker)."""

    name: str
    start: StreamFactory
    events: list[ev.Event] = field(default_factory=list)
    done: bool = False


class LaneSet:
    """Runs lanes concurrently; drain their events from one thread."""

    def __init__(self, lanes: list[Lane]) -> None:
        self.lanes = lanes
        self._queue: queue.Queue[tuple[int, ev.Event | None]] = queue.Queue()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._work, args=(i,), name=f"lane-{i}", daemon=True)
                         for i in range(len(lanes))]
        self.started_at = 0.0

    def start(self) -> LaneSet:
        self.started_at = time.perf_counter()
        for thread in self._threads:
            thread.start()
        return self

    def _work(self, index: int) -> None:
        stream: Iterator[ev.Event] | None = None
        try:
            stream = self.lanes[index].start()
            for event in stream:
                self._queue.put((index, event))
                if self._stop.is_set():
                    break
        except Exception as exc:  # a lane that cannot even start must not take the others down
            self._queue.put((index, ev.RunFailed(error_type=type(exc).__name__, message=str(exc))))
            self._queue.put((index, ev.RunFinished(reason="error")))
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
            self._queue.put((index, None))  # this lane is finished

    @property
    def running(self) -> bool:
        return not all(lane.done for lane in self.lanes)

    def drain(self, timeout: float = 0.1) -> list[tuple[int, ev.Event]]:
        """Events that arrived since the last drain (waits up to `timeout` for the first one)."""
        out: list[tuple[int, ev.Event]] = []
        try:
            item = self._queue.get(timeout=timeout)
            while True:
                index, event = item
                if event is None:
                    self.lanes[index].done = True
                else:
                    self.lanes[index].events.append(event)
                    out.append((index, event))
                item = self._queue.get_nowait()
        except queue.Empty:
            pass
        return out

    def stop(self, timeout: float = 5.0) -> None:
        """Ask every lane to stop after its current event, wait for the workers, keep all events.

        A lane still waiting on its endpoint stops when that call returns or times out; a stopped lane
        that did not finish gets a `run_finished` with reason "stop".
        """
        self._stop.set()
        deadline = time.perf_counter() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.perf_counter()))
        self.drain(timeout=0)
        for lane in self.lanes:
            if not lane.events or not isinstance(lane.events[-1], ev.RunFinished):
                t = lane.events[-1].t if lane.events else 0.0
                lane.events.append(ev.RunFinished(t=t, reason="stop"))

    def join(self, poll: float = 0.05) -> None:
        """Drain until every lane has finished (for scripts and tests)."""
        while self.running:
            self.drain(timeout=poll)

    def alive_workers(self) -> int:
        return sum(thread.is_alive() for thread in self._threads)
