"""Submissions: a participant sends the room their prompt variant (the Playground's setup as it stands)
or a fork they ran; the trainer lists them, opens up to three beside the default prompts in Compare
or scores them over a task set in Eval, and reads the room's leaderboard once either has run them.

Every submitted text is untrusted: the room bounds a payload's size and the count (agent_core.rooms),
cuts the name and drops its control characters; here a payload is parsed into a RunConfig at the
border (one that does not parse is listed, never opened) and every text is drawn escaped
(pages/ui/text.py) or in a table cell, which shows text as text.

Compare runs every lane on one task (its shared task box), so the lanes run the task of the default
lane — the room's current run when there is one, else the first chosen submission's — and a chosen
submission whose task differs is named. Eval runs the same picks, and the default prompts, as named
entries (pages/ui/eval_entries.py) over a task set of their kind instead of one task: its leaderboard
ranks them by pass rate with the 95 % interval, says where this n cannot tell one from the top one,
and puts what Compare measured for the same submission beside it.
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from agent_core import metrics
from agent_core.config import RunConfig
from agent_core.diffing import diff_stats
from agent_core.errors import AgentError
from agent_core.evaluation import rows as result_rows
from agent_core.offline import placeholder
from agent_core.patterns.registry import check_overrides, config_from_dict, specs_for
from agent_core.scenarios import SCENARIOS

from . import eval_entries, handoff, runs, setup_state, sidebar, text
from . import lane_state as ls
from .catalogue import VARIANTS
from .i18n import t
from .render import ENDING_COLORS, ending

P = "room_sub"
PLAYGROUND = "pg"
COMPARE_PAGE = "pages/compare.py"
EVAL_PAGE = "pages/eval.py"
#: what a note may hold (the room bounds the whole payload too)
NOTE_CHARS = 1_000
#: lanes beside the default one
PICKS = ls.MAX_LANES - 1
#: the lanes this session opened in Compare from the room: [{"id", "name", "prompts"}], the default first
K_OPENED = f"{P}_opened"
_GO = f"{P}_go_compare"
_GO_EVAL = f"{P}_go_eval"
#: the entries this session handed to Eval from the room (eval_entries' own record of them)
K_EVAL_OPENED = f"{P}_eval_opened"
K_EVAL_SAID = f"{P}_eval_said"  # why the last Evaluate handed nothing over, said once
K_NAME, K_NOTE, K_SOURCE, K_PICKED = f"{P}_name", f"{P}_note", f"{P}_source", f"{P}_picked"
K_SENT = f"{P}_sent"  # ("ok" | "error", Text | name): the outcome of the last Submit, said once


# --- reading a submission -------------------------------------------------------------------------


def clean(value: object, limit: int) -> str:
    """Untrusted text for display: control and format characters out (a right-to-left override, an
    escape sequence), line breaks kept, cut at `limit` characters."""
    raw = value if isinstance(value, str) else ""
    return "".join(ch for ch in raw[: limit * 2] if ch in "\n\t" or not unicodedata.category(ch).startswith("C"))[
        :limit
    ]


@dataclass(frozen=True)
class Entry:
    """One submission as the trainer's panel reads it: its config parsed (None, with `problem`, when
    it does not parse), its texts cleaned."""

    id: str
    name: str
    task: str
    note: str
    at: float
    config: RunConfig | None
    problem: str = ""


def read_entry(submission: Any) -> Entry:
    """A room Submission parsed at the border: its config into a RunConfig whose prompts check."""
    payload = submission.payload if isinstance(submission.payload, Mapping) else {}
    name = clean(submission.name, 40).replace("\n", " ") or "—"
    task, note = clean(payload.get("task"), 4_000), clean(payload.get("note"), NOTE_CHARS)
    try:
        config = config_from_dict(payload.get("config") if isinstance(payload.get("config"), Mapping) else {})
        check_overrides(config.pattern, config.lang, config.prompts)
    except (AgentError, TypeError, ValueError) as exc:
        return Entry(submission.id, name, task, note, float(submission.at), None, clean(str(exc), 200))
    return Entry(submission.id, name, task, note, float(submission.at), config)


def differences(config: RunConfig, lang: str) -> str:
    """What a config's prompts change from the pattern's defaults, e.g. "critic +2 −1 lines"."""
    specs = specs_for(config.pattern)
    parts = []
    for key, body in config.prompts.items():
        spec = specs.get(key)
        if spec is None or body == spec.default(config.lang):
            continue
        stats = diff_stats(spec.default(config.lang), body)
        parts.append(t("room_seat.prompt_change", lang, key=key, added=stats.added_lines, removed=stats.removed_lines))
    return " · ".join(parts) or t("room_seat.no_change", lang)


def _ago(at: float, now: float, lang: str) -> str:
    minutes = max(0, int((now - at) // 60))
    return t("room_seat.just_now", lang) if minutes == 0 else t("room_seat.minutes_ago", lang, m=minutes)


def _pattern_label(config: RunConfig | None, lang: str) -> str:
    if config is None:
        return "—"
    variant = VARIANTS.get(setup_state.variant_of(config.to_dict()))
    return variant.label_in(lang) if variant is not None else config.pattern


# --- the participant's side -----------------------------------------------------------------------


def _sources(lang: str) -> dict[str, tuple[str, str, dict[str, Any]] | None]:
    """What this seat can send: its Playground's setup, and its latest fork (when it ran one), each
    as (label, task, config dict), or None when it is not ready."""
    setup_state.init_state(PLAYGROUND, lang)  # a seat that never opened the Playground sends its defaults
    setup = setup_state.read_setup(PLAYGROUND, lang, sidebar.temperature())
    out: dict[str, tuple[str, str, dict[str, Any]] | None] = {
        "variant": None
        if setup.config is None or setup.problems
        else (t("room_seat.source_variant", lang), setup.task, setup.config.to_dict())
    }
    fork = next((r for r in reversed(runs.history(PLAYGROUND)) if r.fork and not r.active), None)
    if fork is not None:
        out["fork"] = (
            t("room_seat.source_fork", lang, run=fork.run_id, k=fork.fork["at"]),
            fork.task,
            dict(fork.config),
        )
    return out


def submit_form(code: str, participant: str, lang: str) -> None:
    """A seat's "Submit to the room": a name, a note, and what to send (the Playground's setup, or
    the latest fork this seat ran)."""
    state = st.session_state
    state.setdefault(K_NAME, "")
    state.setdefault(K_NOTE, "")
    sources = {key: value for key, value in _sources(lang).items() if value is not None}
    with st.container(border=True, key=f"{P}_form"):
        st.markdown(f"#### :material/upload: {t('room_seat.submit_head', lang)}")
        _said(lang)
        if not sources:
            st.caption(t("room_seat.nothing_to_send", lang))
            return
        if st.session_state.get(K_SOURCE) not in sources:
            st.session_state[K_SOURCE] = next(iter(sources))
        st.radio(
            t("room_seat.source", lang),
            list(sources),
            key=K_SOURCE,
            format_func=lambda key: sources[key][0],
            horizontal=True,
        )
        _label, task, config = sources[st.session_state[K_SOURCE]]
        parsed = config_from_dict(config)
        st.caption(
            t(
                "room_seat.sending",
                lang,
                pattern=text.inline(_pattern_label(parsed, lang), 60),
                changes=text.inline(differences(parsed, lang), 200),
                task=text.inline(task, 100),
            )
        )
        st.text_input(t("room_seat.name", lang), key=K_NAME, max_chars=40, placeholder=t("room_seat.name_hint", lang))
        st.text_area(t("room_seat.note", lang), key=K_NOTE, max_chars=NOTE_CHARS, height=80)
        st.button(
            t("room_seat.submit", lang),
            key=f"{P}_submit",
            icon=":material/send:",
            on_click=send,
            args=(code, participant, task, config),
        )


def send(code: str, participant: str, task: str, config: Mapping[str, Any]) -> None:
    """Submit's callback: the payload to the room, which bounds it; the outcome is said on the rerun."""
    from agent_core.rooms import RoomError, rooms

    state = st.session_state
    payload = {"config": dict(config), "task": task, "note": str(state.get(K_NOTE) or "")}
    try:
        sent = rooms().submit(code, participant, str(state.get(K_NAME) or ""), payload)
    except RoomError as exc:
        state[K_SENT] = ("error", exc.message)
        return
    state[K_SENT] = ("ok", sent.name)
    state[K_NOTE] = ""


