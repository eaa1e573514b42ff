"""Evals in parallel: N runs at once give the rows of a sequential run in the same order, a 429 from
the endpoint makes the whole pool wait as the server asked instead of failing tasks, and Stop ends
every run under way while keeping every finished row."""

import dataclasses
import io
import threading
import time

import pytest

import agent_core as ac
from agent_core.cli import main
from agent_core.errors import ConfigError, RateLimitError
from agent_core.evaluation import EvalProgress, EvalRow, EvalTask, bundled_tasks, evaluate
from agent_core.llm import OpenAICompatibleModel
from agent_core.messages import ChatRequest, Completion, Usage, user
from agent_core.models import complete
from agent_core.ratelimit import GatedModel, RateGate
from tests.fake_openai_server import Fail, FakeOpenAIServer, Reply

PROMPT = 'def increment(x: int) -> int:\n    """Return x + 1."""\n'
TEST = "def check(candidate):\n    assert candidate(1) == 2\n"
GOOD = "```python\ndef increment(x: int) -> int:\n    return x + 1\n```"


def tasks(n):
    return [EvalTask(f"Demo/{i}", PROMPT, "increment", TEST, "    return x + 1\n") for i in range(n)]


def rows_of(items):
    return [r for r in items if isinstance(r, EvalRow)]


def timeless(row):
    """A row without its clock readings, which differ from run to run."""
    return dataclasses.replace(row, elapsed_ms=0.0, judge_ms=0)


class Paced:
    """A model whose reply to task Demo/i takes `delays[i]` seconds; it counts calls in flight."""

    name = "paced"

    def __init__(self, delays, together=0):
        self.delays = delays
        self.lock = threading.Lock()
        self.in_flight = self.most_in_flight = 0
        self.finished = []
        #: with `together`, the first that many calls wait for each other before their delays start,
        #: so the order they finish in depends on the delays, not on how fast threads start
        self.barrier = threading.Barrier(together, timeout=10) if together else None

    def stream(self, request):
        task = int(request.context.scenario.rsplit("/", 1)[-1])  # the harness names the run eval/<task_id>
        with self.lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.barrier is not None:
                self.barrier.wait()
            time.sleep(self.delays[task])
            yield GOOD
            yield Completion(GOOD, usage=Usage(10, 5), model=self.name, finish_reason="stop")
        finally:
            with self.lock:
                self.in_flight -= 1
                self.finished.append(task)


# --- the pool -------------------------------------------------------------------------------------


def test_parallel_rows_are_the_sequential_rows_in_the_same_order():
    patterns = ["reference", "react", "plan-execute", "reflection", "reflection+tests"]
    one = rows_of(evaluate(bundled_tasks()[:3], patterns, ac.OfflineModel(), concurrency=1))
    four = rows_of(evaluate(bundled_tasks()[:3], patterns, ac.OfflineModel(), concurrency=4))
    assert len(one) == 15 and [timeless(r) for r in four] == [timeless(r) for r in one]


def test_rows_come_out_in_task_order_even_when_later_tasks_finish_first():
    model = Paced([0.6, 0.4, 0.2, 0.0], together=4)
    items = list(evaluate(tasks(4), ["react"], model, concurrency=4))
    assert model.finished == [3, 2, 1, 0]
    assert [r.task_id for r in rows_of(items)] == ["Demo/0", "Demo/1", "Demo/2", "Demo/3"]
    assert all(r.passed for r in rows_of(items)) and model.most_in_flight == 4
    progress = [i for i in items if isinstance(i, EvalProgress)]
    assert len(progress) == 4 and {p.total for p in progress} == {4} and max(p.running for p in progress) == 4


def test_concurrency_bounds_the_runs_in_flight():
    # (how much time it saves is measured in tests/bench/bench_eval_concurrency.py, not asserted here)
    model = Paced([0.2] * 8)
    rows = rows_of(evaluate(tasks(8), ["react"], model, concurrency=2))
    assert len(rows) == 8 and model.most_in_flight == 2


@pytest.mark.parametrize("bad", [0, 33, 2.5, True, "4"])
def test_a_bad_concurrency_is_refused_before_anything_runs(bad):
    with pytest.raises(ConfigError, match="concurrency must be an integer from 1 to 32"):
        evaluate(tasks(1), ["react"], ac.OfflineModel(), concurrency=bad)


# --- Stop -----------------------------------------------------------------------------------------


class Endless:
    """Streams forever on Demo/0's call, answers the others at once; records closed streams. (Which
    task calls first is up to the threads, so the task is read from the call, not from the order.)"""

    name = "endless"

    def __init__(self):
        self.closed = threading.Event()

    def stream(self, request):
        if not request.context.scenario.endswith("/Demo/0"):  # the harness names the run eval/<task_id>
            yield Completion(GOOD, usage=Usage(10, 5), model=self.name, finish_reason="stop")
            return
        try:
            while True:
                time.sleep(0.01)
                yield "."
        finally:
            self.closed.set()  # GeneratorExit: the run was closed, as an HTTP stream would be


