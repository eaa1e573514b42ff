"""Replay's player: open a trace — a bundled example, a downloaded trace, or one lane of a Compare
export — then step through it with a slider or play it at 1×, 2× or 4× on the run's own clock. It
is drawn by the one renderer, as a live run is. No model is ever called.

State under `rp_*`: the source, the parsed upload (kept per file id), the slider `rp_pos`,
`rp_playing`, `rp_played` (how far the play loop got) and `rp_seek`, a position for the slider to
take on the next script run (a widget's value cannot change once the widget is drawn).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from typing import Any

import streamlit as st

import agent_core as ac
from agent_core import events as ev
from agent_core import examples, exports, trace
from agent_core.config import RunConfig
from agent_core.errors import AgentError, TraceFormatError
from agent_core.otel import importing as otlp
from agent_core.scenarios import SCENARIOS

from . import fork_view, setup_state, text
from .catalogue import VARIANTS
from .blocks import final_looks
from .render import ENDINGS, RunView, draw_run, fresh_area
from .sidebar import LANGS, current_lang

P = "rp"
VIEW = f"{P}_view"
K_SOURCE, K_EXAMPLE, K_UPLOAD, K_FILE, K_LANE = (f"{P}_{n}" for n in ("source", "example", "upload", "file", "lane"))
K_POS, K_SEEK, K_PLAYING, K_PLAYED, K_SPEED, K_LOADED = (f"{P}_{n}" for n in ("pos", "seek", "playing", "played",
                                                                              "speed", "loaded"))
SPEEDS = (1, 2, 4)
#: The longest pause played between two events, in run seconds: a slow endpoint's wait is not worth watching.
MAX_GAP_S = 3.0
#: Blocks drawn before the first played event when Play starts in the middle of a run.
PLAY_CONTEXT_BLOCKS = 20
#: The example a first visit opens: the run that shows the most (REPLAN, RETRY, PASS).
FIRST_EXAMPLE = "order-99999"


@dataclass(frozen=True)
class Loaded:
    """One trace ready to replay: where it came from (to notice a change) and what to call it."""

    ident: str
    name: str
    trace: trace.Trace

    @property
    def events(self) -> list[ev.Event]:
        return self.trace.events

    @property
    def config(self) -> dict[str, Any]:
        return self.trace.config

    @property
    def task(self) -> str:
        started = next((e for e in self.events if isinstance(e, ev.RunStarted)), None)
        if started is not None and started.task:
            return started.task
        scenario = SCENARIOS.get(self.config.get("scenario") or "")
        return scenario.task_text(self.config.get("lang", "en")) if scenario else ""

    @property
    def bound(self) -> int:
        return exports.bound_of(self.config, self.events)


# --- opening files --------------------------------------------------------------------------------

def open_file(data: bytes) -> list[tuple[str, trace.Trace]]:
    """Every run in a file: one trace, or each lane of a Compare export ({"lanes": [...]}) or a list
    of traces, each validated by trace.loads; raises TraceFormatError saying what is wrong."""
    if len(data) > trace.MAX_BYTES:
        return [("", _checked(trace.loads(data)))]  # raises the size message
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError):
        return [("", _checked(trace.loads(data)))]  # raises "not a JSON file" or "nested too deeply"
    if otlp.is_otlp(raw):  # OpenTelemetry spans (our export or another tool's): one run per trace id
        return [(name, _checked(t)) for name, t in otlp.from_request(raw)]
    items = exports.lane_items(raw)
    if items is None:
        return [("", _checked(trace.loads(data)))]
    out = []
    for i, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) and isinstance(item.get("name"), str) else ""
        try:
            out.append((name or f"Lane {i + 1}", _checked(trace.loads(json.dumps(item)))))
        except TraceFormatError as exc:
            raise TraceFormatError(f"lane {i + 1}: {exc}") from None
    return out


def _checked(loaded: trace.Trace) -> trace.Trace:
    """A trace whose config a run could have had (the renderer and Fork read it)."""
    try:
        RunConfig.from_dict(loaded.config)
    except (AgentError, TypeError, ValueError) as exc:
        raise TraceFormatError(f"the run configuration in it is not valid: {exc}") from None
    return loaded


# --- choosing a trace -----------------------------------------------------------------------------

def example_options(lang: str) -> list[str]:
    """"scenario.lang" of every bundled trace, the sidebar's language first."""
    found = [f"{sid}.{code}" for sid, code, _path in examples.available()]
    return sorted(found, key=lambda o: o.rsplit(".", 1)[1] != lang)


