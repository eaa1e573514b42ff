"""Compare's lanes: two to four runs of one task side by side. A lane is a pattern variant, a prompt
variant, a limit setting or a model; it is set up with the Playground's own controls under its own
key prefix, run concurrently with the others (agent_core.lanes) and drawn live by the one renderer;
lane_results.py compares them once they have ended.

State: the shared task under `cmp_*`; lane i's setup under `cmp<i>_*` (controls.py's keys, plus a
name and a model); each lane's run as a RunRecord under `cmp<i>_runs` (runs.py: the sidebar locks
while one runs, and any kind of end unlocks it); the latest comparison under `cmp_comparison`.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

import agent_core as ac
from agent_core import events as ev
from agent_core.lanes import Lane, LaneSet, StreamFactory
from agent_core.mock_tools import TOOLS
from agent_core.prompts import specs_for
from agent_core.scenarios import SCENARIOS

from . import controls, runs, sidebar, text
from .controls import FREE, VARIANTS, k, prompt_key
from .render import RunView

P = "cmp"
LETTERS = "ABCD"
MAX_LANES = len(LETTERS)
K_SCENARIO, K_FREE_TASK, K_TOOLS, K_COUNT = f"{P}_scenario", f"{P}_free_task", f"{P}_tools", f"{P}_count"
K_COMPARISON = f"{P}_comparison"
#: The lanes a first visit opens with: the three patterns, and a fourth lane if the user adds one.
DEFAULT_LANES = ("react-advisor", "plan-execute-reflector", "reflection", "plan-execute")
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
    return int(st.session_state.get(K_COUNT, 3))


# --- presets --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LaneSpec:
    """One lane of a preset: its variant, name, switches and prompt additions (per language)."""

    variant: str
    name: str
    switches: dict[str, bool] = field(default_factory=dict)
    #: prompt key -> (English, Chinese) text appended to the default prompt
    prompt_tails: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Preset:
    label: str
    icon: str
    help: str
    lanes: tuple[LaneSpec, ...]
    #: the task the preset is about; None keeps the current one
    scenario: str | None = None


_STRICT = ("\n\nBe strict. Answer PASS only when every quality criterion is fully met and you would hand the "
           "draft over exactly as it is; otherwise answer REVISE and list every remaining problem.",
           "\n\n请从严评审：只有当每一条质量标准都完全满足、你愿意原样交付时才回答 PASS；"
           "否则回答 REVISE，并列出所有剩余问题。")
_LENIENT = ("\n\nBe lenient. Answer PASS unless the draft has a factual error or does not do the task; never "
            "ask for polish, style or extra detail.",
            "\n\n请宽松评审：除非草稿有事实错误或没有完成任务，否则一律回答 PASS；"
            "不要为润色、文风或补充细节要求修改。")

PRESETS: dict[str, Preset] = {
    "patterns": Preset(
        "Three patterns on this task", ":material/view_week:",
        "ReAct with its reflection advisor, Plan-and-Execute with its Reflector, and Reflection, on the task "
        "above. Off their own scenario, the offline model plays a short generic run.",
        (LaneSpec("react-advisor", "ReAct + advisor"),
         LaneSpec("plan-execute-reflector", "Plan-and-Execute + Reflector"),
         LaneSpec("reflection", "Reflection"))),
    "critic": Preset(
        "Strict vs lenient critic", ":material/gavel:",
        "Reflection on the report task, with one sentence added to the critic's prompt in each lane. The scripted "
        "offline model does not read prompts: connect a model in the sidebar to see the verdicts differ.",
        (LaneSpec("reflection", "Strict critic", prompt_tails={"critic": _STRICT}),
         LaneSpec("reflection", "Lenient critic", prompt_tails={"critic": _LENIENT})),
        scenario="report-criteria"),
    "executor": Preset(
        "Goal-blind vs goal-aware executor", ":material/visibility_off:",
        "Plan-and-Execute with the Reflector on the two long-haired cats: the goal-blind executor lists every "
        "spec and is sent back (RETRY); the goal-aware one answers for the cats at once (seed 03).",
        (LaneSpec("plan-execute-reflector", "Goal-blind executor", {"goal_aware_executor": False}),
         LaneSpec("plan-execute-reflector", "Goal-aware executor", {"goal_aware_executor": True})),
        scenario="vacuum-cats"),
}


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
        state[k(p, "name")] = lane.name
        state[k(p, "model")] = ""
        sync_lane(i, lang, force=True)
        pattern = VARIANTS[lane.variant].pattern
        for key, spec in specs_for(pattern).items():
            tail = lane.prompt_tails.get(key)
            added = "" if tail is None else tail[1] if lang == "zh" else tail[0]
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
    state.setdefault(K_COUNT, 3)
    for i, variant in enumerate(DEFAULT_LANES):
        p = lane_prefix(i)
        controls.init_state(p, lang, variant)
        state.setdefault(k(p, "name"), "")
        state.setdefault(k(p, "model"), "")
        sync_lane(i, lang)


def sync_lane(i: int, lang: str, *, force: bool = False) -> None:
    """Put the shared task into lane i's setup keys, as its own scenario when the lane's pattern is
    the scenario's, else as a free task with the scenario's tools (no other pattern has a script or
    options for it); load the scenario's options when that changes."""
    state = st.session_state
    p = lane_prefix(i)
    pattern = VARIANTS[state[k(p, "variant")]].pattern
    sid = state[K_SCENARIO]
    own = sid if sid in SCENARIOS and SCENARIOS[sid].pattern == pattern else FREE
    if own == FREE:
        foreign = SCENARIOS.get(sid)
        state[k(p, "free_task")] = foreign.task_text(lang) if foreign else state.get(K_FREE_TASK, "")
        state[k(p, "tools")] = list(foreign.tools) if foreign else list(state.get(K_TOOLS) or [])
    if force or state.get(k(p, "scenario")) != own:
        state[k(p, "scenario")] = own
        controls.apply_scenario(p, lang)


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
    label = VARIANTS[state[k(p, "variant")]].label
    return f"{label} · {model}" if model and not sidebar.is_offline() else label


