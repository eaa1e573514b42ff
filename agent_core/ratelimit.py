"""One back-off for many concurrent runs: a 429 seen by any of them makes every call wait.

Runs that share an endpoint also share its rate limit. When one of them is refused with HTTP 429
(after the SDK's own retries), `RateGate` closes for the time the server asked (`retry-after`), or
for an exponential back-off when it named none; every `GatedModel` on that gate waits for it to
open before its next call, and the refused call is tried again. So a burst of 429s slows the whole
pool down instead of failing tasks. Calls are retried only before they stream anything: a 429 is
an answer to the request, never a cut in a reply.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Protocol

from .errors import EndpointConnectionError, RateLimitError
from .messages import ChatRequest, Completion
from .models import ChatModel, ModelRouter

#: Waits the gate takes when a 429 names none: 1 s, doubling with every refusal in a row.
BACKOFF_START_S = 1.0
#: Never wait longer than this at once, whatever a server asks (a run must end, and Stop must answer).
MAX_WAIT_S = 120.0
#: How many times one call is refused before its run fails with the rate-limit error.
MAX_ATTEMPTS = 8


class Gate(Protocol):
    """What a GatedModel asks of its gate: a RateGate, or one whose state lives elsewhere (Eval's Ray
    backend keeps it in an actor every worker shares)."""

    def wait(self) -> bool: ...
    def close_for(self, retry_after: float | None) -> float: ...
    def passed(self) -> None: ...


class RateGate:
    """Shared by every model in a pool: closed for a while after a 429, open otherwise."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, max_wait_s: float = MAX_WAIT_S) -> None:
        self._clock = clock
        self._max_wait_s = max_wait_s
        self._lock = threading.Lock()
        self._open_at = 0.0
        self._streak = 0
        #: 429s seen, and the seconds the gate was closed for in all (for progress lines and tests)
        self.refusals = 0
        self.waited_s = 0.0
        self.stopped = threading.Event()

    def close_for(self, retry_after: float | None) -> float:
        """A call was refused: keep the gate closed for the server's wait, or the next back-off step."""
        with self._lock:
            self.refusals += 1
            self._streak += 1
            wait = retry_after if retry_after is not None else BACKOFF_START_S * 2 ** (self._streak - 1)
            wait = min(max(0.0, wait), self._max_wait_s)
            open_at = self._clock() + wait
            if open_at > self._open_at:
                self.waited_s += open_at - max(self._open_at, self._clock())
                self._open_at = open_at
            return wait

    def passed(self) -> None:
        """A call got through: the next 429 starts the back-off from its first step again."""
        with self._lock:
            self._streak = 0

    def remaining(self) -> float:
        """Seconds until the gate opens (0 when open)."""
        with self._lock:
            return max(0.0, self._open_at - self._clock())

    def wait(self) -> bool:
        """Block until the gate is open; False when the pool was stopped meanwhile."""
        while (left := self.remaining()) > 0:
            if self.stopped.wait(min(left, 0.25)):
                return False
        return not self.stopped.is_set()

    def stop(self) -> None:
        """Wake every waiting call: the pool is stopping."""
        self.stopped.set()


class GatedModel:
    """A ChatModel that waits on a shared RateGate before each call and retries a refused one."""

    def __init__(self, model: ChatModel, gate: Gate, max_attempts: int = MAX_ATTEMPTS) -> None:
        self.model = model
        self.name = model.name
        self.gate = gate
        self.max_attempts = max_attempts

    def __repr__(self) -> str:
        return f"GatedModel({self.model!r})"

    def stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        """The wrapped model's stream, once the gate is open; a 429 closes the gate and tries again."""
        for attempt in range(1, self.max_attempts + 1):
            if not self.gate.wait():
                raise EndpointConnectionError("the evaluation was stopped while this call waited out a rate limit")
            try:
                yield from self.model.stream(request)
            except RateLimitError as exc:
                # Nothing was yielded: a 429 is raised when the request is answered, before any chunk.
                if attempt == self.max_attempts:
                    raise
                self.gate.close_for(exc.retry_after)
                continue
            self.gate.passed()
            return


def gated(models: ModelRouter, gate: Gate) -> ModelRouter:
    """The same role binding, every model behind one gate (a model bound to several roles is wrapped
    once; a model already gated keeps its own gate)."""
    wrapped: dict[int, ChatModel] = {}

    def wrap(model: ChatModel) -> ChatModel:
        if isinstance(model, GatedModel):
            return model
        return wrapped.setdefault(id(model), GatedModel(model, gate))

    return ModelRouter(wrap(models.default), {role: wrap(m) for role, m in models.by_role.items()})
