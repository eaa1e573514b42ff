"""Compare's state scheme and its lanes' runs: the shared task under `cmp_*`; lane i's setup under
`cmp<i>_*` (setup_state.py's keys, plus a name and a model); each lane's run as a RunRecord under
`cmp<i>_runs` (runs.py: the sidebar locks while one runs, and any kind of end unlocks it); the latest
comparison under `cmp_comparison`. `drive` runs the claimed lanes concurrently (agent_core.lanes).
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

import agent_core as ac
from agent_core import events as ev
from agent_core.lanes import Lane, LaneSet, StreamFactory
from agent_core.patterns.registry import specs_for
from agent_core.scenarios import SCENARIOS

from . import runs, setup_state, sidebar, turns
from .catalogue import VARIANTS
from .lane_presets import PRESETS
from .render import RunView
from .setup_state import FREE, k, prompt_key

P = "cmp"
LETTERS = "ABCD"
MAX_LANES = len(LETTERS)
K_SCENARIO, K_FREE_TASK, K_TOOLS, K_COUNT = f"{P}_scenario", f"{P}_free_task", f"{P}_tools", f"{P}_count"
K_COMPARISON = f"{P}_comparison"
#: The lanes a first visit opens with: the preset "every pattern and the baseline" (lanes past the
#: count are set up too, for when the user adds one).
DEFAULT_COUNT = max(2, min(len(PRESETS["patterns"].lanes), MAX_LANES))
DEFAULT_LANES = tuple([*(lane.variant for lane in PRESETS["patterns"].lanes), *VARIANTS][:MAX_LANES])
DEFAULT_SCENARIO = "order-99999"
#: How long a worker may take to notice Stop (one model call's next delta, usually far less).
STOP_WAIT_S = 2.0
#: Lanes are redrawn at most this often: three lanes streaming 60 tokens a second each would send
#: a browser more updates than it can paint, so each frame draws a lane's new tokens at once.
FRAME_S = 0.1


def lane_prefix(i: int) -> str:
    return f"{P}{i}"


def view_key(i: int) -> str:
    return f"{P}_lane{i}"


def lane_count() -> int:
    return int(st.session_state.get(K_COUNT, DEFAULT_COUNT))


def apply_preset(name: str) -> None:
    """Set the lanes (and the task, if the preset has one) — a button's on_click."""
    state = st.session_state
    lang = sidebar.current_lang()
    preset = PRESETS[name]
    if preset.scenario is not None:
        state[K_SCENARIO] = preset.scenario
    state[K_COUNT] = len(preset.lanes)
    for i, lane in enumerate(preset.lanes):
        p = lane_prefix(i)
        state[k(p, "variant")] = lane.variant
        state[k(p, "name")] = lane.name(lang)
        state[k(p, "model")] = ""
        sync_lane(i, lang, force=True)
        pattern = VARIANTS[lane.variant].pattern
        for key, spec in specs_for(pattern).items():
            tail = lane.prompt_tails.get(key)
            added = "" if tail is None else tail(lang)
            state[prompt_key(p, pattern, key)] = spec.default(lang) + added
        for switch, on in lane.switches.items():
            state[k(p, f"opt_{switch}")] = on


# --- state ----------------------------------------------------------------------------------------


def init_state(lang: str) -> None:
    """Seed the shared task and every lane once; keep each lane on the shared task."""
    state = st.session_state
    state.setdefault(K_SCENARIO, DEFAULT_SCENARIO)
    state.setdefault(K_FREE_TASK, "")
    state.setdefault(K_TOOLS, [])
    state.setdefault(K_COUNT, DEFAULT_COUNT)
    for i, variant in enumerate(DEFAULT_LANES):
        p = lane_prefix(i)
        setup_state.init_state(p, lang, variant)
        state.setdefault(k(p, "name"), "")
        state.setdefault(k(p, "model"), "")
        sync_lane(i, lang)


def sync_lane(i: int, lang: str, *, force: bool = False) -> None:
    """Put the shared task into lane i's setup keys, as its own scenario when the scenario's scripts
    play the lane's pattern (its own, or one it names in `also`), else as a free task with the scenario's
    tools (no other pattern has a script or options for it); load the scenario's options when that changes."""
    state = st.session_state
    p = lane_prefix(i)
    pattern = VARIANTS[state[k(p, "variant")]].pattern
    sid = state[K_SCENARIO]
    own = sid if sid in SCENARIOS and pattern in SCENARIOS[sid].patterns else FREE
    if own == FREE:
        foreign = SCENARIOS.get(sid)
        state[k(p, "free_task")] = foreign.task_text(lang) if foreign else state.get(K_FREE_TASK, "")
        state[k(p, "tools")] = list(foreign.tools) if foreign else list(state.get(K_TOOLS) or [])
    if force or state.get(k(p, "scenario")) != own:
        state[k(p, "scenario")] = own
        setup_state.apply_scenario(p, lang)


def _variant_changed(i: int) -> None:
    sync_lane(i, sidebar.current_lang(), force=True)


def _scenario_changed() -> None:
    lang = sidebar.current_lang()
    for i in range(MAX_LANES):
        sync_lane(i, lang, force=True)


def auto_name(i: int) -> str:
    state = st.session_state
    p = lane_prefix(i)
    model = (state.get(k(p, "model")) or "").strip()
    label = VARIANTS[state[k(p, "variant")]].label_in(sidebar.current_lang())
    return f"{label} · {model}" if model and not sidebar.is_offline() else label


