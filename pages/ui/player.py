"""Replay's player: open a trace — a bundled example, a downloaded trace, or one lane of a Compare
export — then step through it with a slider or play it at 1×, 2× or 4× on the run's own clock. It
is drawn by the one renderer, as a live run is. No model is ever called.

State under `rp_*`: the source, the parsed upload (kept per file id), the slider `rp_pos`,
`rp_playing`, `rp_played` (how far the play loop got) and `rp_seek`, a position for the slider to
take on the next script run (a widget's value cannot change once the widget is drawn).
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import streamlit as st

import agent_core as ac
from agent_core import event_views, examples, exports, trace
from agent_core import events as ev
from agent_core.errors import AgentError, TraceFormatError
from agent_core.otel import importing as otlp
from agent_core.patterns.registry import config_from_dict
from agent_core.scenarios import SCENARIOS

from . import call_views, follow, fork_view, i18n, setup_state, text, trace_problems, turns
from .blocks import final_looks
from .catalogue import VARIANTS
from .controls import short_title
from .i18n import t
from .render import RunView, draw_run, ending, fresh_area
from .render import words as run_words
from .sidebar import LANGS, current_lang

P = "rp"
VIEW = f"{P}_view"
#: the keyed container of the run view and the head above it
AREA = f"{P}_area"
K_SOURCE, K_EXAMPLE, K_UPLOAD, K_FILE, K_LANE = (f"{P}_{n}" for n in ("source", "example", "upload", "file", "lane"))
K_POS, K_SEEK, K_PLAYING, K_PLAYED, K_SPEED, K_LOADED = (
    f"{P}_{n}" for n in ("pos", "seek", "playing", "played", "speed", "loaded")
)
SPEEDS = (1, 2, 4)
#: where a trace comes from (labels: the catalogue's [player.source])
SOURCES = ("example", "upload")
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
        return [("", _checked(trace.from_json(raw)))]  # parsed once: a 5 MB file took a tenth of a second a parse
    if trace._depth(raw, trace.MAX_DEPTH) > trace.MAX_DEPTH:  # before a lane is written out again
        raise TraceFormatError(f"the JSON is nested more than {trace.MAX_DEPTH} levels deep", "too_deep")
    out = []
    for i, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) and isinstance(item.get("name"), str) else ""
        try:
            out.append((name, _checked(trace.loads(json.dumps(item)))))  # unnamed: "Lane n" when shown
        except TraceFormatError as exc:
            raise TraceFormatError(f"lane {i + 1}: {exc}", exc.reason) from None
    return out


def _checked(loaded: trace.Trace) -> trace.Trace:
    """A trace whose config a run could have had (the renderer and Fork read it)."""
    try:
        config_from_dict(loaded.config)
    except (AgentError, TypeError, ValueError) as exc:
        raise TraceFormatError(f"the run configuration in it is not valid: {exc}", "config") from None
    return loaded


# --- choosing a trace -----------------------------------------------------------------------------


def example_options(lang: str) -> list[str]:
    """ "scenario.lang" of every bundled trace, the sidebar's language first."""
    found = [f"{sid}.{code}" for sid, code, _path in examples.available()]
    return sorted(found, key=lambda o: o.rsplit(".", 1)[1] != lang)


def example_label(option: str) -> str:
    """A bundled trace as the picker shows it: its scenario's title in the page's language, and the
    language the run was recorded in."""
    sid, code = option.rsplit(".", 1)
    if sid not in SCENARIOS:
        return option
    # the short title: the full one with its pattern note is cut off in the narrow column at 1280×720
    return f"{short_title(sid, current_lang())} · {LANGS.get(code, code)}"


def pick_trace(lang: str) -> Loaded | None:
    """Where the trace comes from: a bundled example or a file. Shows why a file cannot be opened."""
    state = st.session_state
    source = st.segmented_control(
        t("player.open"),
        list(SOURCES),
        key=K_SOURCE,
        required=True,
        default="example",
        format_func=lambda s: t(f"player.source.{s}"),
        persist_state="session",
    )
    if source == "example":
        options = example_options(lang)
        if not options:
            st.warning(t("player.no_examples"))
            return None
        if state.get(K_EXAMPLE) not in options:
            state[K_EXAMPLE] = next((o for o in options if o == f"{FIRST_EXAMPLE}.{lang}"), options[0])
        choice = st.selectbox(
            t("player.example"),
            options,
            key=K_EXAMPLE,
            format_func=example_label,
            persist_state="session",
            help=t("player.example_help"),
        )
        sid, code = choice.rsplit(".", 1)
        return Loaded(f"example:{choice}", example_label(choice), examples.load(sid, code))

    # the uploader refuses a file bigger than the app reads before sending it
    st.file_uploader(
        t("player.file"),
        type=["json"],
        key=K_UPLOAD,
        on_change=_uploaded,
        help=t("player.file_help"),
        max_upload_size=trace.MAX_BYTES >> 20,
    )
    opened = state.get(K_FILE)
    if opened is None:
        st.caption(t("player.no_file"))
        return None
    file_id, file_name, parsed = opened
    st.caption(":material/description: " + t("player.opened", name=text.inline(file_name, 80)))
    if isinstance(parsed, TraceFormatError):
        st.error(
            t("player.cannot", name=text.inline(file_name, 80), reason=text.escape(trace_problems.say(parsed))),
            icon=":material/error:",
        )
        return None
    index = 0
    if len(parsed) > 1:
        if state.get(K_LANE) not in range(len(parsed)):
            state[K_LANE] = 0
        index = st.selectbox(
            t("player.lane"),
            range(len(parsed)),
            key=K_LANE,
            persist_state="session",
            format_func=lambda i: parsed[i][0] or t("player.lane_n", n=i + 1),
            help=t("player.lane_help"),
        )
    name, chosen = parsed[index]
    name = name or (t("player.lane_n", n=index + 1) if len(parsed) > 1 else "")
    if isinstance(chosen, otlp.ImportedTrace):
        _import_note(chosen, lang)
    return Loaded(f"file:{file_id}:{index}", name or file_name, chosen)