def example_label(option: str) -> str:
    sid, code = option.rsplit(".", 1)
    return f"{SCENARIOS[sid].title.get(code, sid)} · {LANGS.get(code, code)}"


def pick_trace(lang: str) -> Loaded | None:
    """Where the trace comes from: a bundled example or a file. Shows why a file cannot be opened."""
    state = st.session_state
    source = st.segmented_control("Open", ["example", "upload"], key=K_SOURCE, required=True, default="example",
                                  format_func={"example": "A bundled example", "upload": "A trace file"}.get,
                                  persist_state="session")
    if source == "example":
        options = example_options(lang)
        if not options:
            st.warning("No bundled example traces were found; upload a trace file instead.")
            return None
        if state.get(K_EXAMPLE) not in options:
            state[K_EXAMPLE] = next((o for o in options if o == f"{FIRST_EXAMPLE}.{lang}"), options[0])
        choice = st.selectbox("Example run", options, key=K_EXAMPLE, format_func=example_label,
                              persist_state="session", help="Recorded on the offline model, one per scenario "
                              "and language.")
        sid, code = choice.rsplit(".", 1)
        return Loaded(f"example:{choice}", example_label(choice), examples.load(sid, code))

    st.file_uploader("Trace file", type=["json"], key=K_UPLOAD, on_change=_uploaded, help="A trace downloaded "
                     "from the Playground, a Compare export (then pick a lane), or OTLP/JSON spans from "
                     "OpenTelemetry. Up to 5 MB. · 运行记录、对比导出，或 OpenTelemetry 的 OTLP/JSON 文件，最大 5 MB。")
    opened = state.get(K_FILE)
    if opened is None:
        st.caption("Download a trace from the Playground or Compare, then open it here.")
        return None
    file_id, file_name, parsed = opened
    st.caption(f":material/description: Opened: {text.inline(file_name, 80)}")
    if isinstance(parsed, str):
        st.error(f"**{text.inline(file_name, 80)} cannot be replayed:** {text.escape(parsed)}.",
                 icon=":material/error:")
        return None
    index = 0
    if len(parsed) > 1:
        if state.get(K_LANE) not in range(len(parsed)):
            state[K_LANE] = 0
        index = st.selectbox("Lane", range(len(parsed)), key=K_LANE, format_func=lambda i: parsed[i][0],
                             persist_state="session", help="This file holds several runs (a Compare export).")
    name, chosen = parsed[index]
    if isinstance(chosen, otlp.ImportedTrace):
        _import_note(chosen, lang)
    return Loaded(f"file:{file_id}:{index}", name or file_name, chosen)


#: What an OTLP/JSON import mapped and what it did not (issue 16), en / zh.
IMPORT_WORDS = {
    "en": {"mapped": ":material/conversion_path: Opened from OTLP/JSON: {n} span(s). Model calls, tool calls and "
                     "this app's verdicts, plans and drafts are drawn as usual.",
           "unmapped": "{m} span(s) or span event(s) have no counterpart here and are not drawn",
           "pattern": "The spans name no pattern of this app, so the run is drawn as a tool loop (ReAct)."},
    "zh": {"mapped": ":material/conversion_path: 来自 OTLP/JSON：{n} 个 span。模型调用、工具调用以及本应用的"
                     "裁决、计划和草稿照常显示。",
           "unmapped": "{m} 个 span 或 span 事件在这里没有对应项，未显示",
           "pattern": "这些 span 没有指明本应用的模式，因此按工具循环（ReAct）显示。"},
}


def _import_note(imported: otlp.ImportedTrace, lang: str) -> None:
    """Say the run came from OpenTelemetry spans, and list every span that did not map."""
    words = IMPORT_WORDS["zh" if lang == "zh" else "en"]
    st.caption(words["mapped"].format(n=imported.span_count))
    if not any(isinstance(e, ev.RunStarted) and e.pattern in ac.PATTERNS for e in imported.events):
        st.caption(words["pattern"])
    if imported.unmapped:
        with st.expander(words["unmapped"].format(m=len(imported.unmapped)), icon=":material/visibility_off:"):
            st.markdown("\n".join(f"- {text.inline(item, 160)}" for item in imported.unmapped))


