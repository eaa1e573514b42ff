"""One server-wide limit on judged runs at once (agent_core/sandbox/admission.py): never more than N
sandboxes across sessions and threads, a line that is first come first served and fair between
callers, bounded with a typed refusal, cancellable (Stop, a closed session), readable for the Eval
page — and every judging route goes through it: run_python_tests, Eval's pool, Reflection's
unit-test evaluator in a RunHandle."""

from __future__ import annotations

import threading
import time

import pytest

import agent_core as ac
from agent_core import settings
from agent_core.evaluation import EvalRow, bundled_tasks, evaluate
from agent_core.evaluation.harness import runnable_tests, task_text
from agent_core.sandbox import admission, launcher, run_python_tests
from agent_core.sandbox.admission import Admission, QueueFull, QueueState, WaitCancelled
from agent_core.stepping import RunHandle
from tests.app_pages import open_page

CODE, TESTS = "def add(a, b):\n    return a + b\n", "assert add(1, 2) == 3\n"


def until(condition, timeout=20.0):
    """Wait for `condition()` (a generous bound: these tests check order, not speed)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.005)


class Holder:
    """A thread holding one slot of `adm` as `caller` until released."""

    def __init__(self, adm: Admission, caller: str) -> None:
        self.adm, self.caller = adm, caller
        self.go, self.got = threading.Event(), threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._hold, daemon=True)
        self.thread.start()

    def _hold(self) -> None:
        try:
            with self.adm.slot(self.caller):
                self.got.set()
                self.go.wait(60)
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            self.error = exc

    def release(self) -> None:
        self.go.set()
        self.thread.join(10)


def waiting(adm: Admission) -> int:
    return adm.state().waiting


# --- the admission itself ------------------------------------------------------------------------


def test_threads_of_several_sessions_never_exceed_the_slots():
    adm = Admission(3)
    lock, now, most, done = threading.Lock(), [0], [0], []

    def judge(caller: str) -> None:
        with adm.slot(caller):
            with lock:
                now[0] += 1
                most[0] = max(most[0], now[0])
            time.sleep(0.003)
            with lock:
                now[0] -= 1
        done.append(caller)

    threads = [threading.Thread(target=judge, args=(f"session-{i % 5}",)) for i in range(60)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(done) == 60 and most[0] == 3 and adm.state() == QueueState(3, 0, 0)


def test_one_caller_is_served_first_come_first_served():
    adm, order = Admission(1), []
    holder = Holder(adm, "a")
    holder.got.wait(5)
    threads = []
    for i in range(5):

        def judge(i=i):
            with adm.slot("a"):
                order.append(i)

        threads.append(threading.Thread(target=judge))
        threads[-1].start()
        until(lambda i=i: waiting(adm) == i + 1)  # each joins the line before the next asks
    assert adm.state("a") == QueueState(1, 1, 5, position=1, caller_running=1, caller_waiting=5)
    holder.release()
    for thread in threads:
        thread.join(10)
    assert order == [0, 1, 2, 3, 4]


def test_a_session_with_many_runs_waiting_does_not_keep_another_waiting():
    """Session A holds the only slot and has 5 more runs in line; B asks after all of them, and still
    gets the next slot, since a freed slot goes to the caller holding the fewest."""
    adm, order = Admission(1), []
    holder = Holder(adm, "A")
    holder.got.wait(5)

    def judge(caller: str, hold: float = 0.0) -> None:
        with adm.slot(caller):
            order.append(caller)
            time.sleep(hold)

    threads = [threading.Thread(target=judge, args=("A",)) for _ in range(5)]
    for thread in threads:
        thread.start()
    until(lambda: waiting(adm) == 5)
    late = threading.Thread(target=judge, args=("B",))
    late.start()
    until(lambda: waiting(adm) == 6)
    assert adm.state("B").position == 1 and adm.state("A").position == 2
    holder.release()
    for thread in [*threads, late]:
        thread.join(10)
    assert order[0] == "B" and order.count("A") == 5


def test_two_busy_sessions_take_turns():
    adm, order = Admission(1), []
    holder = Holder(adm, "C")
    holder.got.wait(5)
    threads = []
    for caller in ["A"] * 4 + ["B"] * 4:

        def judge(caller=caller):
            with adm.slot(caller):
                order.append(caller)

        threads.append(threading.Thread(target=judge))
        threads[-1].start()
        until(lambda: waiting(adm) == len(threads))
    holder.release()
    for thread in threads:
        thread.join(10)
    assert order == ["A", "B"] * 4


def test_the_line_is_bounded_in_all_and_per_caller_with_a_typed_refusal():
    adm = Admission(1, max_waiting=3, max_waiting_per_caller=2)
    holder = Holder(adm, "A")
    holder.got.wait(5)
    cancel = threading.Event()
    waiters = []
    for caller in ("A", "A", "B"):

        def wait_in_line(caller=caller):
            try:
                with adm.slot(caller, cancel.is_set):
                    pass
            except WaitCancelled:
                pass

        waiters.append(threading.Thread(target=wait_in_line))
        waiters[-1].start()
        until(lambda: waiting(adm) == len(waiters))
    with pytest.raises(QueueFull) as mine:
        adm.acquire("A")
    assert mine.value.mine and "at most 2 per session" in mine.value.message("en")
    assert "每个会话最多 2 个" in mine.value.message("zh")
    with pytest.raises(QueueFull) as full:
        adm.acquire("C")
    assert not full.value.mine and "3 waiting, at most 3" in full.value.message("en")
    assert "上限 3" in full.value.message("zh") and full.value.code == "judge_queue_full"
    cancel.set()
    adm.wake()
    for thread in waiters:
        thread.join(5)
    holder.release()
    assert adm.state() == QueueState(1, 0, 0)


def test_a_cancelled_wait_leaves_no_waiter_and_no_slot_behind():
    adm = Admission(1)
    holder = Holder(adm, "other")
    holder.got.wait(5)
    stop, outcome = threading.Event(), []

    def wait_in_line() -> None:
        try:
            with admission.cancelled_when(stop.is_set), adm.slot("me"):
                outcome.append("ran")
        except WaitCancelled as exc:
            outcome.append(exc)

    thread = threading.Thread(target=wait_in_line)
    thread.start()
    until(lambda: waiting(adm) == 1)
    stop.set()
    adm.wake()
    thread.join(5)
    assert not thread.is_alive() and isinstance(outcome[0], WaitCancelled)
    assert "stopped while waiting" in outcome[0].message("en") and "取消" in outcome[0].message("zh")
    assert adm.state() == QueueState(1, 1, 0)
    holder.release()
    with adm.slot("me"):  # the slot came back: nothing leaked
        assert adm.state("me") == QueueState(1, 1, 0, None, caller_running=1)


def test_a_cancel_check_is_asked_without_a_wake_too_and_one_that_fails_leaves_nothing():
    adm = Admission(1)
    holder = Holder(adm, "other")
    holder.got.wait(5)
    flag = []
    errors = []

    def wait(check) -> None:
        try:
            adm.acquire("me", check)
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            errors.append(exc)

    thread = threading.Thread(target=wait, args=(lambda: bool(flag),))
    thread.start()
    until(lambda: waiting(adm) == 1)
    flag.append(1)
    thread.join(5)  # asked every POLL_S
    broken = threading.Thread(target=wait, args=(lambda: 1 / len(errors[1:]),))
    broken.start()
    broken.join(5)
    assert [type(e) for e in errors] == [WaitCancelled, ZeroDivisionError] and waiting(adm) == 0
    holder.release()
    with pytest.raises(WaitCancelled):
        adm.acquire("me", lambda: True)  # already cancelled: never joins the line
    with pytest.raises(RuntimeError):
        adm.release("nobody")


def test_the_slots_come_from_the_setting_else_the_usable_cpus():
    import os

    cpus = len(os.sched_getaffinity(0))
    assert settings.judge_slots({}) == cpus
    assert settings.judge_slots({settings.JUDGE_SLOTS_ENV: "3"}) == 3
    for junk in ("0", "-2", "two", "1.5", ""):
        assert settings.judge_slots({settings.JUDGE_SLOTS_ENV: junk}) == cpus


# --- every judging route goes through the server's admission ------------------------------------


@pytest.fixture
def one_slot(monkeypatch):
    """The server's admission with one slot, and a count of sandboxes alive at once."""
    monkeypatch.delenv("AGENT_PLAYGROUND_UNSAFE_SANDBOX", raising=False)
    adm = Admission(1)
    monkeypatch.setattr(admission, "_server", adm)
    real, lock, alive = launcher.run, threading.Lock(), {"now": 0, "most": 0, "runs": 0}

    def counted(*args, **kwargs):
        with lock:
            alive["now"] += 1
            alive["runs"] += 1
            alive["most"] = max(alive["most"], alive["now"])
        try:
            return real(*args, **kwargs)
        finally:
            with lock:
                alive["now"] -= 1

    monkeypatch.setattr(launcher, "run", counted)
    adm.alive = alive
    return adm