def lane_name(i: int) -> str:
    """The lane's letter and name, e.g. "B · Strict critic" (the letter keeps names unique)."""
    typed = " ".join((st.session_state.get(k(lane_prefix(i), "name")) or "").split())
    return f"{LETTERS[i]} · {typed or auto_name(i)}"


def lane_model(i: int) -> str | None:
    """The lane's model override, if any (ignored on the offline model)."""
    return (st.session_state.get(k(lane_prefix(i), "model")) or "").strip() or None


def read_setups(lang: str) -> list[controls.Setup]:
    return [controls.read_setup(lane_prefix(i), lang, sidebar.temperature()) for i in range(lane_count())]


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
    lane_set = LaneSet([Lane(name, _starter(record, router))
                        for name, record, router in zip(comparison.names, records, routers, strict=True)]).start()
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
        if (isinstance(event, ev.Token) and isinstance(previous, ev.Token) and previous.role == event.role
                and previous.step == event.step):
            out[at] = (lane, dataclasses.replace(event, text=previous.text + event.text))
        else:
            latest[lane] = len(out)
            out.append((lane, event))
    return out


def _starter(record: runs.RunRecord, router: ac.ModelRouter) -> StreamFactory:
    config = record.run_config()
    return lambda: ac.stream(record.task, config, router)


# --- drawing the setup ----------------------------------------------------------------------------

def task_picker(lang: str, *, disabled: bool) -> None:
    """The shared task (any scenario, or a free task with tools), the presets and the lane count."""
    state = st.session_state
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.selectbox("Task", [*SCENARIOS, FREE], key=K_SCENARIO, disabled=disabled, persist_state="session",
                     on_change=_scenario_changed, format_func=lambda s: (
                         "Free task — type your own" if s == FREE else SCENARIOS[s].title.get(lang, s)))
        sid = state[K_SCENARIO]
        if sid == FREE:
            st.text_area("Task", key=K_FREE_TASK, height=90, disabled=disabled, persist_state="session",
                         placeholder="What should every lane do?", label_visibility="collapsed")
            st.multiselect("Tools (mock)", list(TOOLS), key=K_TOOLS, disabled=disabled, persist_state="session",
                           help="For the ReAct and Plan-and-Execute lanes; Reflection uses no tools.")
        else:
            scenario = SCENARIOS[sid]
            with st.container(border=True, key=f"{P}_task_box"):
                st.markdown(f"**Task** · {text.escape(scenario.task_text(lang))}")
                if scenario.tools:
                    st.caption("Tools: " + ", ".join(text.code_span(t) for t in scenario.tools))
                st.caption(f":material/visibility: {text.escape(scenario.watch.get(lang) or scenario.watch['en'])}")
    with right:
        st.markdown("**One-click comparisons**")
        for name, preset in PRESETS.items():
            st.button(preset.label, key=f"{P}_preset_{name}", icon=preset.icon, help=preset.help, disabled=disabled,
                      on_click=apply_preset, args=(name,), width="stretch")
        st.segmented_control("Lanes", [2, 3, 4], key=K_COUNT, required=True, disabled=disabled,
                             persist_state="session", help="How many runs to put side by side.")


