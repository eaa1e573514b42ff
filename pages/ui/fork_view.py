"""Fork from here: a button on every recorded call of a finished run or an opened trace, and the
editor it opens — the reply that call gets (pre-filled with the recorded one and checked as the
pattern will parse it) and the prompts and limits from there on. Run starts the fork: the recorded
prefix is drawn at once, marked "recorded", and the rest streams live.

State: `fork_target` (shared by every page) holds the call to fork — the parent's event dicts, run
id, config, task, the call's number and role, and the page whose runs it joins (`home`) — while the
editor is open; its widgets live under `fork_*`. The editor is a panel above the run, not a modal
dialog, so the run it forks stays in view while the reply is written.

A fork runs on the page it was started from: the Playground's fork of its own run, and Replay's fork
of an opened trace, drawn in place of that trace (pages/ui/replay_fork.py). Either way the fork's
run view stands where its parent's was drawn, under the same key, so the browser keeps the prefix's
blocks and updates them; a page switch would make it build all of them again (a 300-event
prefix took 1.3-1.4 s through the switch from Replay to the Playground).
"""

from __future__ import annotations

import uuid
from typing import Any

import streamlit as st

import agent_core as ac
from agent_core import events as ev
from agent_core.config import RunConfig
from agent_core.errors import AgentError
from agent_core.fork import ForkError, fork_inputs, read_reply, recorded_reply, reply_from_text, reply_text
from agent_core.patterns import registry
from agent_core.patterns.registry import LIMITS, check_overrides, config_from_dict, specs_for

from . import call_views, diff_view, handoff, i18n, runs, sidebar, text
from .catalogue import limit_help, limit_label

TARGET = "fork_target"
PLAYGROUND = "pg"
#: Replay: the id of the fork it shows in place of the trace (see replay_fork.py)
SHOWN = "rp_fork_shown"


def words(lang: str | None = None) -> dict[str, str]:
    """Fork's texts (locales/*.toml, table [fork_view]) in `lang`, default the page's."""
    return i18n.words("fork_view", lang)


def forkable(events: list[ev.Event]) -> bool:
    """True when the run carries call records (a format-1 trace does not) and has finished."""
    try:
        fork_inputs(events, 1)
    except ForkError:
        return False
    return bool(events) and isinstance(events[-1], ev.RunFinished)


def note_unforkable(events: list[ev.Event], lang: str) -> None:
    """Say why a finished run offers no Prompt view and no Fork (a format-1 trace)."""
    if events and isinstance(events[-1], ev.RunFinished) and not forkable(events):
        st.caption(":material/info: " + words(lang)["v1"])


def call_actions(
    *,
    events: list[ev.Event],
    run_id: str,
    config: dict[str, Any],
    task: str,
    lang: str,
    key: str,
    home: str = PLAYGROUND,
):
    """A RunView hook that adds "Fork from here" to every call's row; the fork runs on `home`'s page."""
    w = words(lang)
    busy = runs.any_active()

    def add(row: Any, number: int, call: ev.LlmCall) -> None:
        target = {
            "events": events,
            "run_id": run_id,
            "config": config,
            "task": task,
            "at": number,
            "role": call.role,
            "home": home,
        }
        row.button(
            w["fork"],
            key=f"{key}-fork-{number}",
            icon=":material/call_split:",
            type="tertiary",
            on_click=st.session_state.__setitem__,
            args=(TARGET, target),
            disabled=busy,
            help=w["busy"] if busy else w["fork_help"].format(k=number),
        )

    return add


def run_actions(record: runs.RunRecord, events: list[ev.Event], lang: str, *, key: str, home: str):
    """`call_actions` for a finished run a page keeps (`events`: its typed events; its forks join that
    page), or None when the run carries no call records."""
    if not forkable(events):
        return None
    return call_actions(
        events=record.typed_events(),
        run_id=record.run_id,
        config=record.config,
        task=record.task,
        lang=lang,
        key=key,
        home=home,
    )