def test_stop_ends_runs_under_way_and_keeps_every_finished_row():
    model = Endless()
    run = evaluate(tasks(4), ["react"], model, concurrency=2)
    seen = []
    consumer = threading.Thread(target=lambda: seen.extend(run))
    consumer.start()
    deadline = time.monotonic() + 10
    while len(run.finished_rows()) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    # Demo/1..3 are finished; Demo/0 still streams, so none of them has been handed out in order yet
    assert [r.task_id for r in run.finished_rows()] == ["Demo/1", "Demo/2", "Demo/3"]
    assert rows_of(seen) == []
    run.stop()  # as the page's Stop callback does, from another thread
    consumer.join(5)
    assert not consumer.is_alive() and model.closed.is_set() and run.alive_workers() == 0
    assert [r.task_id for r in run.finished_rows()] == ["Demo/1", "Demo/2", "Demo/3"]


def test_closing_the_iterator_stops_the_pool_and_closes_the_http_streams():
    with FakeOpenAIServer(Reply(GOOD, chunks=200, chunk_delay=0.05)) as server:
        model = OpenAICompatibleModel(server.url, "fake-model", api_key="x")
        run = evaluate(tasks(4), ["react"], model, concurrency=4)
        first = next(run)
        assert isinstance(first, EvalProgress)
        time.sleep(0.3)  # every run is streaming now
        run.close()
        assert run.alive_workers() == 0
        deadline = time.monotonic() + 5
        while server.disconnects < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.disconnects == 4 and run.finished_rows() == []
        model.close()


# --- 429: one back-off for the whole pool ---------------------------------------------------------


def test_a_429_makes_every_run_wait_as_long_as_the_server_asked_then_all_pass():
    arrivals = []
    lock = threading.Lock()

    def stamp(behaviour):
        def script(request):
            with lock:
                arrivals.append((time.monotonic(), type(behaviour).__name__))
            return behaviour

        return script

    with FakeOpenAIServer(stamp(Reply(GOOD, delay=0.1))) as server:
        server.push(stamp(Fail(429, "slow down", retry_after=0.5)))
        # no SDK retries: the pool's gate is what must wait
        model = OpenAICompatibleModel(server.url, "fake-model", api_key="x", max_retries=0)
        run = evaluate(tasks(6), ["react"], model, concurrency=3)
        rows = rows_of(run)
        model.close()
    assert [r.passed for r in rows] == [True] * 6 and not any(r.error for r in rows)
    assert run.gate.refusals == 1 and server.call_count == 7
    refused_at = next(t for t, kind in arrivals if kind == "Fail")
    # calls already sent when the 429 came may finish, but no new call starts until the wait is over
    later = [t for t, kind in arrivals if t > refused_at + 0.05]
    assert later and min(later) >= refused_at + 0.5 - 0.02


def test_without_retry_after_the_gate_backs_off_and_a_success_resets_it():
    now = [100.0]
    gate = RateGate(clock=lambda: now[0])
    assert gate.close_for(None) == 1.0 and gate.close_for(None) == 2.0 and gate.close_for(3.5) == 3.5
    assert gate.remaining() == pytest.approx(3.5)
    gate.passed()
    assert gate.close_for(None) == 1.0
    assert gate.close_for(10_000) == 120.0  # a server's wait is honoured up to a bound


def test_a_call_refused_too_often_fails_its_run_with_the_rate_limit_error():
    class Refuses:
        name = "refuses"
        calls = 0

        def stream(self, request):
            Refuses.calls += 1
            raise RateLimitError("HTTP 429", retry_after=0.0)
            yield

    gate = RateGate()
    (row,) = rows_of(evaluate(tasks(1), ["react"], GatedModel(Refuses(), gate, max_attempts=3), gate=gate))
    assert Refuses.calls == 3 and gate.refusals == 2 and row.error.startswith("rate_limited: HTTP 429")


def test_the_adapter_reads_the_servers_wait_from_a_429():
    with FakeOpenAIServer() as server:
        server.push(Fail(429, retry_after=0.25))
        model = OpenAICompatibleModel(server.url, "fake-model", api_key="x", max_retries=0)
        with pytest.raises(RateLimitError) as caught:
            complete(model, ChatRequest((user("hi"),)))
        model.close()
    assert caught.value.retry_after == pytest.approx(0.25)


# --- the CLI --------------------------------------------------------------------------------------


def test_the_cli_prints_the_same_results_at_any_concurrency(tmp_path):
    outputs = []
    for n in (1, 4):
        out = io.StringIO()
        assert (
            main(
                [
                    "eval",
                    "--tasks",
                    "bundled",
                    "--pattern",
                    "react",
                    "--pattern",
                    "reflection+tests",
                    "--concurrency",
                    str(n),
                    "--out",
                    str(tmp_path / f"{n}.csv"),
                ],
                out=out,
            )
            == 0
        )
        lines = out.getvalue().splitlines()
        assert lines[0].endswith(f"{n} at a time")
        outputs.append(lines[1:-1])  # between the header and the "wrote <file>" line
    assert outputs[0] == outputs[1]
    strip = [
        [",".join(line.split(",")[:10]) for line in (tmp_path / f"{n}.csv").read_text().splitlines()] for n in (1, 4)
    ]
    assert strip[0] == strip[1]