def _said(lang: str) -> None:
    said = st.session_state.pop(K_SENT, None)
    if not said:
        return
    kind, what = said
    if kind == "error":
        st.error(what(lang), icon=":material/block:")
    else:
        st.success(t("room_seat.sent", lang, name=text.inline(what or "—", 40)), icon=":material/check:")


# --- the trainer's side ---------------------------------------------------------------------------


def trainer_panel(code: str, secret: str, lang: str, *, clock: Callable[[], float] = time.time) -> None:
    """The room's submissions: a table, a pick of up to three to open beside the default prompts in
    Compare, and the leaderboard of the lanes Compare ran from here."""
    from agent_core.rooms import RoomError, rooms

    if st.session_state.pop(_GO, False):
        st.switch_page(COMPARE_PAGE)
    if st.session_state.pop(_GO_EVAL, False):
        st.switch_page(EVAL_PAGE)
    with st.container(border=True, key=f"{P}_panel"):
        st.markdown(f"#### :material/inbox: {t('room_seat.panel_head', lang)}")
        try:
            entries = [read_entry(s) for s in rooms().submissions(code, secret)]
        except RoomError as exc:
            st.error(exc.message(lang), icon=":material/block:")
            return
        leaderboard(lang)
        eval_leaderboard(lang)
        if not entries:
            st.caption(t("room_seat.none_yet", lang))
            return
        now = clock()
        w = {c: t(f"room_seat.col_{c}", lang) for c in ("name", "pattern", "differs", "note", "when")}
        rows = [
            {
                w["name"]: e.name,
                w["pattern"]: _pattern_label(e.config, lang),
                w["differs"]: differences(e.config, lang) if e.config else t("room_seat.broken", lang, why=e.problem),
                w["note"]: text.flat(e.note, 120),
                w["when"]: _ago(e.at, now, lang),
            }
            for e in reversed(entries)  # the newest first
        ]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key=f"{P}_table")
        runnable = {e.id: e for e in entries if e.config is not None}
        picked = [i for i in st.session_state.get(K_PICKED) or [] if i in runnable]
        st.session_state[K_PICKED] = picked
        st.multiselect(
            t("room_seat.pick", lang, n=PICKS),
            list(runnable),
            key=K_PICKED,
            max_selections=PICKS,
            format_func=lambda i: f"{runnable[i].name} · {_pattern_label(runnable[i].config, lang)}",
            placeholder=t("room_seat.pick_hint", lang),
        )
        chosen = [runnable[i] for i in st.session_state[K_PICKED]]
        if chosen:
            _base, task = _default(code, chosen)
            for e in chosen:
                if e.task.strip() != task.strip():
                    st.caption(
                        t("room_seat.other_task", lang, name=text.inline(e.name, 40), task=text.inline(task, 80))
                    )
        st.button(
            t("room_seat.open_compare", lang, n=len(chosen)),
            key=f"{P}_open",
            icon=":material/view_week:",
            type="primary",
            on_click=open_picked,
            args=(code, secret, lang),
            disabled=not chosen or runs.any_active(),
        )
        said = st.session_state.pop(K_EVAL_SAID, None)
        if said:
            st.error(text.escape(said), icon=":material/error:")
        st.button(
            t("room_eval.open", lang, n=len(chosen)),
            key=f"{P}_eval",
            icon=":material/fact_check:",
            help=t("room_eval.open_help", lang),
            on_click=evaluate_picked,
            args=(code, secret, lang),
            disabled=not chosen or runs.any_active(),
        )


