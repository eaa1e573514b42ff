"""Concurrent lanes: several runs side by side, each driven by its own RunHandle.

The core stays synchronous: a lane is an ordinary `stream()` generator, iterated in its handle's
thread. The caller (a page's script thread) drains the handles and renders; `stop()` stops every
handle, which closes its generator — and any open HTTP stream — and keeps every event already made.
Waiting on the network releases the GIL, so lanes that wait on an endpoint overlap almost perfectly.
"""

from __future__ import annotations

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

    def stream(self, _handle: object) -> Iterator[ev.Event]:
        """The lane's run, as its RunHandle starts it (the handle passes itself, which a lane needs not)."""
        return self.start()


class LaneSet:
    """Runs lanes concurrently, each on its own RunHandle (the one driver of runs, agent_core.stepping);
    drain their events from one thread."""

    def __init__(self, lanes: list[Lane]) -> None:
        from .stepping import RunHandle

        self.lanes = lanes
        self.handles = [RunHandle(lane.stream) for lane in lanes]
        self.started_at = 0.0

    def start(self) -> LaneSet:
        self.started_at = time.perf_counter()
        for handle in self.handles:
            handle.start()
        return self

    @property
    def running(self) -> bool:
        return not all(lane.done for lane in self.lanes)

    def drain(self, timeout: float = 0.1) -> list[tuple[int, ev.Event]]:
        """Events that arrived since the last drain (waits up to `timeout` for the first one)."""
        deadline = time.perf_counter() + timeout
        while True:
            out = self._take()
            if out or not self.running or time.perf_counter() >= deadline:
                return out
            time.sleep(0.005)

    def _take(self) -> list[tuple[int, ev.Event]]:
        out: list[tuple[int, ev.Event]] = []
        for index, (lane, handle) in enumerate(zip(self.lanes, self.handles, strict=True)):
            finished = handle.finished.is_set()  # read first: every event of a finished run is queued
            for event in handle.drain():
                lane.events.append(event)
                out.append((index, event))
            lane.done = lane.done or finished
        return out

    def stop(self, timeout: float = 5.0) -> None:
        """Stop every lane after its current event, wait for them, keep all events.

        A lane still waiting on its endpoint stops when that call returns or times out; a stopped lane
        ends with a `run_finished` whose reason is "stop".
        """
        for handle in self.handles:
            handle.stop()
        deadline = time.perf_counter() + timeout
        for handle in self.handles:
            handle.join(max(0.0, deadline - time.perf_counter()))
        self._take()
        for lane in self.lanes:
            if not lane.events or not isinstance(lane.events[-1], ev.RunFinished):
                t = lane.events[-1].t if lane.events else 0.0
                lane.events.append(ev.RunFinished(t=t, reason="stop"))

    def join(self, poll: float = 0.05) -> None:
        """Drain until every lane has finished (for scripts and tests)."""
        while self.running:
            self.drain(timeout=poll)

    def alive_workers(self) -> int:
        return sum(handle.alive for handle in self.handles)