def lane_cards(setups: Sequence[controls.Setup], lang: str, *, disabled: bool) -> None:
    """One card per lane: name, pattern, model, and the Playground's limit and prompt editors."""
    for i, (column, setup) in enumerate(zip(st.columns(len(setups), gap="small"), setups, strict=True)):
        with column.container(border=True, key=f"{P}_card{i}"):
            _lane_card(i, setup, lang, disabled=disabled)


def _lane_card(i: int, setup: controls.Setup, lang: str, *, disabled: bool) -> None:
    p = lane_prefix(i)
    state = st.session_state
    st.markdown(f"##### Lane {LETTERS[i]}")
    st.text_input("Name", key=k(p, "name"), placeholder=auto_name(i), disabled=disabled, persist_state="session")
    st.selectbox("Pattern", list(VARIANTS), format_func=lambda v: VARIANTS[v].label, key=k(p, "variant"),
                 disabled=disabled, on_change=_variant_changed, args=(i,), persist_state="session")
    if not sidebar.is_offline():
        st.text_input("Model", key=k(p, "model"), disabled=disabled, persist_state="session",
                      placeholder=f"{sidebar.model_router().names()['default']} (from the sidebar)",
                      help="Another model on the sidebar's endpoint answers every role of this lane.")
    pattern = setup.variant.pattern
    edited = sum(1 for key, spec in specs_for(pattern).items()
                 if state.get(prompt_key(p, pattern, key)) != spec.default(lang))
    traits = [controls.SWITCHES[n][0] for n in controls.switches_of(setup.variant) if state.get(k(p, f"opt_{n}"))]
    if edited:
        traits.append(f"{edited} prompt{'s' if edited != 1 else ''} edited")
    if setup.bound is not None:
        traits.insert(0, f"≤ {setup.bound} LLM calls")
    st.caption(" · ".join(traits))
    if edited and sidebar.is_offline():
        st.caption(":material/info: The offline model's replies are scripted: they do not read the prompts.")
    with st.expander("Limits & switches", icon=":material/tune:"):
        controls.limit_controls(p, setup, disabled=disabled)
    with st.expander("Prompts", icon=":material/edit_note:"):
        controls.prompt_editor(p, setup, lang, disabled=disabled)
    for problem in setup.problems:
        st.error(problem, icon=":material/block:")


def run_buttons(setups: Sequence[controls.Setup], *, running: bool) -> None:
    """Run (all lanes at once) and Stop (every lane), with why Run is disabled when it is."""
    blocked = [f"Lane {LETTERS[i]}: {p}" for i, s in enumerate(setups) for p in s.problems]
    model = sidebar.model_problem()
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    row.button("Run all lanes", key=f"{P}_run", type="primary", icon=":material/play_arrow:", on_click=start,
               disabled=running or bool(blocked) or model is not None)
    row.button("Stop", key=f"{P}_stop", icon=":material/stop_circle:", on_click=stop, disabled=not running)
    bounds = [s.bound for s in setups if s.bound is not None]
    row.caption(f"{len(setups)} lanes run at the same time · ≤ **{sum(bounds)}** LLM calls in all")
    if model:
        st.error(model, icon=":material/block:")
    elif blocked:
        st.caption(":material/block: Fix the lanes marked in red first.")


# --- drawing the runs -----------------------------------------------------------------------------

def lane_columns(comparison: Comparison) -> list[Any]:
    """A column per lane with its name and models; returns the containers the views draw into."""
    holders = []
    for i, column in enumerate(st.columns(len(comparison.lanes), gap="small")):
        record = comparison.lanes[i]
        name = comparison.names[i]
        variant = VARIANTS[controls.variant_of(record.config)].label
        models = ", ".join(text.code_span(m) if role == "default" else f"{text.inline(role)}: {text.code_span(m)}"
                           for role, m in record.models.items())
        with column:
            st.markdown(f"##### {text.inline(name, 80)}")
            st.caption(models if name.endswith(f" · {variant}") else f"{text.inline(variant)} · {models}")
            holders.append(st.container(key=f"{view_key(i)}-column"))
    return holders