def lane_name(i: int) -> str:
    """The lane's letter and name, e.g. "B · Strict critic" (the letter keeps names unique)."""
    typed = " ".join((st.session_state.get(k(lane_prefix(i), "name")) or "").split())
    return f"{LETTERS[i]} · {typed or auto_name(i)}"


def lane_model(i: int) -> str | None:
    """The lane's model override, if any (ignored on the offline model)."""
    return (st.session_state.get(k(lane_prefix(i), "model")) or "").strip() or None


def read_setups(lang: str) -> list[setup_state.Setup]:
    return [setup_state.read_setup(lane_prefix(i), lang, sidebar.temperature()) for i in range(lane_count())]


# --- the comparison -------------------------------------------------------------------------------


@dataclass
class Comparison:
    """One Compare run: a RunRecord per lane (each also kept under its lane's prefix), with names."""

    run_id: str
    task: str
    names: list[str]
    lanes: list[runs.RunRecord]
    #: per-lane model override ("" = the sidebar's model)
    models: list[str]

    @property
    def active(self) -> bool:
        return any(r.active for r in self.lanes)

    def events(self) -> list[list[ev.Event]]:
        return [r.typed_events() for r in self.lanes]


def current() -> Comparison | None:
    return st.session_state.get(K_COMPARISON)


def start() -> None:
    """The Run button's callback: register one pending run per lane before the page draws."""
    lang = sidebar.current_lang()
    setups = read_setups(lang)
    if any(s.problems or s.config is None or s.bound is None for s in setups) or sidebar.model_problem():
        return  # the page shows why; the button is disabled then anyway
    records, names, models = [], [], []
    for i, setup in enumerate(setups):
        model = lane_model(i) or ""
        router = sidebar.model_router(model or None)
        record = runs.begin(lane_prefix(i), setup.task, setup.config.to_dict(), router.names(), setup.bound)
        del runs.history(lane_prefix(i))[:-1]  # Compare shows only its latest comparison
        records.append(record)
        names.append(lane_name(i))
        models.append(model)
    st.session_state[K_COMPARISON] = Comparison(uuid.uuid4().hex[:12], setups[0].task, names, records, models)


def stop_lanes(comparison: Comparison) -> None:
    """End every lane now, keeping what each recorded; the driving script run sees it and stops
    the workers (callable from any thread: it touches only the records)."""
    for record in comparison.lanes:
        runs.settle(record)


def stop() -> None:
    """The Stop button's callback."""
    comparison = current()
    if comparison is not None:
        stop_lanes(comparison)


def claim(comparison: Comparison) -> bool:
    """True if this script run must drive the comparison (its lanes were pending, now running)."""
    claimed = [runs.claim(lane_prefix(i)) for i in range(len(comparison.lanes))]
    if all(c is r for c, r in zip(claimed, comparison.lanes, strict=True)):
        return True
    for record in claimed:  # another script run got there first: nothing may be left half-claimed
        if record is not None:
            runs.settle(record)
    return False


def drive(comparison: Comparison, views: Sequence[RunView], holders: Sequence[Any]) -> None:
    """Run the claimed lanes concurrently and draw each lane's events in its column as this script
    thread drains their queue (Streamlit drops what a worker thread draws). Ends when every lane has
    finished or the lanes were stopped; a cut script run stops the workers on its way out."""
    records = comparison.lanes
    routers = [sidebar.model_router(model or None) for model in comparison.models]
    lane_set = LaneSet(
        [
            Lane(name, _starter(record, router))
            for name, record, router in zip(comparison.names, records, routers, strict=True)
        ]
    ).start()
    turns.done()  # the page is drawn: following the lanes takes no turn
    try:
        open_lanes = set(range(len(records)))
        while open_lanes:
            frame = time.perf_counter()
            for i, event in coalesced(lane_set.drain(timeout=FRAME_S)):
                if runs.append(records[i], event):
                    with holders[i]:
                        views[i].add(event)
            for i in sorted(open_lanes):
                if lane_set.lanes[i].done or records[i].status != runs.RUNNING:
                    open_lanes.discard(i)
                    with holders[i]:
                        views[i].close()
                    runs.finish(records[i])
            time.sleep(max(0.0, FRAME_S - (time.perf_counter() - frame)))
    finally:
        lane_set.stop(timeout=STOP_WAIT_S)
        for record in records:
            runs.settle(record)


def coalesced(batch: Iterable[tuple[int, ev.Event]]) -> list[tuple[int, ev.Event]]:
    """The batch with each lane's consecutive tokens of one call merged: drawn once, same text."""
    out: list[tuple[int, ev.Event]] = []
    latest: dict[int, int] = {}  # lane -> index in `out` of its latest event
    for lane, event in batch:
        at = latest.get(lane)
        previous = out[at][1] if at is not None else None
        if (
            isinstance(event, ev.Token)
            and isinstance(previous, ev.Token)
            and previous.role == event.role
            and previous.step == event.step
        ):
            out[at] = (lane, dataclasses.replace(event, text=previous.text + event.text))
        else:
            latest[lane] = len(out)
            out.append((lane, event))
    return out


def _starter(record: runs.RunRecord, router: ac.ModelRouter) -> StreamFactory:
    config = record.run_config()
    return lambda: ac.stream(record.task, config, router)
