"""The Prompt and Reply views of one model call, drawn from the call record (agent_core.calls).

Both sit collapsed in popovers beside the call's caption, so a long run stays readable. The Prompt
view shows every message the model was sent, in order and role-labelled; text rendered from a
prompt template names it, says when the person had edited it, and highlights the values filled into
its placeholders. The Reply view shows the raw text or tool calls, the finish reason and the usage.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from agent_core import events as ev
from agent_core import untrusted
from agent_core.calls import MessageTable

from . import i18n, text


def words(lang: str | None = None) -> dict[str, str]:
    """This module's texts (locales/*.toml, table [call_views]) in `lang`, default the page's."""
    return i18n.words("call_views", lang)


def role_name(role: str, lang: str | None = None) -> str:
    """An agent role as a person reads it ([roles]); a role this app does not know, as it is, escaped."""
    return i18n.role_labels(lang).get(role) or text.inline(role, 40)


def call_views(container: Any, table: MessageTable, call: ev.LlmCall, lang: str, key: str) -> Any:
    """The Prompt and Reply popovers of one recorded call, in a row the caller may add to.

    A popover's body is drawn only while it is open (opening one reruns the page): a 300-event run
    has some thirty calls, and drawing every prompt and reply up front doubled the elements of its
    redraw (which must stay within 1 s). `key` names the call's popovers, so an open one stays open.
    """
    w = words(lang)
    row = container.container(horizontal=True, vertical_alignment="center", gap="small")
    # counted, not built: the messages themselves are read only when the popover is open
    prompt = row.popover(
        f"{w['prompt']} · {w['messages'].format(n=table.count(call))}",
        icon=":material/input:",
        type="tertiary",
        key=f"{key}-prompt",
        on_change="rerun",
    )
    if prompt.open:
        with prompt:
            draw_prompt(table.request(call), call, lang)
    reply = row.popover(w["reply"], icon=":material/output:", type="tertiary", key=f"{key}-reply", on_change="rerun")
    if reply.open:
        with reply:
            draw_reply(table.reply(call), call, lang)
    return row


def draw_prompt(messages: list[dict[str, Any]], call: ev.LlmCall, lang: str) -> None:
    """Every message the call was sent, in order, role-labelled; templates named, edits and fills marked."""
    w = words(lang)
    facts = []
    if call.tools:
        facts.append(w["tools"].format(names=", ".join(text.code_span(t) for t in call.tools)))
    if call.temperature is not None:
        facts.append(w["temperature"].format(value=call.temperature))
    if facts:
        st.caption(" · ".join(facts))
    new = {m.get("id") for m in call.new_messages if isinstance(m, dict)}
    earlier = [m for m in messages if m.get("id") not in new and m.get("role") != "system"]
    for message in messages:
        if message.get("id") in new or message.get("role") == "system":
            _message(message, w)
        elif message is earlier[0]:
            # History sent again: one block, not one element per message per call — a 30-round run
            # re-sends its history 30 times, and drawing it message by message would be quadratic.
            st.caption(w["earlier"].format(n=len(earlier)))
            st.code(
                "\n\n".join(
                    f"── {w.get('msg.' + str(m.get('role')), m.get('role'))} ──\n{m.get('content', '')}"
                    + "".join(f"\n{_tool_call_line(c)}" for c in m.get("tool_calls") or ())
                    for m in earlier
                ),
                language=None,
                wrap_lines=True,
                height=240,
            )


def _message(message: dict[str, Any], w: dict[str, str]) -> None:
    """One message in full: its role, the template it was rendered from, and its filled-in values."""
    role = str(message.get("role", ""))
    head = [f"**{text.inline(w.get('msg.' + role, role), 40)}**"]
    template = message.get("template")
    if isinstance(template, str):
        head.append(w["template"].format(name=text.code_span(template, 40)))
        if message.get("edited"):
            head.append(f":orange-badge[:material/edit: {w['edited_by_you']}]")
    st.markdown(" · ".join(head))
    content = str(message.get("content", ""))
    spans = _spans(message.get("fills"), len(content))
    if spans:
        names = ", ".join(sorted({"{" + n + "}" for n, _, _ in spans}))
        st.caption(w["filled"].format(names=text.inline(names, 200)))
        st.markdown(text.highlighted(content, spans))
    elif content:
        st.code(content, language=None, wrap_lines=True)
    for call_ in message.get("tool_calls") or ():
        st.code(_tool_call_line(call_), language=None, wrap_lines=True)


def draw_reply(reply: dict[str, Any] | None, call: ev.LlmCall, lang: str) -> None:
    """The raw reply: text or tool calls, the finish reason and the usage."""
    w = words(lang)
    facts = []
    if call.model == "person":
        facts.append(w["person"])
    if call.finish_reason:
        facts.append(w["finish"].format(reason=text.code_span(call.finish_reason, 30)))
    facts.append(
        w["usage"].format(
            prompt=f"{call.prompt_tokens:,}",
            completion=f"{call.completion_tokens:,}",
            est=w["estimated"] if call.usage_estimated else "",
        )
    )
    st.caption(" · ".join(facts))
    if call.finish_reason == "length":
        st.warning(w["cut"], icon=":material/content_cut:")
    content = str((reply or {}).get("content", ""))
    if content:
        st.code(content, language="json" if text.looks_like_json(content) else None, wrap_lines=True)
    for c in (reply or {}).get("tool_calls") or ():
        st.code(_tool_call_line(c), language=None, wrap_lines=True)
    if not content and not (reply or {}).get("tool_calls"):
        st.caption(w["no_reply"])


def _tool_call_line(call: Any) -> str:
    if not isinstance(call, dict):
        return str(call)
    args = call.get("arguments", "")
    try:
        args = json.dumps(untrusted.loads(args), ensure_ascii=False) if isinstance(args, str) else json.dumps(args)
    except (ValueError, TypeError, RecursionError):
        pass
    return f"{call.get('name', '?')}({args})"


def _spans(fills: Any, size: int) -> list[tuple[str, int, int]]:
    """The recorded fill spans that make sense for this text (a hostile file may hold anything)."""
    out = []
    for item in fills if isinstance(fills, list) else ():
        if (
            isinstance(item, list)
            and len(item) == 3
            and isinstance(item[0], str)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item[1:])
            and 0 <= item[1] < item[2] <= size
        ):
            out.append((item[0], item[1], item[2]))
    out.sort(key=lambda s: s[1])
    return [s for i, s in enumerate(out) if i == 0 or s[1] >= out[i - 1][2]]  # no overlaps
