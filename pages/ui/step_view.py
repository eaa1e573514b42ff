"""Step mode in the Playground: the switch and breakpoints beside Run, and the pause banner — what is
about to happen, the pending prompt, and Step, Continue, Edit this call, Answer it myself, Stop.
(Every Playground run lives in its own RunHandle thread, see live.py; step mode gives it breakpoints.)

State under `pg_step*` (the switch, the breakpoints, the people) and `pg_step_edit*` (the open
editors); the handle lives on the run's record (runs.RunRecord.handle).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core import events as ev
from agent_core.calls import message_dict
from agent_core.errors import AgentError, TemplateError
from agent_core.messages import Message
from agent_core.patterns import registry
from agent_core.roles import Role
from agent_core.stepping import Breakpoints, RunHandle

from . import call_views, i18n, poll, runs, setup_state, text


def words(lang: str | None = None) -> dict[str, str]:
    """Step mode's texts (locales/*.toml, table [step_view]) in `lang`, default the page's."""
    return i18n.words("step_view", lang)


# --- the switch and the breakpoints ---------------------------------------------------------------


def controls(prefix: str, pattern: str, lang: str, *, disabled: bool) -> None:
    """The Step mode switch and, when on, where to pause and which roles a person answers."""
    w = words(lang)
    st.session_state.setdefault(f"{prefix}_step_breaks", ["every_call"])
    on = st.toggle(w["switch"], key=f"{prefix}_step", disabled=disabled, help=w["switch_help"], persist_state="session")
    if not on:
        return
    roles = registry.get(pattern).role_names()
    options = ["every_call", "verdicts", "tools", *(f"role:{r}" for r in roles)]
    labels = {
        "every_call": w["every_call"],
        "verdicts": w["verdicts"],
        "tools": w["tools"],
        **{f"role:{r}": w["role"].format(role=call_views.role_name(r, lang)) for r in roles},
    }
    choose = i18n.words("choose", lang)  # Streamlit's own placeholder is English ("Choose options")
    st.multiselect(
        w["breaks"],
        options,
        key=f"{prefix}_step_breaks",
        format_func=labels.__getitem__,
        disabled=disabled,
        persist_state="session",
        placeholder=choose["breaks"],
    )
    st.multiselect(
        w["people"],
        list(roles),
        key=f"{prefix}_step_people",
        disabled=disabled,
        help=w["people_help"],
        format_func=lambda r: call_views.role_name(r, lang),
        persist_state="session",
        placeholder=choose["people"],
    )


def requested(prefix: str, pattern: str) -> dict[str, Any] | None:
    """The breakpoints the controls ask for (plain data for the run's record), or None when off."""
    state = st.session_state
    if not state.get(f"{prefix}_step"):
        return None
    roles = set(registry.get(pattern).role_names())
    chosen = [b for b in state.get(f"{prefix}_step_breaks", []) if isinstance(b, str)]
    return {
        "every_call": "every_call" in chosen,
        "verdicts": "verdicts" in chosen,
        "tools": "tools" in chosen,
        "roles": sorted(b[5:] for b in chosen if b.startswith("role:") and b[5:] in roles),
        "people": sorted(r for r in state.get(f"{prefix}_step_people", []) if r in roles),
    }


def breakpoints(step: dict[str, Any]) -> Breakpoints:
    return Breakpoints(
        every_call=bool(step.get("every_call")),
        roles=frozenset(step.get("roles", ())),
        verdicts=bool(step.get("verdicts")),
        tools=bool(step.get("tools")),
        people=frozenset(step.get("people", ())),
    )


# --- the pause ----------------------------------------------------------------------------------------


def about_to_run(record: runs.RunRecord) -> ev.Event:
    """An event standing for what the paused run does next, so the graph can light its node."""
    pending = record.handle.pending if record.handle is not None else None
    if pending is None or pending.at != "call":
        return pending.event if pending is not None and pending.event is not None else ev.Event()
    return ev.LlmCall(role=pending.role)


#: The pause bar stays on screen wherever the page is scrolled: drawn last in the run area and stuck to
#: the bottom of the viewport (presenter mode or not), so its headline and moves are in view at every
#: pause, with the newest step above it when the page follows the run. The pending prompt opens in a
#: popover over the page, and the editors of Edit and Answer scroll inside a box of bounded height (with
#: presenter mode's head, the bar still fits a 720 px screen), so the bar never outgrows the screen.
#: One fixed style block; `%(p)s` is the page's own prefix, never run text.
BAR_STYLE = """
[data-testid=stLayoutWrapper]:has(> .st-key-%(p)s_pause) { position: sticky; bottom: 0; z-index: 6; }
.st-key-%(p)s_pause { background: #fff; gap: 0.4rem; padding-top: 0.6rem; padding-bottom: 0.6rem;
  box-shadow: 0 -6px 10px -8px rgba(0, 0, 0, 0.35); }
.st-key-%(p)s_pause h3 { font-size: 1.15rem; line-height: 1.35; padding: 0; margin: 0; }
.st-key-%(p)s_pause_head [data-testid=stMarkdownContainer], .st-key-%(p)s_pause_head p { margin-bottom: 0; }
.st-key-%(p)s_pause [data-testid=stMetric] { padding: 0; }
.st-key-%(p)s_pause [data-testid=stMetricValue] { font-size: 1.3rem; line-height: 1.2; }
.st-key-%(p)s_pause_moves { row-gap: 0.4rem; }
.st-key-%(p)s_pause_moves button { min-height: 2.1rem; padding: 0.15rem 0.7rem; }
.st-key-%(p)s_pause_prompt { max-height: 60vh; overflow-y: auto; }
[data-testid=stPopoverBody]:has(.st-key-%(p)s_pause_prompt) { width: min(92vw, 64rem) !important;
  max-width: min(92vw, 64rem) !important; }
.st-key-%(p)s_pause_work { max-height: 34vh; overflow-y: auto; }
"""


def pause_words(lang: str | None = None) -> dict[str, str]:
    """The pause bar's own texts (locales/*.toml, table [pause_bar])."""
    return i18n.words("pause_bar", lang)


def banner(prefix: str, record: runs.RunRecord, lang: str) -> None:
    """The pause bar: what the paused run is about to do (its role and call), Step, Continue, Edit,
    Answer, Ask the room (then its tally) and Stop in one row, and the pending prompt one click away
    (a popover drawn with the bar: its filled placeholders marked, as in a call's record).

    Call it last in the run area: it sticks to the bottom of the screen (BAR_STYLE)."""
    handle = record.handle
    pending = handle.pending if handle is not None else None
    if pending is None:
        return
    w, pw = words(lang), pause_words(lang)
    with st.container(border=True, key=f"{prefix}_pause"):
        st.html(f"<style>{BAR_STYLE % {'p': prefix}}</style>")
        _template_refused(prefix, handle, w, lang)
        head = st.container(horizontal=True, vertical_alignment="center", gap="small", key=f"{prefix}_pause_head")
        head.markdown(f"### :material/pause_circle: {_about(pending, w, lang)}")
        idle = handle.idle_timeout_s
        head.container(key=f"{prefix}_pause_where", width="content").badge(
            _where(pending, pw, lang),
            color="violet",
            icon=":material/my_location:",
            help=w["idle"].format(
                time=w["minutes"].format(n=round(idle / 60)) if idle >= 120 else w["seconds"].format(n=round(idle))
            ),
        )
        if pending.human:
            head.caption(w["yours"])
        row = st.container(horizontal=True, vertical_alignment="center", gap="small", key=f"{prefix}_pause_moves")
        row.button(
            w["step"],
            key=f"{prefix}_step_step",
            icon=":material/redo:",
            type="primary",
            on_click=handle.step,
            disabled=pending.human,
        )
        row.button(
            w["continue"],
            key=f"{prefix}_step_continue",
            icon=":material/play_arrow:",
            on_click=handle.resume,
            disabled=pending.human,
        )
        editing = st.session_state.get(f"{prefix}_step_mode")
        if pending.at == "call":
            row.button(
                w["edit"],
                key=f"{prefix}_step_edit",
                icon=":material/edit:",
                disabled=pending.human,
                on_click=st.session_state.__setitem__,
                args=(f"{prefix}_step_mode", "edit"),
            )
            row.button(
                w["answer"],
                key=f"{prefix}_step_answer",
                icon=":material/person:",
                on_click=st.session_state.__setitem__,
                args=(f"{prefix}_step_mode", "answer"),
            )
        if pending.at == "call" and pending.grammar is not None and pending.grammar.verdicts:
            with row:  # the question, then its tally as the votes come in
                poll.ask_room(prefix, record, pending, lang)
        row.button(
            w["stop"], key=f"{prefix}_step_stop", icon=":material/stop_circle:", on_click=runs.stop, args=(prefix,)
        )
        if pending.at == "call" and pending.request is not None:
            # drawn with the bar: one click opens it, with no rerun and no wait
            with (
                row.popover(
                    _prompt_label(pending, pw),
                    icon=":material/input:",
                    type="tertiary",
                    key=f"{prefix}_pause_prompt_open",
                ),
                st.container(key=f"{prefix}_pause_prompt"),
            ):
                _pending_prompt(pending, lang)
        if pending.at == "call" and (editing == "answer" or pending.human):
            with st.container(key=f"{prefix}_pause_work"):
                _answer_form(prefix, handle, pending, w)
        elif pending.at == "call" and editing == "edit":
            with st.container(key=f"{prefix}_pause_work"):
                _edit_form(prefix, handle, pending, w)


def _where(pending: Any, pw: dict[str, str], lang: str) -> str:
    """The pending role and call, in a few words (the headline says what is about to happen)."""
    if pending.at == "tool":
        return pw["where.tool"].format(tool=text.inline(pending.role, 40))
    role = text.flat(call_views.role_name(pending.role, lang), 40)
    if pending.at == "verdict":
        return pw["where.verdict"].format(role=role)
    return pw["where.call"].format(call=pending.call, role=role)


def _prompt_label(pending: Any, pw: dict[str, str]) -> str:
    """The prompt popover's label: how many messages, and the template the last one was filled from."""
    n = len(pending.messages)
    label = pw["prompt_one" if n == 1 else "prompt"].format(n=n)
    provenance = getattr(pending.prompts, "rendered", {}) or {}
    names = [
        provenance[m.content].template
        for m in pending.messages
        if m.role in ("system", "user") and m.content in provenance
    ]
    if names:
        label += " · " + pw["from_template"].format(name=text.code_span(names[-1], 40))
    return label


def _template_refused(prefix: str, handle: RunHandle, w: dict[str, str], lang: str) -> None:
    """Why this run's last edited template was not kept (its messages were sent), in the page's language."""
    problem = st.session_state.get(f"{prefix}_step_problem")
    if problem is None or problem[0] is not handle:
        return
    _, exc, spec = problem
    why = setup_state.template_problem(exc, spec, lang) if isinstance(exc, TemplateError) and spec else str(exc)
    st.warning(w["template_refused"].format(problem=why), icon=":material/warning:")


def _about(pending: Any, w: dict[str, str], lang: str) -> str:
    if pending.at == "tool":  # the "role" of a tool pause is the tool's name
        return w["about.tool"].format(role=text.inline(pending.role, 40))
    role = call_views.role_name(pending.role, lang)
    if pending.at == "verdict":
        return w["about.verdict"].format(role=role, verdict=text.inline(getattr(pending.event, "verdict", ""), 20))
    ctx = pending.request.context if pending.request is not None else None
    about = pending.grammar.about(ctx) if pending.grammar is not None and pending.grammar.about else None
    if about is not None:
        return about(lang)
    return w["about.call"].format(role=role, call=pending.call)


def _pending_prompt(pending: Any, lang: str) -> None:
    """The messages about to be sent, in the same Prompt view as the call record."""
    provenance = getattr(pending.prompts, "rendered", {}) or {}
    messages = []
    for i, m in enumerate(pending.messages):
        item = {"id": i, **message_dict(m)}
        source = provenance.get(m.content) if m.role in ("system", "user") else None
        if source is not None:
            item.update(template=source.template, edited=source.edited, fills=[list(f) for f in source.fills])
        messages.append(item)
    call = ev.LlmCall(
        role=pending.role,
        new_messages=tuple(messages),
        tools=tuple(t.get("function", t).get("name", "") for t in pending.request.tools),
        temperature=pending.request.temperature,
    )
    call_views.draw_prompt(messages, call, lang)


def _answer_form(prefix: str, handle: RunHandle, pending: Any, w: dict[str, str]) -> None:
    choices = pending.grammar.verdicts if pending.grammar is not None else ()
    nonce = f"{pending.role}_{pending.call}"
    if choices:
        st.segmented_control(
            w["verdict"],
            choices,
            key=f"{prefix}_step_verdict_{nonce}",
            default=choices[0],
            required=True,
            persist_state="session",
        )
        st.text_area(w["feedback"], key=f"{prefix}_step_feedback_{nonce}", height=100, persist_state="session")
    else:
        st.text_area(w["reply"], key=f"{prefix}_step_reply_{nonce}", height=160, persist_state="session")
    st.button(
        w["send_answer"],
        key=f"{prefix}_step_send_answer_{nonce}",
        type="primary",
        icon=":material/send:",
        on_click=_send_answer,
        args=(prefix, handle, pending.grammar, nonce, bool(choices)),
    )


def _send_answer(prefix: str, handle: RunHandle, role: Role | None, nonce: str, verdict: bool) -> None:
    state = st.session_state
    if verdict:
        line = f"{state.get(f'{prefix}_step_verdict_{nonce}') or 'PASS'}: {state.get(f'{prefix}_step_feedback_{nonce}', '')}"
        handle.answer(role.verdict_reply(line) if role is not None else line)
    else:
        handle.answer(str(state.get(f"{prefix}_step_reply_{nonce}", "")))
    state.pop(f"{prefix}_step_mode", None)


def _edit_form(prefix: str, handle: RunHandle, pending: Any, w: dict[str, str]) -> None:
    """A text area per system and user message of the pending call; the rest is shown as it is."""
    nonce = f"{pending.role}_{pending.call}"
    for i, m in enumerate(pending.messages):
        if m.role in ("system", "user"):
            st.text_area(
                f"{i + 1} · {call_views.words()[f'msg.{m.role}']}",
                value=m.content,
                key=f"{prefix}_step_msg_{nonce}_{i}",
                height=160,
                persist_state="session",
            )
    template = getattr(pending.request.context, "prompt", None) if pending.request is not None else None
    if template:
        st.checkbox(w["template"], key=f"{prefix}_step_template_{nonce}", persist_state="session")
    st.button(
        w["send"],
        key=f"{prefix}_step_send_{nonce}",
        type="primary",
        icon=":material/send:",
        on_click=_send_edit,
        args=(prefix, handle, pending, nonce, template),
    )


def _send_edit(prefix: str, handle: RunHandle, pending: Any, nonce: str, template: str | None) -> None:
    state = st.session_state
    messages = tuple(
        Message(m.role, state.get(f"{prefix}_step_msg_{nonce}_{i}", m.content), m.tool_calls, m.tool_call_id, m.name)
        if m.role in ("system", "user")
        else m
        for i, m in enumerate(pending.messages)
    )
    keep = None
    state.pop(f"{prefix}_step_problem", None)  # a new edit: the last one's refusal is no longer news
    if template and state.get(f"{prefix}_step_template_{nonce}") and pending.prompts is not None:
        keep = (template, _as_template(pending, template, messages))
    try:
        handle.send(messages, template=keep)
    except AgentError as exc:  # an edited template that no longer validates: send the messages only
        spec = pending.prompts.specs.get(template) if template and pending.prompts is not None else None
        # said at this run's pauses, in the language of each drawing, until the next edit
        st.session_state[f"{prefix}_step_problem"] = (handle, exc, spec)
        handle.send(messages)
    state.pop(f"{prefix}_step_mode", None)


def _as_template(pending: Any, key: str, messages: tuple[Message, ...]) -> str:
    """The edited last message turned back into a template: its filled-in values become placeholders."""
    source = pending.prompts.rendered.get(pending.messages[-1].content)
    body = messages[-1].content
    if source is None:
        return body
    original = pending.messages[-1].content
    out, at = [], 0
    for name, start, end in source.fills:
        value = original[start:end]
        found = body.find(value, at)
        if found < 0:
            continue
        out += [body[at:found].replace("{", "{{").replace("}", "}}"), "{" + name + "}"]
        at = found + len(value)
    out.append(body[at:].replace("{", "{{").replace("}", "}}"))
    return "".join(out)