def _uploaded() -> None:
    """The uploader's callback: read a new file once, before the page draws, and keep what it holds
    (or why it cannot be replayed) until another file replaces it or the file is removed."""
    state = st.session_state
    upload = state.get(K_UPLOAD)
    if upload is None:
        state.pop(K_FILE, None)
        return
    try:
        parsed: list[tuple[str, trace.Trace]] | str = open_file(upload.getvalue())
    except TraceFormatError as exc:
        parsed = str(exc)
    state[K_FILE] = (upload.file_id, upload.name, parsed)
    state[K_LANE] = 0


def trace_card(loaded: Loaded) -> None:
    """What the trace is: scenario, pattern, language, how it ended, its size and its models."""
    config, events = loaded.config, loaded.events
    finished = next((e for e in reversed(events) if isinstance(e, ev.RunFinished)), None)
    calls = sum(1 for e in events if isinstance(e, ev.LlmCall))
    duration = max((e.t for e in events), default=0.0)
    scenario = SCENARIOS.get(config.get("scenario") or "")
    lang = config.get("lang", "en")
    with st.container(border=True, key=f"{P}_card"):
        st.markdown(f"**{text.inline(scenario.title.get(lang, scenario.id) if scenario else loaded.name, 120)}**")
        row = st.container(horizontal=True, gap="small")
        row.badge(VARIANTS[setup_state.variant_of(config)].label, color="blue", icon=":material/hub:")
        row.badge(LANGS.get(lang, text.badge(str(lang))), color="gray", icon=":material/translate:")
        if finished is not None:
            label, color, _line = ENDINGS.get(finished.reason, (text.badge(finished.reason), "gray", ""))
            row.badge(f"Ended · {label}", color=color, icon=":material/flag:")
        if loaded.task:
            st.caption(f"**Task** · {text.inline(loaded.task, 300)}")
        models = config.get("models") if isinstance(config.get("models"), dict) else {}
        st.caption(f"{len(events)} events · {calls} LLM call{'s' if calls != 1 else ''} · {duration:.1f} s"
                   + (" · " + ", ".join(f"{text.inline(str(r))}: {text.code_span(str(m))}"
                                        for r, m in models.items()) if models else ""))


# --- playing --------------------------------------------------------------------------------------

def _play(n: int) -> None:
    state = st.session_state
    position = min(int(state.get(K_POS, n)), n)
    state[K_PLAYED] = 0 if position >= n else position  # from the end, Play starts over
    state[K_PLAYING] = True


def _pause() -> None:
    state = st.session_state
    state[K_PLAYING] = False
    state[K_POS] = state.get(K_PLAYED, 0)


def _stop() -> None:
    state = st.session_state
    state[K_PLAYING] = False
    state[K_POS] = 0


def _step(delta: int, n: int) -> None:
    state = st.session_state
    state[K_POS] = min(max(int(state.get(K_POS, n)) + delta, 0), n)


def player(loaded: Loaded) -> None:
    """The controls and the run drawn up to the slider's position, or played from it."""
    state = st.session_state
    events = loaded.events
    n = len(events)
    if state.get(K_LOADED) != loaded.ident:  # another trace: show it whole, not playing
        state[K_LOADED], state[K_PLAYING], state[K_POS] = loaded.ident, False, n
        state.pop(K_SEEK, None)
        state.pop(f"{VIEW}-page", None)  # a long run opens on its latest page
    if K_SEEK in state:
        state[K_POS] = min(int(state.pop(K_SEEK)), n)
    if n == 0:
        st.info("This trace holds no events.", icon=":material/info:")
        return
    state.setdefault(K_SPEED, 1)
    playing = bool(state.get(K_PLAYING))

    with fresh_area(playing):
        _controls(n, playing)
        if playing:
            _play_from(loaded, int(state.get(K_PLAYED, 0)), int(state[K_SPEED]))
        else:
            position = _slider(n)
            st.caption(_where(events, position))
            if position == 0:
                st.info("Press **Play**, or move the slider, to watch the run.", icon=":material/play_circle:")
            draw_run(loaded.config, events[:position], bound=loaded.bound, key=VIEW, task=loaded.task,
                     call_actions=_fork_actions(loaded))


def _fork_actions(loaded: Loaded):
    """"Fork from here" on every call, when the trace carries call records (format 2)."""
    if not fork_view.forkable(loaded.events):
        fork_view.note_unforkable(loaded.events, current_lang())
        return None
    return fork_view.call_actions(events=[e.to_dict() for e in loaded.events], run_id=loaded.trace.run_id,
                                  config=dict(loaded.config), task=loaded.task, lang=current_lang(), key=VIEW)