def _import_note(imported: otlp.ImportedTrace, lang: str) -> None:
    """Say the run came from OpenTelemetry spans, and list every span that did not map."""
    st.caption(":material/conversion_path: " + t("player.import.mapped", lang, n=imported.span_count))
    if not any(isinstance(e, ev.RunStarted) and e.pattern in ac.PATTERNS for e in imported.events):
        st.caption(t("player.import.pattern", lang))
    if imported.unmapped:
        with st.expander(t("player.import.unmapped", lang, m=len(imported.unmapped)), icon=":material/visibility_off:"):
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
        parsed = exc  # said in the reader's language when drawn (pages.ui.trace_problems)
    state[K_FILE] = (upload.file_id, upload.name, parsed)
    state[K_LANE] = 0


def trace_card(loaded: Loaded) -> None:
    """What the trace is: scenario, pattern, language, how it ended, its size and its models."""
    config, events = loaded.config, loaded.events
    finished = next((e for e in reversed(events) if isinstance(e, ev.RunFinished)), None)
    calls = sum(1 for e in events if isinstance(e, ev.LlmCall))
    duration = max((e.t for e in events), default=0.0)
    scenario = SCENARIOS.get(config.get("scenario") or "")
    lang, page_lang = config.get("lang", "en"), current_lang()  # the run's language, and the page's
    with st.container(border=True, key=f"{P}_card"):
        title = scenario.title(page_lang) if scenario else loaded.name
        st.markdown(f"**{text.inline(title, 120)}**")
        row = st.container(horizontal=True, gap="small")
        row.badge(VARIANTS[setup_state.variant_of(config)].label_in(page_lang), color="blue", icon=":material/hub:")
        row.badge(LANGS.get(lang, text.badge(str(lang))), color="gray", icon=":material/translate:")
        if finished is not None:
            label, color, _line = ending(finished.reason, page_lang)
            row.badge(run_words(page_lang)["ended"].format(label=label), color=color, icon=":material/flag:")
        if loaded.task:
            st.caption(run_words(page_lang)["task"].format(task=text.inline(loaded.task, 300)))
        models = config.get("models") if isinstance(config.get("models"), dict) else {}
        st.caption(
            t(
                "player.size_one" if calls == 1 else "player.size",
                page_lang,
                events=len(events),
                calls=calls,
                seconds=f"{duration:.1f}",
            )
            + (
                " · "
                + ", ".join(
                    f"{call_views.role_name(str(r), page_lang)}: {text.code_span(str(m))}" for r, m in models.items()
                )
                if models
                else ""
            )
        )


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
        st.info(t("player.empty"), icon=":material/info:")
        return
    state.setdefault(K_SPEED, 1)
    playing = bool(state.get(K_PLAYING))

    with view_area(playing) as head:
        with head:
            _controls(n, playing)
        if playing:
            _play_from(loaded, int(state.get(K_PLAYED, 0)), int(state[K_SPEED]), head)
        else:
            with head:
                position = _slider(n)
                st.caption(_where(events, position))
                if position == 0:
                    st.info(t("player.press_play"), icon=":material/play_circle:")
            draw_run(
                loaded.config,
                events[:position],
                bound=loaded.bound,
                key=VIEW,
                task=loaded.task,
                call_actions=_fork_actions(loaded),
            )


@contextlib.contextmanager
def view_area(live: bool) -> Iterator[Any]:
    """The place of Replay's run view, with a head container above it: the player's controls, or a
    fork's banner. A fork of the trace draws its run here too, so it stands where the trace's blocks
    were, as the first thing after the head, and the browser updates them instead of building them
    again (`replay_fork`)."""
    with fresh_area(live), st.container(key=AREA):
        yield st.container()


