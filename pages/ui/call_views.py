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
from agent_core.calls import MessageTable

from . import text

WORDS = {
    "en": {"prompt": "Prompt", "reply": "Reply", "messages": "{n} messages", "template": "template `{name}`",
           "edited": "edited by you", "filled": "highlighted: the values filled into {names}",
           "tools": "tools offered: {names}", "temperature": "temperature {value}",
           "finish": "finish reason `{reason}`", "cut": "cut at the output cap: the reply may be incomplete",
           "usage": "{prompt} → {completion} tokens{est}", "estimated": " (estimated)",
           "no_reply": "The call recorded no reply text.",
           "earlier": "{n} earlier messages, sent again (each was shown in full at the call that first sent it):", "tool_call": "tool call", "recorded": "recorded",
           "recorded_help": "Served from the parent run's record: this call did not run again.",
           "person": "written by a person",
           "paused": {"call": "Paused before call {call} ({role})", "verdict": "Paused at the {role}'s verdict",
                      "tool": "Paused before the tool {role} runs"},
           "resumed": {"step": "Stepped on", "continue": "Continued", "send": "Sent as it was",
                       "edit": "Sent, edited", "answer": "Answered by a person"},
           "edited": "You edited call {call} before the model saw it ({what})",
           "edited_what": {"messages": "its messages", "template": "the template {template}, from here on"},
           "human": "A person answered as the {role}",
           "roles": {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool result"}},
    "zh": {"prompt": "提示词", "reply": "回复", "messages": "{n} 条消息", "template": "模板 `{name}`",
           "edited": "已被你修改", "filled": "高亮：填入 {names} 的内容", "tools": "提供的工具：{names}",
           "temperature": "温度 {value}", "finish": "结束原因 `{reason}`",
           "cut": "在输出上限处被截断：回复可能不完整", "usage": "{prompt} → {completion} 个 token{est}",
           "estimated": "（估算）", "no_reply": "这次调用没有记录回复文本。",
           "earlier": "重新发送的 {n} 条较早消息（每条都已在首次发送它的那次调用中完整显示）：", "tool_call": "工具调用",
           "recorded": "来自记录", "recorded_help": "取自父运行的记录：这次调用没有重新执行。",
           "person": "由人撰写",
           "paused": {"call": "在第 {call} 次调用前暂停（{role}）", "verdict": "在 {role} 的结论处暂停",
                      "tool": "在工具 {role} 运行前暂停"},
           "resumed": {"step": "单步继续", "continue": "继续运行", "send": "按原样发送", "edit": "修改后发送",
                       "answer": "由人作答"},
           "edited": "你在模型看到之前修改了第 {call} 次调用（{what}）",
           "edited_what": {"messages": "它的消息", "template": "模板 {template}，此后生效"},
           "human": "由人扮演 {role} 作答",
           "roles": {"system": "系统", "user": "用户", "assistant": "助手", "tool": "工具结果"}},
}


def words(lang: str) -> dict[str, Any]:
    return WORDS["zh" if lang == "zh" else "en"]


def call_views(container: Any, table: MessageTable, call: ev.LlmCall, lang: str) -> Any:
    """The Prompt and Reply popovers of one recorded call, in a row the caller may add to."""
    w = words(lang)
    row = container.container(horizontal=True, vertical_alignment="center", gap="small")
    sent = table.request(call)
    with row.popover(f"{w['prompt']} · {w['messages'].format(n=len(sent))}", icon=":material/input:", type="tertiary"):
        draw_prompt(sent, call, lang)
    with row.popover(w["reply"], icon=":material/output:", type="tertiary"):
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
            st.code("\n\n".join(f"── {w['roles'].get(m.get('role'), m.get('role'))} ──\n{m.get('content', '')}"
                                 + "".join(f"\n{_tool_call_line(c)}" for c in m.get("tool_calls") or ())
                                 for m in earlier), language=None, wrap_lines=True, height=240)


def _message(message: dict[str, Any], w: dict[str, Any]) -> None:
    """One message in full: its role, the template it was rendered from, and its filled-in values."""
    role = str(message.get("role", ""))
    head = [f"**{text.inline(w['roles'].get(role, role), 40)}**"]
    template = message.get("template")
    if isinstance(template, str):
        head.append(w["template"].format(name=text.inline(template, 40).replace("`", "")))
        if message.get("edited"):
            head.append(f":orange-badge[:material/edit: {w['edited']}]")
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
        facts.append(w["finish"].format(reason=text.inline(call.finish_reason, 30).replace("`", "")))
    facts.append(w["usage"].format(prompt=f"{call.prompt_tokens:,}", completion=f"{call.completion_tokens:,}",
                                   est=w["estimated"] if call.usage_estimated else ""))
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
        args = json.dumps(json.loads(args), ensure_ascii=False) if isinstance(args, str) else json.dumps(args)
    except ValueError:
        pass
    return f"{call.get('name', '?')}({args})"


def _spans(fills: Any, size: int) -> list[tuple[str, int, int]]:
    """The recorded fill spans that make sense for this text (a hostile file may hold anything)."""
    out = []
    for item in fills if isinstance(fills, list) else ():
        if (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
                and all(isinstance(v, int) and not isinstance(v, bool) for v in item[1:])
                and 0 <= item[1] < item[2] <= size):
            out.append((item[0], item[1], item[2]))
    out.sort(key=lambda s: s[1])
    return [s for i, s in enumerate(out) if i == 0 or s[1] >= out[i - 1][2]]  # no overlaps
