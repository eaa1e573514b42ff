"""One server-wide limit on judged runs at once, with a bounded, fair, cancellable queue.

Every judged run of this process (`run_python_tests`: Eval's pool, Reflection's unit-test evaluator,
the CLI) holds one of N *slots* while its sandbox lives, so the bytes judged code can hold on this
server are at most N times one run's bound, however many sessions judge at once. N is
AGENT_PLAYGROUND_JUDGE_SLOTS, else the CPUs this process may use (agent_core.settings.judge_slots).

A run that finds every slot taken waits in line. The line is bounded (`MAX_WAITING` in all,
`MAX_WAITING_PER_CALLER` for one caller, beyond which `QueueFull` says so at once) and fair: a freed
slot goes to the waiting caller that holds the fewest slots, among equals to the one served longest
ago, then to the one that asked first; one caller's runs go in the order they asked. So one session's
32 runs cannot keep another's one run waiting for more than one run's time.
A *caller* is whoever `acting_for` names (an evaluation names itself; a session may), else the thread.
A wait ends early with `WaitCancelled` once the check given to `cancelled_when` says so (a Stop, a
closed session), and `state()` says where a caller stands, for a page to show.

Both are context variables, so they follow a run into the threads its caller starts when that
caller copies its context (agent_core.evaluation.pool and agent_core.stepping do).
"""

from __future__ import annotations

import contextvars
import heapq
import itertools
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .. import settings
from ..errors import AgentError

#: Runs that may wait for a slot at once, across the server; beyond it a run is refused.
MAX_WAITING = 256
#: Runs one caller may have waiting: an evaluation's most runs at once (evaluation.pool.MAX_CONCURRENCY).
MAX_WAITING_PER_CALLER = 32
#: How often a waiter with a cancel check asks it (`wake()` makes every waiter ask at once).
POLL_S = 0.2


class QueueFull(AgentError):
    """The server's queue of judged runs is full (or this caller's share of it): the run was not started."""

    code = "judge_queue_full"

    def __init__(self, waiting: int, limit: int, *, mine: bool = False) -> None:
        self.waiting, self.limit, self.mine = waiting, limit, mine
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        if lang == "zh":
            if self.mine:
                return (
                    f"你已有 {self.waiting} 个评测在排队等待（每个会话最多 {self.limit} 个），这次没有运行："
                    "请等前面的完成，或调低并发数。"
                )
            return f"服务器的评测队列已满（{self.waiting} 个在等待，上限 {self.limit}），这次没有运行：请稍后再试。"
        if self.mine:
            return (
                f"you already have {self.waiting} judged runs waiting (at most {self.limit} per session), so "
                "this one was not started: wait for them, or lower the concurrency."
            )
        return (
            f"the server's queue of judged runs is full ({self.waiting} waiting, at most {self.limit}), so "
            "this one was not started: try again in a minute."
        )


class WaitCancelled(AgentError):
    """A run stopped waiting for a judge slot because its caller was stopped or went away."""

    code = "judge_wait_cancelled"

    def __init__(self) -> None:
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        if lang == "zh":
            return "已停止：在等待评测槽位时被取消，代码没有运行。"
        return "stopped while waiting for a judge slot; the code was not run."


@dataclass(frozen=True)
class QueueState:
    """Where the server's judged runs stand, and (for a named caller) where that caller does."""

    slots: int
    running: int
    waiting: int
    #: 1 when the caller's first waiting run is next in line; None when the caller waits for nothing
    position: int | None = None
    caller_running: int = 0
    caller_waiting: int = 0


class _Waiter:
    __slots__ = ("caller", "ticket", "wakeup", "granted")

    def __init__(self, caller: str, ticket: int, wakeup: threading.Condition) -> None:
        self.caller, self.ticket, self.wakeup, self.granted = caller, ticket, wakeup, False