def open_editor(lang: str) -> None:
    """Show the fork editor when a Fork button asked for it (call once per page, above the run).

    Its place is held when it is closed (an empty slot shows nothing), so closing it on Run does not
    move the run drawn below it: the fork's prefix updates the parent's blocks in place.
    """
    slot = st.empty()
    target = st.session_state.get(TARGET)
    if isinstance(target, dict):
        w = words(lang)
        with slot.container(border=True, key="fork_editor"):
            role = call_views.role_name(target["role"], lang)
            st.markdown(f"#### :material/call_split: {w['title'].format(k=target['at'], role=role)}")
            _editor(target, lang)


def _close() -> None:
    st.session_state.pop(TARGET, None)


def _keep(widget: str, field: str, name: str | None = None) -> None:
    """Copy a widget's value into the open target (on_change): the editor's state is plain data, so a
    rerun that does not draw the editor — a page switch, a redirect — loses nothing."""
    target = st.session_state.get(TARGET)
    if isinstance(target, dict) and widget in st.session_state:
        value = st.session_state[widget]
        if name is None:
            target[field] = value
        else:
            target.setdefault(field, {})[name] = value


def _editor(target: dict[str, Any], lang: str) -> None:
    w = words(lang)
    at, role = target["at"], target["role"]
    nonce = target.setdefault("nonce", uuid.uuid4().hex[:8])  # fresh widgets for every fork opened
    parent = target["events"]
    model = sidebar.model_router().for_role(role).name
    st.markdown(
        w["intro"].format(before=at - 1, k=at, model=text.inline(model, 60))
        if at > 1
        else w["intro_first"].format(model=text.inline(model, 60))
    )
    try:
        base = config_from_dict(target["config"])
    except AgentError as exc:
        st.error(w["broken"].format(problem=text.escape(str(exc))), icon=":material/error:")
        return
    target.setdefault("reply", reply_text(recorded_reply(parent, at)))
    st.toggle(
        w["live"],
        value=bool(target.get("live")),
        key=f"fork_live_{nonce}",
        on_change=_keep,
        args=(f"fork_live_{nonce}", "live"),
    )
    if not target.get("live"):
        st.text_area(
            w["reply"],
            value=target["reply"],
            key=f"fork_reply_{nonce}",
            height=220,
            help=w["reply_help"].format(),
            on_change=_keep,
            args=(f"fork_reply_{nonce}", "reply"),
        )
        problem = _reply_check(target, role, base, w)
        if problem:
            st.error(text.escape(problem), icon=":material/error:")
            return
    _changes(target, base, lang, nonce)
    try:
        config, bound = _config(target, base)
    except AgentError as exc:
        st.error(w["broken"].format(problem=text.escape(str(exc))), icon=":material/error:")
        return
    st.caption(w["bound"].format(bound=bound))
    row = st.container(horizontal=True, gap="small")
    busy = runs.any_active()
    row.button(
        w["run"],
        key=f"fork_run_{nonce}",
        type="primary",
        icon=":material/call_split:",
        disabled=busy,
        on_click=_begin,
        help=w["busy"] if busy else None,
    )
    row.button(w["cancel"], key=f"fork_cancel_{nonce}", on_click=_close)


def _reply_check(target: dict[str, Any], role: str, base: RunConfig, w: dict[str, str]) -> str | None:
    """Show how the pattern will read the reply; the error that stops the fork, if any."""
    try:
        reply = reply_from_text(target["reply"])
    except ForkError as exc:
        return str(exc)
    if not reply.tool_calls:
        what, problem = read_reply(registry.get(base.pattern).role(role), reply.text, base.tools)
        if problem:
            st.warning(w["problem"].format(problem=text.escape(problem)), icon=":material/warning:")
        elif what != "text":
            st.success(w["reads_as"].format(what=text.inline(what, 40)), icon=":material/check:")
    return None