def test_run_python_tests_from_several_sessions_runs_one_sandbox_at_a_time(one_slot):
    outcomes = []

    def session(name: str) -> None:
        with admission.acting_for(name):
            for _ in range(2):
                outcomes.append(run_python_tests(CODE, TESTS))

    threads = [threading.Thread(target=session, args=(f"s{i}",)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(outcomes) == 6 and all(o.passed for o in outcomes)
    assert one_slot.alive == {"now": 0, "most": 1, "runs": 6}


def test_time_in_line_is_not_the_runs_judge_time(one_slot):
    holder = Holder(one_slot, "another session")
    holder.got.wait(5)
    got = []
    thread = threading.Thread(target=lambda: got.append(run_python_tests(CODE, TESTS)))
    thread.start()
    until(lambda: waiting(one_slot) == 1)
    time.sleep(3.0)
    holder.release()
    thread.join(60)
    assert got[0].passed and got[0].duration_ms < 2500  # the 3 s in line are not counted


def test_an_evaluation_is_one_caller_waits_in_line_and_says_where(one_slot):
    holder = Holder(one_slot, "another session")
    holder.got.wait(5)
    tasks = bundled_tasks()[:3]
    pool = evaluate(tasks, ["reference"], None, concurrency=3)
    items = []
    reader = threading.Thread(target=lambda: items.extend(pool))
    reader.start()
    until(lambda: one_slot.state(pool.caller).caller_waiting == 3)
    until(lambda: any(isinstance(i, QueueState) for i in items))
    holder.release()
    reader.join(120)
    lines = [i for i in items if isinstance(i, QueueState)]
    assert lines[0].position == 1 and lines[0].running == 1 and lines[0].caller_waiting == 3
    assert lines[-1].position is None  # said once more when nothing of it waits any longer
    rows = [i for i in items if isinstance(i, EvalRow)]
    assert [r.task_id for r in rows] == [t.task_id for t in tasks] and all(r.passed for r in rows)
    assert one_slot.alive["most"] == 1 and one_slot.state() == QueueState(1, 0, 0)


def test_stopping_an_evaluation_ends_its_waits_at_once(one_slot):
    holder = Holder(one_slot, "another session")
    holder.got.wait(5)
    pool = evaluate(bundled_tasks()[:4], ["reference"], None, concurrency=4)
    reader = threading.Thread(target=lambda: list(pool))
    reader.start()
    until(lambda: waiting(one_slot) == 4)
    started = time.monotonic()
    pool.stop(timeout=5)
    reader.join(10)
    assert time.monotonic() - started < 2 and pool.alive_workers() == 0 and not reader.is_alive()
    assert one_slot.state() == QueueState(1, 1, 0) and pool.finished_rows() == []
    holder.release()


def test_a_cancel_check_of_the_context_an_evaluation_was_made_in_reaches_its_workers(one_slot):
    """The Eval page makes its pool under "cancelled when the session is gone"."""
    holder = Holder(one_slot, "another session")
    holder.got.wait(5)
    gone = threading.Event()
    with admission.cancelled_when(gone.is_set):
        pool = evaluate(bundled_tasks()[:2], ["reference"], None, concurrency=2)
    reader = threading.Thread(target=lambda: list(pool))
    reader.start()
    until(lambda: waiting(one_slot) == 2)
    gone.set()
    reader.join(10)
    assert not reader.is_alive() and pool.stopped and waiting(one_slot) == 0
    holder.release()


def _reflection_with_tests():
    primes = next(t for t in bundled_tasks() if t.entry_point == "primes_up_to")
    config = ac.configure(
        pattern="reflection",
        code_task=True,
        test_evaluator=True,
        tests=runnable_tests(primes),
        scenario=f"eval/{primes.task_id}",
    )
    return RunHandle.for_run(task_text(primes), config, ac.OfflineModel())


def test_reflections_unit_tests_wait_in_the_same_line_and_a_stop_ends_the_wait(one_slot):
    holder = Holder(one_slot, "another session")
    holder.got.wait(5)
    handle = _reflection_with_tests().start()
    until(lambda: waiting(one_slot) == 1)  # its first draft's tests, in the RunHandle's thread
    handle.stop()
    assert handle.join(5) and waiting(one_slot) == 0
    holder.release()
    finished = _reflection_with_tests().start()
    assert finished.join(120)
    kinds = [e.kind for e in finished.drain()]
    assert kinds.count("tool_result") == 2 and kinds[-1] == "run_finished"
    assert one_slot.alive == {"now": 0, "most": 1, "runs": 2}


# --- the Eval page shows the line -----------------------------------------------------------------


def _drawn(monkeypatch) -> list[str]:
    """Every caption and markdown text the page sends while its script runs (AppTest keeps only the
    final tree, and the line is gone from it once the runs got their slots)."""
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    texts, real = [], ForwardMsgQueue.enqueue

    def enqueue(self, msg):
        if msg.HasField("delta") and msg.delta.HasField("new_element"):
            element = msg.delta.new_element
            if element.WhichOneof("type") == "markdown":
                texts.append(element.markdown.body)
        return real(self, msg)

    monkeypatch.setattr(ForwardMsgQueue, "enqueue", enqueue)
    return texts


@pytest.mark.parametrize(
    "lang, expected",
    [
        ("en", "Waiting for a judge slot: 2nd in line (1 running on this server)"),
        ("zh", "正在等待评测槽位：排在第 2 位（本服务器正在运行 1 个评测）"),
    ],
)
def test_the_eval_page_shows_its_place_in_the_servers_line(one_slot, monkeypatch, lang, expected):
    from agent_core import sandbox

    sandbox.check_available()  # the probe runs once per process: not behind the held slot
    holder = Holder(one_slot, "a presenter's evaluation")
    holder.got.wait(5)
    ahead = threading.Thread(target=lambda: one_slot.acquire("another session") or one_slot.release("another session"))
    ahead.start()
    until(lambda: waiting(one_slot) == 1)

    def free_the_slots_once_the_page_waited():
        until(lambda: any(w.caller.startswith("evaluation-") for line in one_slot._lines.values() for w in line), 60)
        time.sleep(1.5)  # a few of the page's looks at the line
        holder.release()

    threading.Thread(target=free_the_slots_once_the_page_waited, daemon=True).start()
    drawn = _drawn(monkeypatch)
    at = open_page("pages/eval.py", sb_lang=lang)
    at.multiselect(key="ev_patterns").set_value(["reference"]).run()
    at.number_input(key="ev_limit").set_value(2).run()
    at.button(key="ev_run").click().run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    assert expected in drawn
    assert [r["passed"] for r in at.session_state["ev_rows"]] == [True, True]
    assert not any(expected in c.value for c in at.caption)  # gone once the runs got their slots
    ahead.join(10)
    assert one_slot.state() == QueueState(1, 0, 0)