def _controls(n: int, playing: bool) -> None:
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    if playing:
        row.button("Pause", key=f"{P}_pause", icon=":material/pause:", on_click=_pause, type="primary")
    else:
        row.button("Play", key=f"{P}_play", icon=":material/play_arrow:", on_click=_play, args=(n,), type="primary")
    row.button("Stop", key=f"{P}_stop", icon=":material/stop:", on_click=_stop, disabled=not playing,
               help="Stop playing and go back to the start.")
    row.segmented_control("Speed", SPEEDS, key=K_SPEED, format_func=lambda s: f"{s}×", required=True,
                          label_visibility="collapsed", persist_state="session",
                          help="Played on the run's own clock, 1×, 2× or 4× as fast.")


def _slider(n: int) -> int:
    back, slider, forward = st.columns([1, 14, 1], vertical_alignment="bottom")
    back.button("", key=f"{P}_back", icon=":material/chevron_left:", on_click=_step, args=(-1, n),
                help="One event back", disabled=st.session_state.get(K_POS, n) <= 0)
    position = slider.slider("Events shown", 0, n, key=K_POS, persist_state="session",
                             help="Move through the run one event at a time.")
    forward.button("", key=f"{P}_forward", icon=":material/chevron_right:", on_click=_step, args=(1, n),
                   help="One event forward", disabled=position >= n)
    return position


def _play_from(loaded: Loaded, start: int, speed: int) -> None:
    """Draw the first `start` events at once, then the rest as they happened, `speed` times as fast."""
    state = st.session_state
    events = loaded.events
    n = len(events)
    progress = st.progress(start / n, text=_where(events, start))
    view = RunView(loaded.config, bound=loaded.bound, key=VIEW, task=loaded.task)
    # from the middle of a long run: only the last few blocks of what is already played are drawn
    # (each live block costs Streamlit a pause; the slider's pages hold the rest)
    view.hide_before = len(final_looks(loaded.config, events[:start])) - PLAY_CONTEXT_BLOCKS
    view.add_all(events[:start])
    previous = events[start - 1].t if start else 0.0
    due = time.perf_counter()
    for i in range(start, n):
        gap = events[i].t - previous
        due += (min(gap, MAX_GAP_S) if math.isfinite(gap) and gap > 0 else 0.0) / speed
        previous = max(previous, events[i].t) if math.isfinite(events[i].t) else previous
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        view.add(events[i])  # a Pause or Stop click cuts this script run here
        state[K_PLAYED] = i + 1
        progress.progress((i + 1) / n, text=_where(events, i + 1))
    view.close()
    state[K_PLAYING] = False
    state[K_SEEK] = n
    st.rerun()  # back to the slider, at the end


# --- what an event is, in a few words -------------------------------------------------------------

def describe(e: ev.Event) -> str:
    """One event in a few words, for the position caption."""
    if isinstance(e, ev.LlmCall):
        return f"LLM call · {e.role} · {e.prompt_tokens + e.completion_tokens:,} tokens"
    if isinstance(e, ev.Token):
        return f"{e.role} writing"
    if isinstance(e, ev.ToolCallEvent):
        return f"tool call · {e.name}"
    if isinstance(e, ev.ToolResult):
        return f"tool result · {e.name}" + (" (error)" if e.is_error else "")
    if isinstance(e, ev.PlanEvent):
        return f"{'re-plan' if e.revision else 'plan'} · {len(e.steps)} steps"
    if isinstance(e, ev.StepStarted):
        return f"step {e.step_id} started"
    if isinstance(e, ev.StepFinished):
        return f"step {e.step_id} {e.status}"
    if isinstance(e, ev.VerdictEvent):
        return f"{e.role} · {e.verdict}"
    if isinstance(e, ev.Draft):
        return f"draft {e.version}"
    if isinstance(e, ev.LimitReached):
        return f"limit reached · {e.limit}"
    if isinstance(e, ev.RunFinished):
        return f"run finished · {ENDINGS.get(e.reason, (e.reason,))[0]}"
    return e.kind.replace("_", " ")


def _where(events: list[ev.Event], position: int) -> str:
    if position <= 0:
        return f"Before the first of {len(events)} events"
    e = events[position - 1]
    return f"Event {position} of {len(events)} · {e.t:.1f} s · {text.inline(describe(e), 80)}"