def _config(target: dict[str, Any], base: RunConfig) -> tuple[RunConfig, int]:
    """The fork's config: the parent's, with the prompts and limits changed in the editor."""
    prompts = {k: v for k, v in (target.get("prompts") or {}).items() if isinstance(v, str)}
    limits = {k: int(v) for k, v in (target.get("limits") or {}).items() if k in LIMITS}
    config = base.replace(prompts={**base.prompts, **prompts}, **limits)
    check_overrides(config.pattern, config.lang, config.prompts)
    return config, ac.call_bound(config)


def _begin() -> None:
    """Run the fork (the Run button's callback): a pending Playground run that the Playground drives."""
    target = st.session_state.get(TARGET)
    if not isinstance(target, dict) or runs.any_active():
        return
    config, bound = _config(target, config_from_dict(target["config"]))
    reply = None if target.get("live") else reply_from_text(target.get("reply", ""))
    point = {
        "run_id": target["run_id"],
        "at": target["at"],
        "edited": reply is not None,
        "parent_config": target["config"],
        "reply": None
        if reply is None
        else {
            "text": reply.text,
            "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls],
        },
    }
    home = target.get("home", PLAYGROUND)
    record = runs.begin(
        home,
        target["task"],
        config.to_dict(),
        sidebar.model_router().names(),
        bound,
        fork=point,
        parent=target["events"],
    )
    _close()
    if home == PLAYGROUND:
        handoff.load_into_playground(config.to_dict(), target["task"])  # the setup column shows what the fork runs
    else:
        st.session_state[SHOWN] = record.run_id  # Replay draws it where the trace was


def _changes(target: dict[str, Any], base: RunConfig, lang: str, nonce: str) -> None:
    """Editors for the prompts and limits from the fork on; their values go into the target."""
    w = words(lang)
    with st.expander(w["prompts"]):
        specs = specs_for(base.pattern)
        keys = list(specs)
        chosen = target.get("prompt_key") if target.get("prompt_key") in keys else keys[0]
        st.selectbox(
            w["prompt_key"],
            keys,
            index=keys.index(chosen),
            key=f"fork_pkey_{nonce}",
            format_func=lambda key: f"{call_views.role_name(specs[key].role, lang)} · {key}",
            on_change=_keep,
            args=(f"fork_pkey_{nonce}", "prompt_key"),
        )
        current = (target.get("prompts") or {}).get(chosen, base.prompts.get(chosen, specs[chosen].default(base.lang)))
        st.text_area(
            chosen,
            value=current,
            key=f"fork_prompt_{chosen}_{nonce}",
            height=200,
            label_visibility="collapsed",
            on_change=_keep,
            args=(f"fork_prompt_{chosen}_{nonce}", "prompts", chosen),
        )
    with st.expander(w["limits"]):
        cols = st.columns(3)
        shown = [lim for lim in LIMITS.values() if base.pattern in lim.patterns]
        for i, lim in enumerate(shown):
            value = (target.get("limits") or {}).get(lim.name, base.value(lim.name))
            cols[i % 3].number_input(
                limit_label(lim.name, lang),
                lim.low,
                lim.high,
                int(value),
                step=1,
                key=f"fork_limit_{lim.name}_{nonce}",
                on_change=_keep,
                help=f"`{lim.name}` · {limit_help(lim.name, lang)}",
                args=(f"fork_limit_{lim.name}_{nonce}", "limits", lim.name),
            )


def banner(record: runs.RunRecord, lang: str) -> None:
    """ "Forked from run X at call k", for a fork's head line."""
    if record.fork:
        w = words(lang)
        st.caption(
            ":material/call_split: "
            + w["forked_from"].format(run=text.code_span(record.fork["run_id"], 20), k=record.fork["at"])
            + (w["edited"] if record.fork.get("edited") else "")
        )