def open_picked(code: str, secret: str, lang: str) -> None:
    """The Open button's callback: the submissions picked at the moment of the click, read again from
    the room and parsed, into Compare beside the default prompts."""
    chosen = _picked(code, secret)
    if not chosen:
        return
    base, task = _default(code, chosen)
    open_in_compare(base, task, [(e.id, e.name, e.config.to_dict()) for e in chosen if e.config is not None], lang)


def evaluate_picked(code: str, secret: str, lang: str) -> None:
    """The Evaluate button's callback: the default prompts and the submissions picked at the moment of
    the click, read again from the room, to Eval as named entries; the page switches there on the rerun."""
    from agent_core.evaluation.entries import EntryError

    chosen = _picked(code, secret)
    if not chosen:
        return
    base, _task = _default(code, chosen)
    picks = [(None, t("room_seat.default_lane", lang), base)]
    picks += [(e.id, e.name, e.config.to_dict()) for e in chosen if e.config is not None]
    try:
        st.session_state[K_EVAL_OPENED] = eval_entries.hand_over(picks)
    except EntryError as exc:
        st.session_state[K_EVAL_SAID] = t("room_eval.bad", lang, why=exc.message(lang))
        return
    st.session_state[_GO_EVAL] = True


def _picked(code: str, secret: str) -> list[Entry]:
    """The submissions picked at the moment of a click, read again from the room and parsed (the ones
    that parse, up to PICKS); none when the room went (the panel says so on the rerun) or a run of this
    session's is going."""
    from agent_core.rooms import RoomError, rooms

    try:
        found = {e.id: e for e in map(read_entry, rooms().submissions(code, secret)) if e.config is not None}
    except RoomError:
        return []
    chosen = [found[i] for i in st.session_state.get(K_PICKED) or [] if i in found][:PICKS]
    return [] if runs.any_active() else chosen