class Admission:
    """N slots and a line for them. Thread-safe; `slot()` is the way in."""

    def __init__(
        self, slots: int, *, max_waiting: int = MAX_WAITING, max_waiting_per_caller: int = MAX_WAITING_PER_CALLER
    ) -> None:
        if slots < 1 or max_waiting < 0 or max_waiting_per_caller < 0:
            raise ValueError("slots must be at least 1 and the queue bounds not negative")
        self.slots, self.max_waiting, self.max_waiting_per_caller = slots, max_waiting, max_waiting_per_caller
        self._lock = threading.Lock()
        self._tickets = itertools.count()
        self._running: dict[str, int] = {}
        self._lines: dict[str, deque[_Waiter]] = {}
        self._served: dict[str, int] = {}  # when each caller with runs in line or running was last served
        self._grants = itertools.count()
        self._in_use = self._waiting = 0

    @contextmanager
    def slot(self, caller: str | None = None, cancelled: Callable[[], bool] | None = None) -> Iterator[None]:
        """Hold a slot for the block, waiting in line for it. `caller` and `cancelled` default to the
        context's (`acting_for`, `cancelled_when`). Raises QueueFull or WaitCancelled instead of waiting."""
        caller = caller or current_caller()
        self.acquire(caller, _CANCELLED.get() if cancelled is None else cancelled)
        try:
            yield
        finally:
            self.release(caller)

    def acquire(self, caller: str, cancelled: Callable[[], bool] | None = None) -> None:
        if cancelled is not None and cancelled():
            raise WaitCancelled()
        with self._lock:
            mine = len(self._lines.get(caller, ()))
            if self._in_use >= self.slots:  # it would wait: is there room in line?
                if mine >= self.max_waiting_per_caller:
                    raise QueueFull(mine, self.max_waiting_per_caller, mine=True)
                if self._waiting >= self.max_waiting:
                    raise QueueFull(self._waiting, self.max_waiting)
            waiter = _Waiter(caller, next(self._tickets), threading.Condition(self._lock))
            self._lines.setdefault(caller, deque()).append(waiter)
            self._waiting += 1
            self._grant()
        try:
            while True:
                with self._lock:
                    if not waiter.granted:
                        waiter.wakeup.wait(None if cancelled is None else POLL_S)
                    if waiter.granted:
                        return
                if cancelled is not None and cancelled():  # asked outside the lock: it may be slow
                    raise WaitCancelled()
        except BaseException:  # cancelled, or the check itself failed: leave no waiter and no slot behind
            with self._lock:
                if waiter.granted:  # granted meanwhile: hand the slot on
                    self._release(caller)
                else:
                    self._drop(waiter)
            raise

    def release(self, caller: str) -> None:
        with self._lock:
            self._release(caller)

    def wake(self) -> None:
        """Make every waiter ask its cancel check now (a page's Stop calls it)."""
        with self._lock:
            for line in self._lines.values():
                for waiter in line:
                    waiter.wakeup.notify()

    def state(self, caller: str | None = None) -> QueueState:
        """The server's counts, and the caller's place in line (as if no slot freed meanwhile)."""
        with self._lock:
            mine = self._lines.get(caller, ()) if caller else ()
            position = None
            if mine:
                first = mine[0]
                position = next(i for i, w in enumerate(self._order(), 1) if w is first)
            return QueueState(
                self.slots,
                self._in_use,
                self._waiting,
                position,
                self._running.get(caller, 0) if caller else 0,
                len(mine),
            )

    # -- under the lock ----------------------------------------------------------------------------
    def _release(self, caller: str) -> None:
        left = self._running.get(caller, 0) - 1
        if left < 0:
            raise RuntimeError(f"{caller!r} released a judge slot it did not hold")
        if left:
            self._running[caller] = left
        else:
            del self._running[caller]
            if caller not in self._lines:
                self._served.pop(caller, None)  # gone from the server: nothing to remember
        self._in_use -= 1
        self._grant()

    def _drop(self, waiter: _Waiter) -> None:
        line = self._lines[waiter.caller]
        line.remove(waiter)
        if not line:
            del self._lines[waiter.caller]
            if waiter.caller not in self._running:
                self._served.pop(waiter.caller, None)
        self._waiting -= 1

    def _priority(self, caller: str) -> tuple[int, int, int]:
        return self._running.get(caller, 0), self._served.get(caller, -1), self._lines[caller][0].ticket

    def _grant(self) -> None:
        """Free slots go to the callers holding the fewest, then served longest ago, then asking first."""
        while self._in_use < self.slots and self._waiting:
            caller = min(self._lines, key=self._priority)
            waiter = self._lines[caller][0]
            self._drop(waiter)
            self._running[caller] = self._running.get(caller, 0) + 1
            self._served[caller] = next(self._grants)
            self._in_use += 1
            waiter.granted = True
            waiter.wakeup.notify()

    def _order(self) -> Iterator[_Waiter]:
        """The waiters in the order `_grant` would serve them if no slot freed meanwhile."""
        heads = [(*self._priority(c), c, 0) for c in self._lines]
        heapq.heapify(heads)
        later = itertools.count(2**62)  # simulated grants come after every real one
        while heads:
            held, _served, _ticket, caller, index = heapq.heappop(heads)
            line = self._lines[caller]
            yield line[index]
            if index + 1 < len(line):
                heapq.heappush(heads, (held + 1, next(later), line[index + 1].ticket, caller, index + 1))


# --- the caller of a run, and when its wait ends -------------------------------------------------------

_CALLER: contextvars.ContextVar[str | None] = contextvars.ContextVar("judge_caller", default=None)
_CANCELLED: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar("judge_cancelled", default=None)


def named_caller() -> str | None:
    """The caller `acting_for` set in this context, if any."""
    return _CALLER.get()


def current_caller() -> str:
    """Who a run judged here counts against: the context's caller, else this thread."""
    return _CALLER.get() or f"thread-{threading.get_ident()}"


@contextmanager
def acting_for(caller: str) -> Iterator[None]:
    """Judged runs started in this context (and contexts copied from it) count against `caller`."""
    token = _CALLER.set(caller)
    try:
        yield
    finally:
        _CALLER.reset(token)


@contextmanager
def cancelled_when(check: Callable[[], bool] | None) -> Iterator[None]:
    """A wait for a slot in this context ends with WaitCancelled once `check()` is true (or an outer
    check is). None adds nothing."""
    outer = _CANCELLED.get()
    if check is None or outer is None:
        combined = outer if check is None else check
    else:

        def combined() -> bool:
            return outer() or check()

    token = _CANCELLED.set(combined)
    try:
        yield
    finally:
        _CANCELLED.reset(token)


_server: Admission | None = None
_server_lock = threading.Lock()


def server() -> Admission:
    """This process's admission, created on first use with settings.judge_slots() slots."""
    global _server
    if _server is None:
        with _server_lock:
            if _server is None:
                _server = Admission(settings.judge_slots())
    return _server