def prefix_calls(record: runs.RunRecord) -> int:
    """How many of a run's calls were served from its parent's record (0 for a run that is no fork)."""
    return record.fork["at"] - 1 if record.fork else 0


PAIR = "cmp_pair"
GO_COMPARE = "fork_go_compare"
COMPARE_PAGE = "pages/compare.py"


def compare_button(record: runs.RunRecord, lang: str, *, key: str) -> None:
    """For a finished fork: open it beside its original in Compare."""
    if st.session_state.pop(GO_COMPARE, False):
        st.switch_page(COMPARE_PAGE)
    if not record.fork or record.active or not record.parent:
        return
    pair = {
        "original": {
            "config": record.fork.get("parent_config") or record.config,
            "events": record.parent,
            "run_id": record.fork["run_id"],
        },
        "fork": {
            "config": record.config,
            "events": record.typed_events(),
            "run_id": record.run_id,
            "at": record.fork["at"],
        },
    }
    st.button(words(lang)["compare"], key=key, icon=":material/compare_arrows:", on_click=_open_pair, args=(pair,))


def _open_pair(pair: dict[str, Any]) -> None:
    st.session_state[PAIR] = pair
    st.session_state[GO_COMPARE] = True


def pair_view(lang: str) -> bool:
    """Compare's "original vs fork" lane pair, when a fork asked for it; True when it was drawn."""
    import pandas as pd

    from .render import draw_run
    from .render import ending as render_ending

    pair = st.session_state.get(PAIR)
    if not isinstance(pair, dict):
        return False
    w = i18n.words("fork_view.pair", lang)
    head = st.container(horizontal=True, vertical_alignment="center")
    head.subheader(w["title"])
    head.button(
        w["close"], key="cmp_pair_close", icon=":material/close:", on_click=st.session_state.pop, args=(PAIR, None)
    )
    sides = [
        (pair["original"], w["original"].format(run=text.code_span(pair["original"]["run_id"], 20))),
        (pair["fork"], w["fork"].format(run=text.code_span(pair["fork"]["run_id"], 20), k=pair["fork"]["at"])),
    ]
    typed = [side["events"] for side, _ in sides]
    rows = []
    for (_, label), events in zip(sides, typed, strict=True):
        finished = next((e for e in reversed(events) if isinstance(e, ev.RunFinished)), None)
        answer = next((e.text for e in reversed(events) if isinstance(e, ev.FinalAnswer)), "")
        rows.append(
            {
                "": label.split(" · ")[0],
                w["calls"]: finished.llm_calls if finished else 0,
                w["tokens"]: finished.total_tokens if finished else 0,
                w["reason"]: render_ending(finished.reason, lang)[0] if finished else "",
                w["verdicts"]: " → ".join(e.verdict for e in events if isinstance(e, ev.VerdictEvent)),
                w["answer"]: answer,
            }
        )
    st.dataframe(
        pd.DataFrame([{k: v for k, v in r.items() if k != w["answer"]} for r in rows]), hide_index=True, width="stretch"
    )
    st.markdown(f"**{w['answers']}**")
    old, new = rows[0][w["answer"]], rows[1][w["answer"]]
    if old == new:
        st.caption(w["same"])
    else:
        code = diff_view.looks_like_code(old, new)  # struck / underlined, wrapped (diff_view)
        diff_view.word_diff_block(old, new, code=code)
        diff_view.line_diff_block(old, new, names=(w["original_short"], w["fork_short"]))
    columns = st.columns(2, gap="medium")
    for i, ((side, label), events, column) in enumerate(zip(sides, typed, columns, strict=True)):
        with column:
            st.markdown(label)
            draw_run(
                side["config"],
                events,
                bound=ac.call_bound(config_from_dict(side["config"])),
                key=f"cmp_pair_{i}",
                compact=True,
                recorded=side.get("at", 1) - 1,
            )
    st.divider()
    return True
