"""`--backend ray`: every task × pattern × repeat a Ray task, rows streamed back as they finish.

An optional extra (`pip install -r requirements-ray.txt`). `ray.init()` starts a local instance on this
machine; `--ray-address` (or `RAY_ADDRESS`) joins a cluster (`ray start --head` on one node, `ray start
--address HEAD:6379` on the others; every node needs this project installed, with bubblewrap for code
sets). Each job runs `backends.run_job` — the local pool's own function — on the worker that holds
it, so a row says what the pool's would (only its latency differs), and judged code runs in the
sandbox of that worker's machine. At most `concurrency` jobs are in flight at once.

Every model call of every worker goes through one rate gate (a Ray actor holding a ratelimit.RateGate),
as the local pool's calls go through one gate: a 429 seen on any worker makes every worker wait.
Models travel as what builds them (an endpoint's URL, model name, key and timeout; the offline
model as itself), and a worker builds each once and keeps it for its later jobs: an HTTP client
cannot be pickled, and the key reaches the workers through Ray's object store, so join only a
cluster you trust with it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Collection, Generator
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..models import ChatModel, ModelRouter
from ..pricing import PriceTable
from ..ratelimit import RateGate
from . import backends
from .rows import ResultRow

#: CPUs a job reserves: runs mostly wait on the network, so several share a core
JOB_CPUS = 0.25
_ROOT = str(Path(__file__).resolve().parents[2])
#: environment a local instance's workers get: this checkout on their path, the sandbox setting as here
_FORWARDED = ("AGENT_PLAYGROUND_UNSAFE_SANDBOX", "AGENT_PLAYGROUND_JUDGE_SLOTS")


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError("--backend ray needs Ray: pip install -r requirements-ray.txt") from None
    return ray


def portable(model: ChatModel) -> Any:
    """What rebuilds `model` on a worker: (class, keyword arguments) for an endpoint, else the model."""
    from ..llm import OpenAICompatibleModel

    if isinstance(model, OpenAICompatibleModel):
        return (
            OpenAICompatibleModel,
            {
                "base_url": model.base_url,
                "model": model.name,
                "api_key": model._api_key,
                "timeout": model.timeout,
                "temperature": model.temperature,
            },
        )
    return model


#: the endpoints' models a worker built, kept for its later jobs as the local pool keeps one model for all
#: of its runs: building one costs an HTTP client (tens of ms of CPU for its TLS context alone, more on
#: a busy machine) and its first call a new connection, which every job paid before
_BUILT: dict[tuple[Any, ...], ChatModel] = {}
#: at most this many kept per worker (each holds a connection pool); the oldest goes first
MAX_BUILT = 8


def rebuild(made: Any) -> ChatModel:
    """The model `portable` described: built once per worker and description, then the same one."""
    if not isinstance(made, tuple):
        return made
    cls, kwargs = made
    key = (cls, *sorted(kwargs.items()))
    model = _BUILT.get(key)
    if model is None:
        while len(_BUILT) >= MAX_BUILT:  # a worker runs one job at a time: no job holds the one let go
            oldest = _BUILT.pop(next(iter(_BUILT)))
            getattr(oldest, "close", lambda: None)()
        model = _BUILT[key] = cls(**kwargs)
    return model


class RemoteGate:
    """A RateGate whose state lives in a Ray actor, shared by every worker (duck-types ratelimit.RateGate).

    Asking the actor costs a round trip, so a worker that found the gate open trusts that for
    FRESH_S before it asks again, and reports a passing call only while a refusal is recent: a 429
    seen by one worker reaches the others' next call within FRESH_S (a call sent in that window may
    be refused too, and then waits like any refused call)."""

    FRESH_S = 0.25
    #: how long after a refusal this worker reports passing calls (they reset the back-off's streak)
    RECENT_S = 30.0

    def __init__(self, actor: Any) -> None:
        self.actor = actor
        self.stopped = threading.Event()
        self._open_seen = -1.0
        self._refused_at = -1e9

    def close_for(self, retry_after: float | None) -> float:
        self._open_seen, self._refused_at = -1.0, time.monotonic()
        return _ray().get(self.actor.close_for.remote(retry_after))

    def passed(self) -> None:
        if time.monotonic() - self._refused_at < self.RECENT_S:
            self.actor.passed.remote()

    def remaining(self) -> float:
        now = time.monotonic()
        if now - self._open_seen < self.FRESH_S:
            return 0.0
        left = _ray().get(self.actor.remaining.remote())
        if left > 0:
            self._refused_at = now  # someone was refused: report passes again, so the streak resets
        else:
            self._open_seen = now
        return left

    def wait(self) -> bool:
        while (left := self.remaining()) > 0:
            if self.stopped.wait(min(left, 0.25)):
                return False
        return not self.stopped.is_set()

    def stop(self) -> None:
        self.stopped.set()

    @property
    def refusals(self) -> int:
        return _ray().get(self.actor.counts.remote())[0]

    @property
    def waited_s(self) -> float:
        return _ray().get(self.actor.counts.remote())[1]


class _Gate:
    """The actor behind RemoteGate."""

    def __init__(self) -> None:
        self.gate = RateGate()

    def close_for(self, retry_after: float | None) -> float:
        return self.gate.close_for(retry_after)

    def passed(self) -> None:
        self.gate.passed()

    def remaining(self) -> float:
        return self.gate.remaining()

    def counts(self) -> tuple[int, float]:
        return self.gate.refusals, self.gate.waited_s


def _run_remote(
    p: backends.Plan, job: Any, made: tuple[Any, dict[str, Any]] | None, gate_actor: Any, prices: PriceTable
) -> ResultRow:
    """One job on a worker: the router rebuilt there, every call behind the shared gate, priced as the
    driver prices (a page's own price table, as its local pool would)."""
    router = None
    if made is not None:
        default, by_role = made
        router = ModelRouter(rebuild(default), {role: rebuild(m) for role, m in by_role.items()})
    row = backends.run_job(p, job, router, prices, None, RemoteGate(gate_actor))
    assert row is not None  # no stop event on a worker: a run always ends in a row
    return row


class RayEvaluation:
    """The jobs of a plan on Ray: iterate it for rows as they finish; stop it any time."""

    def __init__(
        self,
        p: backends.Plan,
        models: ModelRouter | ChatModel | None,
        *,
        done: Collection[tuple[str, str, int]] = (),
        address: str | None = None,
        concurrency: int = 4,
        num_cpus: int | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        ray = _ray()
        self.plan, self.jobs = p, p.jobs(done)
        self.total = len(self.jobs)
        self.concurrency = max(1, concurrency)
        if not ray.is_initialized():
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                env = {"PYTHONPATH": os.pathsep.join(filter(None, (_ROOT, os.environ.get("PYTHONPATH"))))}
                env.update({k: os.environ[k] for k in _FORWARDED if k in os.environ})
                ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": env})
        router = models if isinstance(models, ModelRouter) or models is None else ModelRouter(models)
        self._made = (
            None if router is None else (portable(router.default), {r: portable(m) for r, m in router.by_role.items()})
        )
        self._gate_actor = ray.remote(num_cpus=0)(_Gate).remote()
        self.gate = RemoteGate(self._gate_actor)
        self._remote = ray.remote(num_cpus=JOB_CPUS, max_retries=0)(_run_remote)
        self._pending: dict[Any, int] = {}
        self._rows: dict[int, ResultRow] = {}
        self._stopped = False
        self._plan_ref = ray.put(p)
        self._prices_ref = ray.put(prices or PriceTable())
        self._items = self._generate()
        #: seconds from submitting the first job to its row, and the mean per row after (overhead figures)
        self.first_row_s: float | None = None

    def __iter__(self) -> RayEvaluation:
        return self

    def __next__(self) -> ResultRow:
        return next(self._items)

    def _submit(self, index: int) -> None:
        ref = self._remote.remote(self._plan_ref, self.jobs[index], self._made, self._gate_actor, self._prices_ref)
        self._pending[ref] = index

    def _generate(self) -> Generator[ResultRow, None, None]:
        ray = _ray()
        started = time.monotonic()
        queue = iter(range(self.total))
        for index in queue:
            self._submit(index)
            if len(self._pending) >= self.concurrency:
                break
        try:
            while self._pending and not self._stopped:
                ready, _ = ray.wait(list(self._pending), num_returns=1)
                for ref in ready:
                    index = self._pending.pop(ref)
                    row = ray.get(ref)
                    self._rows[index] = row
                    if self.first_row_s is None:
                        self.first_row_s = time.monotonic() - started
                    nxt = next(queue, None)
                    if nxt is not None and not self._stopped:
                        self._submit(nxt)
                    yield row
        finally:
            self.stop()

    def stop(self, timeout: float | None = None) -> None:
        """Cancel the jobs not finished (their runs end with their worker's task)."""
        self._stopped = True
        ray = _ray()
        for ref in list(self._pending):
            ray.cancel(ref, force=True)
        self._pending.clear()

    def close(self) -> None:
        self._items.close()
        self.stop()

    def finished_rows(self) -> list[ResultRow]:
        return [self._rows[i] for i in sorted(self._rows)]

    @property
    def in_flight(self) -> int:
        return len(self._pending)
