"""A workshop room on one server: one trainer, 40 seats watching the trainer's run, voting, forking.

One `streamlit run app.py` on 127.0.0.1 (the offline model, at its watchable pace). Every person is
a websocket session speaking the app's own protocol (tests/st_client.py), so the figures measure the
server, not 41 Chromium renderers on the same cores. A browser's part that the plain client lacks is
added here (`Seat`): the `?room=CODE` of the address, the timers of `st.fragment(run_every=...)` (the
frontend re-asks each such fragment every interval: the trainer's tally and heartbeat live in them),
and a widget inside a fragment rerunning only that fragment. A seat follows the room in one long
script run (pages/ui/room_view.py), so what it is shown arrives as that run draws it.

One repetition, in a fresh room:

1. the trainer opens a room on the Room page; every seat opens `/room?room=CODE` at once and waits
   for the room's view (the time that takes is the seat's join);
2. the trainer opens Reflection on primes in the Playground, Step mode, a breakpoint before the
   critic, and presses Run. At each pause the trainer asks the room ("What will the critic say?");
   every seat sees the question, waits 0.2-3 s (a person reading it) and votes; once the trainer's
   tally counts them all, the trainer presses Continue. At the second pause one seat in 8 takes it
   from there ("Take it from here": the run, at that call, into its own Playground) and runs its fork;
3. the same with Plan-and-Execute on order 99999, a breakpoint before the reflector.

Measured:

- event lag: for every step of the run (each call, verdict, draft, diff, thought, the final answer,
  the end, and each pause), when the trainer's session received it against when each seat received
  the same one: the same keyed box of the run view (the Playground's `pg_view-call-3` is a seat's
  `rv_view-call-3`), the pause by its order in the run;
- vote to tally: the k-th vote sent (in time order) until the trainer's tally first reads k votes;
- `/_stcore/health`, asked every 100 ms from the trainer's first Run to the last run's end;
- the server's CPU (cores) over the same span and its RSS (before, peak, after); this process's own
  CPU and how late its event loop ran, so a reader can tell the client from the server.

Targets: event lag p95 <= 500 ms, vote to tally p95 <= 1 s, health p95 <= 200 ms. Each figure is the
median of `--reps` repetitions, with the spread (min-max) of the repetitions.

    python tests/bench/bench_classroom.py [--seats 40] [--reps 3] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import resource
import signal
import statistics
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402

from pages.ui.i18n import t, words  # noqa: E402
from tests.bench._util import Sampler, cpu_seconds, machine, met, rss_mb, table  # noqa: E402
from tests.bench.bench_load import print_profile, serving  # noqa: E402
from tests.st_client import Session, to_primes  # noqa: E402

TARGET_LAG_MS, TARGET_TALLY_MS, TARGET_HEALTH_MS = 500.0, 1000.0, 200.0
#: every FORK_EVERY-th seat takes the trainer's run from there at the second pause of Reflection
FORK_EVERY = 8
#: the most polls the trainer asks in one run (Reflection on primes pauses before the critic three times)
POLLS_PER_RUN = 3
#: a seat reads the question this long before it votes (seconds, uniform)
READ_S = (0.2, 3.0)
#: how long the trainer waits for the room's votes before going on without the missing ones
VOTES_WAIT_S = 30.0
HEALTH_EVERY_S = 0.1
#: a health answer slower than this is counted at this (the server's event loop is stalled)
HEALTH_TIMEOUT_S = 30.0
#: the longest the trainer waits for the pause bar's "Ask the room" after the bar arrived
BAR_WAIT_S = 10.0
#: the longest the trainer waits for the run's next pause or its end: past it the room has stalled
STALL_S = 120.0
#: what the room's and the Playground's run views key their boxes by (pages/ui/render.py)
TRAINER_VIEW, SEAT_VIEW = "pg_view-", "rv_view-"
#: the boxes of a run view that carry a step: a call, a verdict, a draft, a diff, a thought, the end
STEP = re.compile(r"^(call-\d+-prompt|verdict-.+|draft-.+|diff-.+|thought-\d+|final(-\d+)?|end-[a-z_]+(-\d+)?)$")
#: boxes whose every arrival is kept: the trainer's pause bar
TRACKED = ("pg_pause",)
CODE_LINK = re.compile(r"\?room=([A-Z2-9]{6})$")


def _template(text: str, capture: str = "") -> re.Pattern[str]:
    """A page's English text (locales/en.toml) as a pattern: each {placeholder} matches anything,
    `capture` a number."""
    parts = re.split(r"\{(\w+)\}", text)
    out = "".join(
        re.escape(part) if i % 2 == 0 else (r"(\d+)" if part == capture else ".+") for i, part in enumerate(parts)
    )
    return re.compile(out)


#: the seat's caption over the trainer's run (it names the run's id), and its view before any run
WATCHING = _template(t("room.watching", "en"))
WAITING = t("room.no_run", "en")
#: the head of a seat's pause bar (room_view.pause_bar), whatever the run waits before
SEAT_PAUSE = re.compile(
    "^#### :material/pause_circle: (?:"
    + "|".join(_template(t(f"room.paused_{at}", "en")).pattern for at in ("call", "tool", "verdict"))
    + ")$"
)
#: the trainer's tally while the poll is open
TALLY = _template(words("poll", "en")["open"], capture="n")

RUNS = (
    # (what the seats see, Learn's button, the breakpoint's label in the Step mode box)
    ("Reflection · primes", "learn_open_reflection", "before the critic"),
    ("Plan-and-Execute · order 99999", "learn_open_plan-execute-reflector", "before the reflector"),
)


class Seat(Session):
    """A Session (with the fragments' timers and the address's query string, as a browser has them)
    that also reruns only the fragment a widget is drawn in, as the frontend does, and keeps when each
    keyed box, text and widget first arrived (time.monotonic(), the one clock every session here
    reads), per `epoch`: the run being drawn (the trainer's driver names it; a seat takes it from the
    caption over the trainer's run). `texts` keeps each distinct text once: a seat redraws the run
    every 0.75 s, and a list of every body received would grow by the thousand a second."""

    def __init__(self, url: str) -> None:
        super().__init__(url, timers=True)
        self.epoch = ""
        self.first: dict[tuple[str, str], float] = {}  # (epoch, box key) -> first arrival
        self.drawn_by: dict[tuple[str, str], str] = {}  # (epoch, box key) -> the fragment that drew it first
        self.seen_text: dict[str, float] = {}  # text -> first arrival
        self.text_log: list[tuple[float, str]] = []  # (arrival, text) for the tally's texts
        self.block_at: dict[str, float] = {}  # box key -> latest arrival
        self.history: dict[str, list[float]] = {k: [] for k in TRACKED}  # every arrival of these boxes
        self.widget_at: dict[str, float] = {}  # widget key -> latest arrival
        self.options: dict[str, list[str]] = {}  # widget key -> the labels of its options
        self.fragment_of: dict[str, str] = {}  # widget key -> the fragment it is drawn in
        self.epochs: list[str] = []  # a seat's runs, in the order it first saw them
        self.pauses: dict[str, list[float]] = {}  # epoch -> first arrival of each pause, in order

    # --- sending --------------------------------------------------------------------------------
    async def _send(self, setter: Callable, key: str) -> None:
        """A widget's new value; a widget inside a fragment reruns only that fragment."""
        msg = BackMsg()
        state = msg.rerun_script
        state.page_name, state.page_script_hash, state.query_string = self.page, self.page_hash, self.query
        proto = state.widget_states.widgets.add()
        proto.id = self.widgets[key]
        setter(proto)
        if self.fragment_of.get(key):
            state.fragment_id = self.fragment_of[key]
        self._sent_after = self.runs_finished
        await self._ws.send(msg.SerializeToString())

    async def _rerun(self, widget: tuple[str, str, object] | None = None) -> None:
        if widget is None:
            await super()._rerun()
            return
        key, name, value = widget
        await self._send(lambda proto: setattr(proto, name, value), key)

    async def choose(self, key: str, label: str, *, many: bool = False) -> None:
        if many:
            await self._send(lambda proto: proto.string_array_value.data.append(label), key)
        else:
            await self._rerun(widget=(key, "string_value", label))

    async def acted(self, before: int, timeout: float = 300.0) -> None:
        """Wait until a whole-page run after `before` (runs_finished when the action was sent) ended."""
        await self.wait_for(lambda s: s.runs_finished > before, timeout)

    def since(self, key: str, after: float) -> float | None:
        """The first arrival of a tracked box after `after`, or None."""
        return next((t for t in self.history[key] if t > after), None)

    # --- receiving ------------------------------------------------------------------------------
    def _delta(self, delta) -> None:  # noqa: ANN001 (protobuf)
        now = time.monotonic()  # called as each message is parsed
        texts = len(self.texts)
        super()._delta(delta)
        if len(self.texts) > texts:
            body = self.texts.pop()
            self._text(body, now, delta.fragment_id)
        which = delta.WhichOneof("type")
        if which == "add_block" and delta.add_block.id.startswith("$$ID-"):
            key = delta.add_block.id.split("-", 2)[2]
            self.block_at[key] = now
            if key in self.history:
                self.history[key].append(now)
            if (self.epoch, key) not in self.first:
                self.first[self.epoch, key] = now
                self.drawn_by[self.epoch, key] = delta.fragment_id
        elif which == "new_element" and (kind := delta.new_element.WhichOneof("type")) is not None:
            element = getattr(delta.new_element, kind)
            if "id" in element.DESCRIPTOR.fields_by_name and element.id.startswith("$$ID-"):
                key = element.id.split("-", 2)[2]
                self.widget_at[key] = now
                self.fragment_of[key] = delta.fragment_id
                if "options" in element.DESCRIPTOR.fields_by_name:
                    self.options[key] = [getattr(o, "content", o) for o in element.options]

    def _text(self, body: str, now: float, fragment: str) -> None:
        new = body not in self.seen_text
        if new:
            self.seen_text[body] = now
            self.texts.append(body)
        if WATCHING.match(body):
            if body not in self.epochs:
                self.epochs.append(body)
            self.epoch = body
        elif SEAT_PAUSE.match(body) and new:  # a pause this seat had not seen in this run
            marks = self.pauses.setdefault(self.epoch, [])
            marks.append(now)
            self.drawn_by[self.epoch, f"pause-{len(marks) - 1}"] = fragment
        elif TALLY.match(body):
            self.text_log.append((now, body))


def say(what: str, rep: Rep | None = None) -> None:
    """Progress, on stderr: the table alone goes to stdout."""
    if rep is not None:
        rep.stage = what
    print(f"[{time.strftime('%H:%M:%S')}] {what}", file=sys.stderr, flush=True)


def ended(session: Seat, since: float) -> bool:
    """The trainer's run drew its end badge after `since`."""
    return any(
        k.startswith(TRAINER_VIEW + "end-") and STEP.match(k.removeprefix(TRAINER_VIEW)) and t > since
        for k, t in session.block_at.items()
    )


def _kind(key: str) -> re.Pattern[str]:
    """`key` and the later boxes of its kind one script run draws (`key-2`, `key-3`: room_view._nth)."""
    return re.compile(re.escape(key) + r"(-\d+)?")


def latest(session: Seat, key: str) -> float:
    """When the newest box or widget of `key`'s kind arrived (-1: never)."""
    kind = _kind(key)
    return max(
        (t for k, t in (*session.block_at.items(), *session.widget_at.items()) if kind.fullmatch(k)), default=-1.0
    )


def newest(session: Seat, key: str) -> str:
    """The key of the newest widget of `key`'s kind."""
    kind = _kind(key)
    return max((k for k in session.widget_at if kind.fullmatch(k)), key=session.widget_at.__getitem__, default=key)


def code_of(session: Seat) -> str | None:
    return next((m.group(1) for body in session.texts if (m := CODE_LINK.search(body))), None)


# --- one repetition ---------------------------------------------------------------------------------


@dataclass
class Rep:
    """What one repetition measured (seconds unless named otherwise)."""

    joins: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    #: the same lags by kind of step (call, verdict, draft, diff, thought, final, end, pause)
    kinds: dict[str, list[float]] = field(default_factory=dict)
    missing: int = 0  # steps the trainer had that a watching seat never received
    tallies: list[float] = field(default_factory=list)
    votes_sent: int = 0
    votes_counted: int = 0
    polls: int = 0
    pauses: int = 0
    forks: int = 0
    forks_done: int = 0
    health_ms: list[float] = field(default_factory=list)
    cores: float = 0.0
    wall: float = 0.0
    rss: tuple[float, float, float] = (0.0, 0.0, 0.0)
    client_cores: float = 0.0
    loop_late_ms: list[float] = field(default_factory=list)
    loads: tuple[float, float] = (0.0, 0.0)
    #: where the room stopped moving (the trainer waited STALL_S for the run), or "" when it did not
    stalled: str = ""
    stage: str = ""


class Health(threading.Thread):
    """/_stcore/health asked every HEALTH_EVERY_S; its latencies in ms."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.ms, self.done = url + "/_stcore/health", [], threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            began = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url, timeout=HEALTH_TIMEOUT_S) as response:
                    response.read()
                self.ms.append((time.perf_counter() - began) * 1000)
            except OSError:
                self.ms.append(HEALTH_TIMEOUT_S * 1000)
            self.done.wait(HEALTH_EVERY_S)


async def loop_lateness(out: list[float], stop: asyncio.Event) -> None:
    """How late this process's event loop wakes a 50 ms sleep: the client's own share of every lag."""
    while not stop.is_set():
        began = time.monotonic()
        await asyncio.sleep(0.05)
        out.append((time.monotonic() - began - 0.05) * 1000)


async def join(url: str, code: str) -> tuple[Seat, float]:
    seat = Seat(url)
    await seat.__aenter__()
    began = time.monotonic()
    await seat.open("room", query=f"room={code}")
    await seat.wait_for(lambda s: WAITING in s.seen_text, timeout=300)
    return seat, time.monotonic() - began


async def vote(seat: Seat, poll_open: float, sent: list[float], rng: random.Random) -> None:
    """See the question (a poll box drawn after the trainer asked), read it, vote."""
    await seat.wait_for(
        lambda s: (
            latest(s, "poll_seat") > poll_open
            and any(k.startswith("poll_choice_") and s.widget_at[k] > poll_open for k in s.widget_at)
        ),
        timeout=120,
    )
    key = max((k for k in seat.widget_at if k.startswith("poll_choice_")), key=seat.widget_at.__getitem__)
    await asyncio.sleep(rng.uniform(*READ_S))
    choices = seat.options.get(key) or ["PASS"]
    sent.append(time.monotonic())
    await seat.choose(key, rng.choice(choices), many=True)


async def take_it(seat: Seat, asked: float) -> bool:
    """Take it from here, then run the fork in this seat's Playground; True when it ended."""
    await seat.wait_for(lambda s: latest(s, "room_take") > asked, timeout=120)
    await seat.click(newest(seat, "room_take"))
    await seat.wait_for(lambda s: any(k.startswith("fork_run_") for k in s.widgets), timeout=120)
    run = next(k for k in seat.widgets if k.startswith("fork_run_"))
    before = time.monotonic()
    await seat.click(run)
    await seat.wait_for(lambda s: latest(s, "pg_view-final") > before or latest(s, "pg_view-end-stop") > before, 300)
    return True


def trainer_tally(trainer: Seat, since: float) -> list[tuple[float, int]]:
    return [(at, int(TALLY.match(body).group(1))) for at, body in trainer.text_log if at > since]


async def ask_and_collect(trainer: Seat, seats: list[Seat], rep: Rep, rng: random.Random, asked: float) -> None:
    """The trainer asks the room; the seats vote; the trainer waits for the tally to count them."""
    before = trainer.runs_finished
    await trainer.click("pg_poll_open")
    await trainer.acted(before)
    opened = time.monotonic()
    sent: list[float] = []
    await asyncio.gather(*(vote(seat, asked, sent, rng) for seat in seats), return_exceptions=True)
    try:
        await trainer.wait_for(lambda s: any(n >= len(sent) for _t, n in trainer_tally(s, opened)), VOTES_WAIT_S)
    except TimeoutError:
        pass
    shown = trainer_tally(trainer, opened)
    for k, at in enumerate(sorted(sent), 1):
        counted = next((t for t, n in shown if n >= k), None)
        if counted is not None:
            rep.tallies.append(max(0.0, counted - at))
    rep.votes_sent += len(sent)
    rep.votes_counted += max((n for _t, n in shown), default=0)
    rep.polls += 1
    say(f"poll: {max((n for _t, n in shown), default=0)} of {len(sent)} votes on the trainer's tally", rep)


async def run_in_room(
    trainer: Seat, watching: list[Seat], label: str, learn_key: str, breakpoint: str, rep: Rep, rng: random.Random
) -> list[tuple[str, float]]:
    """One run of the trainer's, paused at every breakpoint, before the seats in `watching`; returns
    the trainer's pauses (epoch, first arrival), in order. At the second pause of the first run one
    seat in FORK_EVERY takes it from there: it leaves `watching` for its own Playground."""
    # (the keys of this session's earlier pages are known already: wait for ones drawn after each move)
    moved = time.monotonic()
    await trainer.open("learn")
    await trainer.wait_for(lambda s: s.widget_at.get(learn_key, 0) > moved)
    moved, before = time.monotonic(), trainer.runs_finished
    await trainer.click(learn_key)
    await trainer.acted(before)
    await trainer.wait_for(
        lambda s: s.page == "playground" and min(s.widget_at.get(k, 0) for k in ("pg_run", "pg_step")) > moved
    )
    moved, before = time.monotonic(), trainer.runs_finished
    await trainer.toggle("pg_step", True)
    await trainer.acted(before)
    await trainer.wait_for(lambda s: s.widget_at.get("pg_step_breaks", 0) > moved)
    before = trainer.runs_finished
    await trainer.choose("pg_step_breaks", breakpoint, many=True)
    await trainer.acted(before)
    trainer.epoch = label
    went = time.monotonic()
    say(f"{label}: Run", rep)
    await trainer.click("pg_run")
    pauses: list[tuple[str, float]] = []
    forks: list[asyncio.Task] = []
    while True:
        await trainer.wait_for(
            # every run here pauses at its breakpoint before it ends: an end badge before the first pause is
            # the previous run's, drawn once more by the Playground's rerun as Run is pressed
            lambda s, went=went: s.since("pg_pause", went) is not None or (bool(pauses) and ended(s, went)),
            timeout=STALL_S,
        )
        paused = trainer.since("pg_pause", went)
        if paused is None:
            break  # the run ended
        pauses.append((label, trainer.first.setdefault((label, f"pause-{len(pauses)}"), paused)))
        rep.pauses += 1
        say(f"{label}: pause {len(pauses)}", rep)
        if len(pauses) <= POLLS_PER_RUN:
            with contextlib.suppress(TimeoutError):  # the bar's last widgets arrive (a loaded server: later)
                await trainer.wait_for(lambda s, paused=paused: latest(s, "pg_poll_open") >= paused, BAR_WAIT_S)
        if latest(trainer, "pg_poll_open") >= paused and len(pauses) <= POLLS_PER_RUN:
            await ask_and_collect(trainer, watching, rep, rng, paused)
        if len(pauses) == 2 and label == RUNS[0][0]:
            takers = [s for i, s in enumerate(list(watching)) if i % FORK_EVERY == 0]
            for taker in takers:
                watching.remove(taker)
            forks = [asyncio.create_task(take_it(s, paused)) for s in takers]
            rep.forks += len(takers)
        went = time.monotonic()
        await trainer.click("pg_step_continue")
    say(f"{label}: ended", rep)
    done = await asyncio.gather(*forks, return_exceptions=True)
    rep.forks_done += sum(1 for d in done if d is True)
    # the seats still watching catch the end of this run (their `number`-th) before the next one starts
    number = [r[0] for r in RUNS].index(label) + 1

    def caught(seat: Seat) -> bool:
        return len(seat.epochs) >= number and (seat.epochs[number - 1], f"{SEAT_VIEW}final") in seat.first

    try:
        await asyncio.gather(*(s.wait_for(caught, timeout=60) for s in watching))
    except TimeoutError:
        pass
    return pauses


def event_lags(trainer: Seat, seats: list[Seat], watching_all: set[int], rep: Rep) -> None:
    """Each step the trainer's session received against each seat's arrival of the same one. A seat
    that took the run from there left the room's view: only what it had received is compared."""
    labels = [label for label, _k, _b in RUNS]
    for index, seat in enumerate(seats):
        for number, epoch in enumerate(seat.epochs[: len(labels)]):
            label = labels[number]
            theirs = {k.removeprefix(SEAT_VIEW): t for (e, k), t in seat.first.items() if e == epoch}
            theirs.update({f"pause-{i}": t for i, t in enumerate(seat.pauses.get(epoch, []))})
            mine = {
                k.removeprefix(TRAINER_VIEW): t
                for (e, k), t in trainer.first.items()
                if e == label and k.startswith(TRAINER_VIEW) and STEP.match(k.removeprefix(TRAINER_VIEW))
            }
            mine.update({k: t for (e, k), t in trainer.first.items() if e == label and k.startswith("pause-")})
            for step, at in mine.items():
                if step in theirs:
                    rep.lags.append(theirs[step] - at)
                    rep.kinds.setdefault(step.split("-")[0], []).append(theirs[step] - at)
                elif index in watching_all:
                    rep.missing += 1
        if index in watching_all and len(seat.epochs) < len(labels):
            rep.missing += 1  # a whole run this seat never saw


async def one_rep(url: str, pid: int, seats_n: int, rng: random.Random, profile: bool = False) -> Rep:
    rep = Rep(loads=(os.getloadavg()[0], 0.0))
    trainer = Seat(url)
    await trainer.__aenter__()
    seats: list[Seat] = []
    try:
        await trainer.open("room")
        await trainer.wait_for(lambda s: "room_open" in s.widgets)
        await trainer.click("room_open")
        await trainer.wait_for(lambda s: code_of(s) is not None)
        code = code_of(trainer)
        say(f"room {code} open; {seats_n} seats join")
        joined = await asyncio.gather(*(join(url, code) for _ in range(seats_n)))
        seats = [s for s, _t in joined]
        rep.joins = [t for _s, t in joined]
        await to_primes(trainer)  # the Playground once, so its first draw is not billed to the load
        rss_before = rss_mb(pid)
        sampler, health, stop = Sampler(pid), Health(url), asyncio.Event()
        late = asyncio.create_task(loop_lateness(rep.loop_late_ms, stop))
        sampler.start()
        health.start()
        if profile:
            os.kill(pid, signal.SIGUSR1)  # the server's profiler: a window from the first Run
        cpu0, wall0, mine0 = cpu_seconds(pid), time.monotonic(), _own_cpu()
        watching = list(seats)
        try:
            for label, learn_key, breakpoint in RUNS:
                await run_in_room(trainer, watching, label, learn_key, breakpoint, rep, rng)
        except TimeoutError:
            rep.stalled = f"after {rep.stage!r}"
            say(f"the room stalled {rep.stalled}: measuring what it did so far", rep)
        rep.wall = time.monotonic() - wall0
        rep.cores = (cpu_seconds(pid) - cpu0) / rep.wall
        rep.client_cores = (_own_cpu() - mine0) / rep.wall
        if profile:
            os.kill(pid, signal.SIGUSR2)  # ... to the last run's end
        health.done.set()
        sampler.stop.set()
        stop.set()
        await late
        health.join(HEALTH_TIMEOUT_S + 5)
        rep.health_ms = health.ms
        watching_all = {i for i, seat in enumerate(seats) if seat in watching}
        event_lags(trainer, seats, watching_all, rep)
    finally:
        for session in [trainer, *seats]:
            await session.__aexit__()
    await asyncio.sleep(3)  # the closed sessions' scripts end
    rep.rss = (rss_before, sampler.peak, rss_mb(pid))
    rep.loads = (rep.loads[0], os.getloadavg()[0])
    return rep


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --- the report -------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def spread(values: list[float], fmt: str = "{:.0f}") -> str:
    """The median of the repetitions' figures, and their range when there is more than one."""
    if len(values) == 1:
        return fmt.format(values[0])
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def report(reps: list[Rep], seats: int) -> None:
    ms = 1000.0
    lag50 = [pct(r.lags, 0.5) * ms for r in reps]
    lag95 = [pct(r.lags, 0.95) * ms for r in reps]
    lagmax = [max(r.lags, default=float("nan")) * ms for r in reps]
    t50 = [pct(r.tallies, 0.5) * ms for r in reps]
    t95 = [pct(r.tallies, 0.95) * ms for r in reps]
    tmax = [max(r.tallies, default=float("nan")) * ms for r in reps]
    h50 = [pct(r.health_ms, 0.5) for r in reps]
    h95 = [pct(r.health_ms, 0.95) for r in reps]
    hmax = [max(r.health_ms, default=float("nan")) for r in reps]
    print(
        f"One server (`streamlit run app.py`, offline model), one trainer and {seats} seats as websocket "
        f"sessions (tests/st_client.py with the fragments' timers); the trainer runs Reflection on primes "
        f"(a breakpoint before the critic) and Plan-and-Execute on order 99999 (before the reflector), asks "
        f"the room at each pause (up to {POLLS_PER_RUN} a run), every seat votes, one seat in {FORK_EVERY} "
        f"takes Reflection from its second pause and runs the fork. {len(reps)} repetition(s), each in a "
        f"fresh room; figures are the median of the repetitions (min-max).\n"
    )
    rows = [
        (
            "event lag, trainer's screen to a seat's: p50 / p95 / max",
            f"{spread(lag50)} / {spread(lag95)} / {spread(lagmax)} ms",
            f"p95 <= {TARGET_LAG_MS:.0f} ms",
            met(statistics.median(lag95) <= TARGET_LAG_MS),
        ),
        (
            "vote to the trainer's tally: p50 / p95 / max",
            f"{spread(t50)} / {spread(t95)} / {spread(tmax)} ms",
            f"p95 <= {TARGET_TALLY_MS:.0f} ms",
            met(statistics.median(t95) <= TARGET_TALLY_MS),
        ),
        (
            f"/_stcore/health every {HEALTH_EVERY_S * 1000:.0f} ms during the load: p50 / p95 / max",
            f"{spread(h50)} / {spread(h95)} / {spread(hmax)} ms",
            f"p95 <= {TARGET_HEALTH_MS:.0f} ms",
            met(statistics.median(h95) <= TARGET_HEALTH_MS),
        ),
        ("server CPU during the load", spread([r.cores for r in reps], "{:.2f}") + " cores of 2", "", ""),
        (
            "server RSS: before / peak / after the room",
            f"{spread([r.rss[0] for r in reps])} / {spread([r.rss[1] for r in reps])} / "
            f"{spread([r.rss[2] for r in reps])} MB",
            "",
            "",
        ),
        (
            "a seat joining by ?room=CODE, all at once: median / slowest",
            f"{spread([pct(r.joins, 0.5) for r in reps], '{:.2f}')} / "
            f"{spread([max(r.joins) for r in reps], '{:.2f}')} s",
            "",
            "",
        ),
        (
            "steps compared (trainer's steps x seats) / missing on a watching seat",
            f"{spread([len(r.lags) for r in reps])} / {spread([r.missing for r in reps])}",
            "",
            "",
        ),
        (
            "pauses / polls / votes counted of sent",
            f"{spread([r.pauses for r in reps])} / {spread([r.polls for r in reps])} / "
            f"{spread([r.votes_counted for r in reps])} of {spread([r.votes_sent for r in reps])}",
            "",
            "",
        ),
        (
            "forks run to their end / started",
            f"{spread([r.forks_done for r in reps])} / {spread([r.forks for r in reps])}",
            "",
            "",
        ),
        (
            f"repetitions that stalled (no next pause nor end within {STALL_S:.0f} s)",
            "; ".join(f"{i + 1}: {r.stalled}" for i, r in enumerate(reps) if r.stalled) or "none",
            "none",
            met(not any(r.stalled for r in reps)),
        ),
        ("load span (first Run to the last run's end)", spread([r.wall for r in reps], "{:.1f}") + " s", "", ""),
        (
            "this client's own CPU / its event loop late: p95 / max",
            f"{spread([r.client_cores for r in reps], '{:.2f}')} cores / "
            f"{spread([pct(r.loop_late_ms, 0.95) for r in reps])} / {spread([max(r.loop_late_ms) for r in reps])} ms",
            "",
            "",
        ),
        (
            "load average (1 min) at the start / end of each repetition",
            ", ".join(f"{a:.1f} / {b:.1f}" for a, b in (r.loads for r in reps)),
            "",
            "",
        ),
    ]
    print(table(("measure", "value", "target", "met"), rows))
    kinds = sorted({k for r in reps for k in r.kinds}, key=lambda k: -max(pct(r.kinds.get(k, []), 0.95) for r in reps))
    by_kind = [
        (
            kind,
            spread([len(r.kinds.get(kind, [])) for r in reps]),
            spread([pct(r.kinds.get(kind, []), 0.5) * ms for r in reps]),
            spread([pct(r.kinds.get(kind, []), 0.95) * ms for r in reps]),
        )
        for kind in kinds
    ]
    print("\nEvent lag by kind of step (ms):\n")
    print(table(("step", "compared", "p50", "p95"), by_kind))
    print(f"\n{machine()}")


async def main(seats: int, reps_n: int, profile: str | None = None) -> None:
    rng = random.Random(24)
    with serving(1, None, profile, log_name="bench-classroom.log") as running:
        [(url, pid)] = running
        warm = Seat(url)  # the server's first imports and page modules, billed to nobody
        async with warm:
            await to_primes(warm)
        reps = []
        for number in range(reps_n):
            reps.append(await one_rep(url, pid, seats, rng, profile=profile is not None and number == 0))
            print(f"(repetition {number + 1} of {reps_n} done)", file=sys.stderr, flush=True)
    report(reps, seats)
    if profile:
        print_profile([f"{profile}.0.json"])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=None, help="participants in the room (default 40)")
    parser.add_argument("--reps", type=int, default=None, help="repetitions, each in a fresh room (default 3)")
    parser.add_argument("--quick", action="store_true", help="8 seats, one repetition (unless given)")
    parser.add_argument("--profile", metavar="PATH", help="sample the server's CPU by stack in the first repetition")
    args = parser.parse_args()
    seats = args.seats if args.seats is not None else (8 if args.quick else 40)
    reps = args.reps if args.reps is not None else (1 if args.quick else 3)
    asyncio.run(main(seats, reps, args.profile))