def _default(code: str, chosen: Sequence[Entry]) -> tuple[dict[str, Any], str]:
    """The default lane's config (the room's current run, else the first chosen submission's, with
    the pattern's own prompts) and the task every lane runs."""
    from agent_core.rooms import rooms

    current = rooms().run(code)
    if isinstance(current, Mapping):
        try:
            config = config_from_dict(current.get("config") or {})
            return {**config.to_dict(), "prompts": {}}, str(current.get("task") or "")
        except (AgentError, TypeError, ValueError):
            pass
    first = chosen[0]
    assert first.config is not None
    return {**first.config.to_dict(), "prompts": {}}, first.task


def open_in_compare(
    default: Mapping[str, Any], task: str, picks: Sequence[tuple[str, str, Mapping[str, Any]]], lang: str
) -> None:
    """The button's callback: Compare's lanes set to the default prompts then each submission (its
    pattern, limits, switches and prompts), on one task; the page switches there on the rerun."""
    state = st.session_state
    ls.init_state(lang)  # Compare's keys exist before a first visit there
    scenario = default.get("scenario")
    if scenario in SCENARIOS and task.strip() == SCENARIOS[scenario].task_text(lang).strip():
        state[ls.K_SCENARIO] = scenario
    else:
        state[ls.K_SCENARIO] = setup_state.FREE
        state[ls.K_FREE_TASK] = task
        state[ls.K_TOOLS] = [name for name in default.get("tools", ()) if isinstance(name, str)]
    lanes = [(None, t("room_seat.default_lane", lang), default), *picks][: ls.MAX_LANES]
    state[ls.K_COUNT] = len(lanes)
    opened = []
    for i, (ident, name, config) in enumerate(lanes):
        p = ls.lane_prefix(i)
        state[setup_state.k(p, "variant")] = setup_state.variant_of(config)
        state[setup_state.k(p, "name")] = name
        state[setup_state.k(p, "model")] = ""
        ls.sync_lane(i, lang, force=True)
        handoff.apply_config(p, config, lang)
        opened.append({"id": ident, "name": name, "prompts": dict(config.get("prompts") or {})})
    state[K_OPENED] = opened
    state[_GO] = True


def leaderboard(lang: str) -> None:
    """The lanes Compare ran from this panel, ranked: passed first, then fewer calls, then fewer
    tokens. Shown once that comparison has ended, and only while Compare's lanes are still the ones
    opened from here (their prompts unchanged)."""
    rows = _compared()
    if not rows:
        return
    rows.sort(key=lambda row: (not row[2], row[1].llm_calls, row[1].total_tokens))
    w = {c: t(f"room_seat.board_{c}", lang) for c in ("rank", "name", "passed", "ended", "calls", "tokens")}
    table = [
        {
            w["rank"]: n,
            w["name"]: lane["name"],
            w["passed"]: passed,
            w["ended"]: ending(summary.end_reason, lang)[0] if summary.end_reason else "—",
            w["calls"]: summary.llm_calls,
            w["tokens"]: summary.total_tokens,
        }
        for n, (lane, summary, passed) in enumerate(rows, start=1)
    ]
    st.markdown(f"##### :material/leaderboard: {t('room_seat.board_head', lang)}")
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch", key=f"{P}_board")