def _fork_actions(loaded: Loaded):
    """ "Fork from here" on every call, when the trace carries call records (format 2)."""
    if not fork_view.forkable(loaded.events):
        fork_view.note_unforkable(loaded.events, current_lang())
        return None
    return fork_view.call_actions(
        events=loaded.events,
        run_id=loaded.trace.run_id,
        config=dict(loaded.config),
        task=loaded.task,
        lang=current_lang(),
        key=VIEW,
        home=P,
    )


def _controls(n: int, playing: bool) -> None:
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    if playing:
        row.button(t("player.pause"), key=f"{P}_pause", icon=":material/pause:", on_click=_pause, type="primary")
    else:
        row.button(
            t("player.play"), key=f"{P}_play", icon=":material/play_arrow:", on_click=_play, args=(n,), type="primary"
        )
    row.button(
        t("player.stop"),
        key=f"{P}_stop",
        icon=":material/stop:",
        on_click=_stop,
        disabled=not playing,
        help=t("player.stop_help"),
    )
    row.segmented_control(
        t("player.speed"),
        SPEEDS,
        key=K_SPEED,
        format_func=lambda s: f"{s}×",
        required=True,
        label_visibility="collapsed",
        persist_state="session",
        help=t("player.speed_help"),
    )


def _slider(n: int) -> int:
    back, slider, forward = st.columns([1, 14, 1], vertical_alignment="bottom")
    back.button(
        "",
        key=f"{P}_back",
        icon=":material/chevron_left:",
        on_click=_step,
        args=(-1, n),
        help=t("player.back"),
        disabled=st.session_state.get(K_POS, n) <= 0,
    )
    position = slider.slider(t("player.shown"), 0, n, key=K_POS, persist_state="session", help=t("player.shown_help"))
    forward.button(
        "",
        key=f"{P}_forward",
        icon=":material/chevron_right:",
        on_click=_step,
        args=(1, n),
        help=t("player.forward"),
        disabled=position >= n,
    )
    return position


def _play_from(loaded: Loaded, start: int, speed: int, head: Any) -> None:
    """Draw the first `start` events at once, then the rest as they happened, `speed` times as fast."""
    state = st.session_state
    events = loaded.events
    n = len(events)
    progress = head.progress(start / n, text=_where(events, start))
    with head:
        follow.mark(f"{VIEW}-flow", live=True)  # the page follows the newest step while it plays
    view = RunView(loaded.config, bound=loaded.bound, key=VIEW, task=loaded.task)
    # from the middle of a long run: only the last few blocks of what is already played are drawn
    # (each live block costs Streamlit a pause; the slider's pages hold the rest)
    view.hide_before = len(final_looks(loaded.config, events[:start])) - PLAY_CONTEXT_BLOCKS
    view.add_all(events[:start])
    previous = events[start - 1].t if start else 0.0
    turns.done()  # the page is drawn: playing takes no turn
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


def describe(e: ev.Event, lang: str | None = None) -> str:
    """One event in a few words, for the position caption (raw text: the caller escapes it)."""
    w = i18n.words("player", lang)
    role = i18n.role_labels(lang).get(getattr(e, "role", ""), getattr(e, "role", ""))
    if isinstance(e, ev.LlmCall):
        return w["event.llm_call"].format(role=role, tokens=f"{e.prompt_tokens + e.completion_tokens:,}")
    if isinstance(e, ev.Token):
        return w["event.token"].format(role=role)
    if isinstance(e, ev.ToolCallEvent):
        return w["event.tool_call"].format(name=e.name)
    if isinstance(e, ev.ToolResult):
        return w["event.tool_error" if e.is_error else "event.tool_result"].format(name=e.name)
    if isinstance(e, ev.PlanEvent):
        return w["event.replan" if e.revision else "event.plan"].format(n=len(e.steps))
    if isinstance(e, ev.StepStarted):
        return w["event.step_started"].format(step=e.step_id)
    if isinstance(e, ev.StepFinished):
        status = run_words(lang).get(f"status.{e.status}", e.status)
        return w["event.step_finished"].format(step=e.step_id, status=status)
    if isinstance(e, ev.VerdictEvent):
        return f"{role} · {e.verdict}"
    if isinstance(e, ev.Draft):
        return w["event.draft"].format(version=e.version)
    if isinstance(e, ev.LimitReached):
        return w["event.limit"].format(limit=e.limit)
    if isinstance(e, ev.RunFinished):
        return w["event.finished"].format(how=ending(e.reason, lang)[0])
    own = event_views.line(e, lang if lang in i18n.LANGS else i18n.lang())  # a kind a pattern added
    return own or w.get(f"kind.{e.kind}") or e.kind.replace("_", " ")


def _where(events: list[ev.Event], position: int) -> str:
    if position <= 0:
        return t("player.before", n=len(events))
    e = events[position - 1]
    return t("player.where", at=position, n=len(events), seconds=f"{e.t:.1f}", what=text.inline(describe(e), 80))