def _compared() -> list[tuple[dict[str, Any], metrics.RunSummary, bool]]:
    """Compare's last run of the lanes opened from this panel, each (lane, summary, passed); [] while
    none has ended or Compare's lanes are no longer those (their prompts changed)."""
    opened = st.session_state.get(K_OPENED)
    comparison = ls.current()
    if not opened or comparison is None or comparison.active or len(comparison.lanes) != len(opened):
        return []
    if any(
        record.config.get("prompts", {}) != lane["prompts"]
        for record, lane in zip(comparison.lanes, opened, strict=True)
    ):
        return []
    models = sidebar.model_router().names().values()
    rows = []
    for record, lane in zip(comparison.lanes, opened, strict=True):
        summary = metrics.summary(record.typed_events())
        stand_in = placeholder(record.config.get("scenario"), record.config.get("pattern", ""), models)
        passed = ENDING_COLORS.get(summary.end_reason or "") == "green" and not stand_in
        rows.append((lane, summary, passed))
    return rows


def _eval_rows(labels: set[str]) -> list[result_rows.ResultRow]:
    """Eval's finished rows of these entries (the page keeps them as dicts with their kind)."""
    if st.session_state.get(f"{eval_entries.P}_job") is not None:
        return []  # still running: the board ranks a finished evaluation
    out = []
    for kept in st.session_state.get(f"{eval_entries.P}_rows") or []:
        if kept.get("_kind") == "result" and kept.get("pattern") in labels:
            fields = {k: tuple(v) if isinstance(v, list) else v for k, v in kept.items() if k != "_kind"}
            out.append(result_rows.ResultRow(**fields))
    return out


def eval_leaderboard(lang: str) -> None:
    """The entries handed to Eval from this panel, ranked by Eval's pass rate (then the interval's low
    end): each with its 95 % interval, against the top one by McNemar on the same tasks ("not
    distinguishable at this n" when p >= stats.ALPHA, or when there is no pair and the intervals overlap),
    and what Compare measured for the same submission. Shown once Eval has run exactly these entries."""
    opened = st.session_state.get(K_EVAL_OPENED)
    if not opened or eval_entries.ran() != opened:
        return
    labels = {e["label"]: e for e in opened}
    found = _eval_rows(set(labels))
    if not found:
        return
    summaries = sorted(result_rows.summarize_rows(found), key=lambda s: (-s.pass_rate, -s.ci_low))
    top = summaries[0]
    pairs = {p.b: p for p in result_rows.comparisons(found, top.pattern)}
    compared = {lane["id"]: (summary, passed) for lane, summary, passed in _compared()}
    w = {c: t(f"room_eval.board_{c}", lang) for c in ("rank", "name", "rate", "ci", "versus", "compare")}

    def versus(s: result_rows.PatternSummary) -> str:
        if s is top:
            return t("room_eval.top", lang)
        pair = pairs.get(s.pattern)
        if pair is None:
            apart = s.ci_high < top.ci_low
            return t("room_eval.apart" if apart else "room_eval.same_ci", lang, p="—")
        return t("room_eval.apart" if pair.distinguishable else "room_eval.same", lang, p=f"{pair.p_value:.2g}")

    def in_compare(label: str) -> str:
        ident = labels[label]["id"]
        if ident not in compared:
            return t("room_eval.compare_none", lang)
        summary, passed = compared[ident]
        return t("room_eval.compare_passed" if passed else "room_eval.compare_failed", lang, calls=summary.llm_calls)

    table = [
        {
            w["rank"]: n,
            w["name"]: s.pattern,
            w["rate"]: f"{s.pass_rate:.0%} ({s.passed}/{s.n})",
            w["ci"]: f"{s.ci_low:.0%} – {s.ci_high:.0%}",
            w["versus"]: versus(s),
            w["compare"]: in_compare(s.pattern),
        }
        for n, s in enumerate(summaries, start=1)
    ]
    kind = "room_eval.code_set" if any(r.scorer == "tests" for r in found) else "room_eval.question_set"
    tasks = len({r.task_id for r in found})
    st.markdown(f"##### :material/leaderboard: {t('room_eval.board_head', lang, tasks=tasks, set=t(kind, lang))}")
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch", key=f"{P}_eval_board")
