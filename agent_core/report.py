"""A run as a Markdown handout: configuration, task, a step-by-step narrative, the answer and the costs.

Model and user text never reaches the page as markup: it goes into fenced blocks, code spans or
blockquotes whose `<`, `>` and entities are escaped, so a `<script>` in a tool result stays text.
Secrets passed in are replaced before anything is cut short, so a truncation cannot leave half a key.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from . import event_views
from . import events as ev
from .diffing import diff_stats, line_diff
from .metrics import role_usage, summary
from .settings import redact

if TYPE_CHECKING:
    from .config import RunConfig

REDACTED = "[redacted]"
#: Shorter strings are not treated as secrets: replacing them would mangle ordinary text.
MIN_SECRET_LEN = 8

_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "report": "run report",
        "config": "Configuration",
        "setting": "Setting",
        "value": "Value",
        "pattern": "pattern",
        "lang": "language",
        "scenario": "scenario",
        "tools": "tools",
        "none": "none",
        "on": "on",
        "off": "off",
        "model_default": "model default",
        "models": "Models",
        "role": "Role",
        "model": "Model",
        "prompts": "Edited prompts",
        "task": "Task",
        "narrative": "Step by step",
        "plan": "Plan",
        "replan": "Revised plan (revision {n})",
        "step_col": "Step",
        "tool_col": "Tool",
        "critical": "Critical",
        "status": "Status",
        "yes": "yes",
        "thought": "Thought",
        "tool_call": "Tool call",
        "result": "Result",
        "result_error": "Result (error)",
        "verdict": "Verdict",
        "feedback": "Feedback",
        "analysis": "Analysis",
        "suggestion": "Suggestion",
        "fallback": "The reply could not be parsed; this is the fallback verdict.",
        "draft": "Draft {v}",
        "same": "Same text as draft {v}.",
        "changes": "{added} line(s) added, {removed} removed, {ratio:.0%} of the text changed",
        "started": "Started",
        "attempt": "attempt {n}",
        "finished": "Step {id}: {status}",
        "limit": "Limit reached",
        "failed": "Run failed",
        "limits": "Limits reached",
        "no_limits": "No limit was reached.",
        "final": "Final answer",
        "no_final": "No final answer.",
        "why": "Why it ended",
        "metrics": "Metrics by role",
        "calls": "Calls",
        "prompt": "Prompt tokens",
        "completion": "Completion tokens",
        "total": "Total tokens",
        "latency": "Latency (ms)",
        "mean": "Mean (ms)",
        "all": "all",
        "no_calls": "No LLM call was made.",
        "estimated": "Token counts marked * are estimates: the server sent no usage.",
        "summary": "{calls} LLM call(s) of at most {bound} · {tokens} tokens · {seconds:.2f} s",
        "summary_unbound": "{calls} LLM call(s) · {tokens} tokens · {seconds:.2f} s",
        "more_chars": "… ({n} more characters)",
        "more_lines": "… ({n} more lines)",
        "done": "done",
        "failed_status": "failed",
        "retried": "retried",
        "skipped": "skipped",
        "not_run": "not run",
        "replanned": "re-planned",
        "running": "running",
        "round": "Round {n}",
        "iteration": "Iteration {n}",
        "iteration0": "First draft",
        "step": "Step {n}",
        ":": ":",
        "(": " (",
        ")": ")",
        "answer": "The model gave its final answer.",
        "pass": "The reviewer passed the answer.",
        "cap": "A round limit was reached; the best answer so far was returned.",
        "budget": "The run-wide budget was spent; the best answer so far was returned.",
        "stop": "The run was stopped before it finished.",
        "error": "The run failed.",
        "partial": "The trace has no closing event: the run was interrupted or is still running.",
    },
    "zh": {
        "report": "运行报告",
        "config": "配置",
        "setting": "设置",
        "value": "取值",
        "pattern": "模式",
        "lang": "语言",
        "scenario": "场景",
        "tools": "工具",
        "none": "无",
        "on": "开",
        "off": "关",
        "model_default": "模型默认",
        "models": "模型",
        "role": "角色",
        "model": "模型",
        "prompts": "修改过的提示词",
        "task": "任务",
        "narrative": "逐步过程",
        "plan": "计划",
        "replan": "重新规划（第 {n} 版）",
        "step_col": "步骤",
        "tool_col": "工具",
        "critical": "关键",
        "status": "状态",
        "yes": "是",
        "thought": "思考",
        "tool_call": "工具调用",
        "result": "结果",
        "result_error": "结果（出错）",
        "verdict": "评审结论",
        "feedback": "反馈",
        "analysis": "分析",
        "suggestion": "建议",
        "fallback": "回复无法解析，此为兜底结论。",
        "draft": "第 {v} 版草稿",
        "same": "与第 {v} 版相同。",
        "changes": "新增 {added} 行，删除 {removed} 行，改动 {ratio:.0%}",
        "started": "开始",
        "attempt": "第 {n} 次尝试",
        "finished": "步骤 {id}：{status}",
        "limit": "达到上限",
        "failed": "运行失败",
        "limits": "触发的上限",
        "no_limits": "没有触发任何上限。",
        "final": "最终答案",
        "no_final": "没有最终答案。",
        "why": "结束原因",
        "metrics": "按角色统计",
        "calls": "调用次数",
        "prompt": "输入 tokens",
        "completion": "输出 tokens",
        "total": "合计 tokens",
        "latency": "耗时（毫秒）",
        "mean": "平均（毫秒）",
        "all": "合计",
        "no_calls": "没有调用 LLM。",
        "estimated": "标 * 的 token 数为估算值：服务端未返回用量。",
        "summary": "LLM 调用 {calls} 次（上限 {bound}）· {tokens} tokens · {seconds:.2f} 秒",
        "summary_unbound": "LLM 调用 {calls} 次 · {tokens} tokens · {seconds:.2f} 秒",
        "more_chars": "…（另有 {n} 个字符）",
        "more_lines": "…（另有 {n} 行）",
        "done": "完成",
        "failed_status": "失败",
        "retried": "重试",
        "skipped": "跳过",
        "not_run": "未执行",
        "replanned": "已重新规划",
        "running": "进行中",
        "round": "第 {n} 轮",
        "iteration": "第 {n} 次迭代",
        "iteration0": "初稿",
        "step": "步骤 {n}",
        ":": "：",
        "(": "（",
        ")": "）",
        "answer": "模型给出了最终答案。",
        "pass": "评审判定通过。",
        "cap": "达到轮次上限，返回当前最佳答案。",
        "budget": "全局预算耗尽，返回当前最佳答案。",
        "stop": "运行在结束前被停止。",
        "error": "运行失败。",
        "partial": "记录中没有结束事件：运行被中断或仍在进行。",
    },
}


def _pattern_title(pattern: str) -> str:
    """The pattern's label from its spec; an unknown name (an old or foreign trace) as it is."""
    from .patterns import registry

    spec = registry.specs().get(pattern)
    return spec.label.en if spec is not None else pattern


def _spec_of(config: Mapping[str, Any]) -> Any:
    """The spec of a report's pattern (a trace from elsewhere may name one this build lacks: the first)."""
    from .patterns import registry

    specs = registry.specs()
    return specs.get(str(config.get("pattern", ""))) or next(iter(specs.values()))


def _step_word(pattern: str) -> str:
    from .patterns import registry

    spec = registry.specs().get(pattern)
    return spec.step_word.en if spec is not None else "step"


_STATUS_KEYS = {
    "done": "done",
    "failed": "failed_status",
    "retried": "retried",
    "skipped": "skipped",
    "replanned": "replanned",
    "running": "running",
    "pending": "not_run",
    "": "not_run",
}
#: Config entries rendered in their own place, or never (a key must not reach a handout).
_SPECIAL = {"pattern", "lang", "scenario", "tools", "prompts", "models", "task"}
_SECRET_NAME = re.compile(r"api_?key|secret|password|credential", re.IGNORECASE)

TOOL_OUTPUT_CHARS, TOOL_OUTPUT_LINES = 1500, 40
PROSE_CHARS = 3000
DRAFT_CHARS, DIFF_LINES = 8000, 200


def markdown_report(
    config: Mapping[str, Any] | RunConfig,
    events: Iterable[ev.Event],
    models: Mapping[str, str] | None = None,
    secrets: Iterable[str] = (),
) -> str:
    """A Markdown report of a (possibly partial) run, in the run's language; `secrets` are redacted."""
    keys = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LEN}, key=len, reverse=True)
    flat: dict[str, Any] = _redact(dict(config) if isinstance(config, Mapping) else config.to_dict(), keys)
    events = [_redact_event(e, keys) for e in events if not isinstance(e, ev.Token)]
    models = _redact(dict(models if models is not None else flat.get("models") or {}), keys)
    started = _first(events, ev.RunStarted)
    if not flat.get("pattern") and started is not None:
        flat["pattern"] = started.pattern
    text = _TEXT["zh" if flat.get("lang") == "zh" else "en"]
    parts = [
        _title(flat, events, text),
        _configuration(flat, models, text),
        _task(flat, events, text),
        _narrative(flat, events, text),
        _limits(events, text),
        _final(flat, events, text),
        _why(events, text),
        _metrics(events, text),
    ]
    return _redact("\n\n".join(p for p in parts if p).rstrip() + "\n", keys)


# --- safe Markdown --------------------------------------------------------------------------------

_ENTITY = re.compile(r"&(?=#?\w+;)")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


#: The link schemes a handout keeps; every other link from data (javascript:, data:, vbscript:,
#: relative paths) is turned into plain text.
SAFE_LINK = re.compile(r"(?:https?://|mailto:)", re.IGNORECASE)
# `](` opening an inline link's destination (the group: a safe scheme at its start, if there is one),
# and `[label]:` opening a reference definition (at the start of a line; the group is what follows, up
# to the end of the line). The link's lookahead reads only the destination's start: one that read to
# the end of the line from every `]` made a line of n `](` cost n² steps.
_LINK_OPEN = re.compile(r"\](?=[ \t]*\([ \t]*(?:&lt;)?((?i:https?://|mailto:))?)")
_DEFINITION = re.compile(r"^( {0,3})\[([^\]\n]*\]:)([^\n]*)", re.MULTILINE)


def escape(text: str) -> str:
    """Inline text with no markup that could become HTML, fetch a remote image, or link anywhere but
    http, https or mailto."""
    text = _ENTITY.sub("&amp;", text).replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace("![", "!\\[")
    return _DEFINITION.sub(_safe_definition, _LINK_OPEN.sub(_safe_link, text))


def _safe_link(m: re.Match[str]) -> str:
    # an escaped `]` cannot close a link label, so the `(...)` after it stays text
    return "]" if m.group(1) else "\\]"


def _safe_definition(m: re.Match[str]) -> str:
    kept = SAFE_LINK.match(m.group(3).strip(" \t").removeprefix("&lt;"))
    return m.group(0) if kept else f"{m.group(1)}\\[{m.group(2)}{m.group(3)}"


def cell(text: Any) -> str:
    """A table cell: one line, escaped, pipes protected."""
    return escape(" ".join(str(text).split())).replace("|", "\\|")


def code(text: str, table: bool = False) -> str:
    """An inline code span that holds `text` whatever backticks it contains (pipes escaped in a table)."""
    text = " ".join(text.split())
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    span = f"{ticks}{pad}{text}{pad}{ticks}"
    # GFM splits table cells before it parses code spans, so a pipe must be escaped even in one
    return span.replace("|", "\\|") if table else span


def fence(text: str, lang: str = "text") -> str:
    """A fenced block whose fence is longer than any backtick run inside."""
    ticks = "`" * max(3, max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def quote(text: str) -> str:
    """A blockquote of model text: its own fenced blocks stay verbatim, everything else is escaped."""
    lines, out, opened = _lines(text), [], ""
    for line in lines:
        if opened:
            out.append(line)
            if re.fullmatch(rf" {{0,3}}{re.escape(opened[0])}{{{len(opened)},}}[ \t]*", line):
                opened = ""
            continue
        m = _FENCE_OPEN.match(line)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            opened = m.group(1)
            out.append(line)
        else:
            out.append(escape(line))
    if opened:  # the quote would end it anyway; closing it keeps the Markdown tidy
        out.append(opened)
    return "\n".join(f"> {line}" if line.strip() else ">" for line in out)


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _clip(text: str, chars: int, lines: int | None, t: dict[str, str]) -> str:
    """Cut text to `chars` characters and `lines` lines, saying how much was left out."""
    rows = _lines(text)
    notes = []
    if lines is not None and len(rows) > lines:
        notes.append(t["more_lines"].format(n=len(rows) - lines))
        text = "\n".join(rows[:lines])
    if len(text) > chars:
        notes.insert(0, t["more_chars"].format(n=len(text) - chars))
        text = text[:chars]
    return "\n".join([text, *notes])


# --- redaction ------------------------------------------------------------------------------------


def _redact(value: Any, keys: list[str]) -> Any:
    if not keys:
        return value
    if isinstance(value, str):
        return redact(value, keys, REDACTED)
    if isinstance(value, dict):
        return {_redact(k, keys): _redact(v, keys) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_redact(v, keys) for v in value)
    return value


def _redact_event(event: ev.Event, keys: list[str]) -> ev.Event:
    if not keys:
        return event
    changes = {
        f.name: _redact(getattr(event, f.name), keys)
        for f in dataclasses.fields(event)
        if isinstance(getattr(event, f.name), (str, dict, list, tuple))
    }
    return dataclasses.replace(event, **changes)


# --- sections -------------------------------------------------------------------------------------


def _first(events: list[ev.Event], cls: type[ev.Event]) -> Any:
    return next((e for e in events if isinstance(e, cls)), None)


def _last(events: list[ev.Event], cls: type[ev.Event]) -> Any:
    return next((e for e in reversed(events) if isinstance(e, cls)), None)


def _task_text(config: Mapping[str, Any], events: list[ev.Event]) -> str:
    started = _first(events, ev.RunStarted)
    return started.task if started is not None else str(config.get("task") or "")


def _title(config: Mapping[str, Any], events: list[ev.Event], t: dict[str, str]) -> str:
    from .scenarios import SCENARIOS

    pattern = str(config.get("pattern") or "")
    name = _pattern_title(pattern) if pattern else "Run"
    scenario = SCENARIOS.get(str(config.get("scenario")))
    if scenario is not None:
        subject = scenario.title("zh" if t is _TEXT["zh"] else "en")
    else:
        task = " ".join(_task_text(config, events).split())
        subject = task if len(task) <= 80 else task[:79] + "…"
    s = summary(events)
    line = t["summary" if s.max_llm_calls else "summary_unbound"].format(
        calls=s.llm_calls, bound=s.max_llm_calls, tokens=f"{s.total_tokens:,}", seconds=s.elapsed_s
    )
    return f"# {escape(name)} — {cell(subject) if subject else t['report']}\n\n_{line}_"


def _configuration(config: Mapping[str, Any], models: Mapping[str, str], t: dict[str, str]) -> str:
    from .patterns.registry import LIMITS

    pattern = str(config.get("pattern", ""))
    scenario = config.get("scenario")
    tools = config.get("tools") or []
    rows = [
        (cell(label), cell(value))
        for label, value in (
            (t["pattern"], _pattern_title(pattern)),
            (t["lang"], config.get("lang", "en")),
            (t["scenario"], scenario or t["none"]),
            (t["tools"], ", ".join(map(str, tools)) or t["none"]),
        )
    ]
    texts = set(_spec_of(config).fields)  # the free-text options have sections of their own
    shown = [k for k in config if k not in _SPECIAL and k not in texts and not _SECRET_NAME.search(k)]
    # limits first, in LIMITS order, then toggles and the rest as the config lists them
    ordered = [k for k in LIMITS if k in shown] + [k for k in shown if k not in LIMITS]
    for key in ordered:
        value = config[key]
        if isinstance(value, (dict, list, tuple)):
            continue
        if isinstance(value, bool):
            value = t["on"] if value else t["off"]
        elif value is None:
            value = t["model_default"] if key == "temperature" else "—"
        rows.append((code(key, table=True), cell(value)))
    out = [f"## {t['config']}", "", f"| {t['setting']} | {t['value']} |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in rows]
    if models:
        out += ["", f"### {t['models']}", "", f"| {t['role']} | {t['model']} |", "|---|---|"]
        out += [f"| {cell(role)} | {code(str(name), table=True)} |" for role, name in models.items()]
    lang = str(config.get("lang", "en"))
    for heading, body, fenced in _spec_of(config).report_texts(config, lang):
        out += ["", f"### {heading(lang)}", "", fence(body, fenced) if fenced else quote(body)]
    prompts = config.get("prompts") or {}
    if prompts:
        out += ["", f"### {t['prompts']}"]
        for role, template in prompts.items():
            out += ["", f"**{cell(role)}**", "", fence(str(template))]
    return "\n".join(out)


def _task(config: Mapping[str, Any], events: list[ev.Event], t: dict[str, str]) -> str:
    task = _task_text(config, events)
    return f"## {t['task']}\n\n{quote(task)}" if task.strip() else ""


def _narrative(config: Mapping[str, Any], events: list[ev.Event], t: dict[str, str]) -> str:
    pattern = str(config.get("pattern", ""))
    step_word = _step_word(pattern)
    lang = "python" if _spec_of(config).code_answers(config) else "text"
    out: list[str] = []
    section: int | None = None
    previous: ev.Draft | None = None
    statuses = final_statuses(events)
    hoisted: set[int] = set()
    spec, words = _spec_of(config), "zh" if t is _TEXT["zh"] else "en"
    titled: tuple[Any, ...] | None = None  # the pattern's own block (a vote) whose heading was written last
    for i, e in enumerate(events):
        if isinstance(e, ev.VerdictEvent):
            # a step's result arrives after the verdict on it; the reader wants it before
            judged = _judged_result(events, i)
            if judged is not None:
                j, finished = judged
                hoisted.add(j)
                out.append(f"**{t['result']}**\n\n{quote(_clip(finished.result, PROSE_CHARS, None, t))}")
        if i in hoisted and isinstance(e, ev.StepFinished):
            out.append(f"**{cell(t['finished'].format(id=e.step_id, status=t[_STATUS_KEYS[e.status]]))}**")
            continue
        if isinstance(e, ev.PlanEvent):
            title = t["replan"].format(n=e.revision) if e.revision else t["plan"]
            out += [f"### {title}", _plan_table(e, statuses, t)]
            section = None
            continue
        # an event the pattern draws in a block of its own (a vote over the samples before it) is headed by
        # that block's title, so it does not read as part of the step before it
        own_block = spec.event_block(e)
        if own_block is not None and own_block != titled and (title := spec.block_title(own_block, config, words)):
            out.append(f"### {cell(title)}")
            titled, section = own_block, None
        if e.step is not None and e.step != section and not isinstance(e, (ev.FinalAnswer, ev.RunFinished)):
            section, titled = e.step, None
            key = "iteration0" if step_word == "iteration" and e.step == 0 else step_word
            # a pattern's own step word ("sample") where the report has no heading of its own for it
            own = spec.step_word(words)
            out.append(f"### {t[key].format(n=e.step) if key in t else f'{own[:1].upper()}{own[1:]} {e.step}'}")
        block = _event_block(e, previous, lang, t)
        if isinstance(e, ev.Draft):
            previous = e
        if block:
            out.append(block)
    return f"## {t['narrative']}\n\n" + "\n\n".join(out) if out else ""


def _judged_result(events: list[ev.Event], verdict_at: int) -> tuple[int, ev.StepFinished] | None:
    """The accepted or retried `step_finished` a verdict leads to, and its index, if any."""
    for j in range(verdict_at + 1, len(events)):
        e = events[j]
        if isinstance(e, ev.StepFinished):
            return (j, e) if e.status in ("done", "retried") and e.result.strip() else None
        if not isinstance(e, (ev.LlmCall, ev.LimitReached)):
            return None
    return None


def _event_block(e: ev.Event, previous: ev.Draft | None, lang: str, t: dict[str, str]) -> str:
    """The Markdown of one narrative event ("" for events told elsewhere)."""
    if isinstance(e, ev.Thought):
        return f"**{t['thought']}**\n\n{quote(_clip(e.text, PROSE_CHARS, None, t))}"
    if isinstance(e, ev.ToolCallEvent):
        args = e.arguments if isinstance(e.arguments, str) else json.dumps(e.arguments, ensure_ascii=False)
        return f"**{t['tool_call']}** {code(e.name)}\n\n{fence(_clip(args, TOOL_OUTPUT_CHARS, None, t), 'json')}"
    if isinstance(e, ev.ToolResult):
        label = t["result_error"] if e.is_error else t["result"]
        return f"**{label}** {code(e.name)}\n\n{fence(_clip(e.output, TOOL_OUTPUT_CHARS, TOOL_OUTPUT_LINES, t))}"
    if isinstance(e, ev.StepStarted):
        # attempts count from 1; only a second or later attempt is worth a note
        attempt = f"{t['(']}{t['attempt'].format(n=e.attempt)}{t[')']}" if e.attempt > 1 else ""
        return f"**{t['started']}{attempt}{t[':']}** {cell(e.description)}"
    if isinstance(e, ev.StepFinished):
        status = t[_STATUS_KEYS[e.status]] if e.status in _STATUS_KEYS else e.status
        head = f"**{cell(t['finished'].format(id=e.step_id, status=status))}**"
        return f"{head}\n\n{quote(_clip(e.result, PROSE_CHARS, None, t))}" if e.result.strip() else head
    if isinstance(e, ev.VerdictEvent):
        return _verdict_block(e, t)
    if isinstance(e, ev.Draft):
        return _draft_block(e, previous, lang, t)
    if isinstance(e, ev.LimitReached):
        return f"**{t['limit']}{t[':']}** {code(e.limit)} = {e.value} — {cell(e.message)}"
    if isinstance(e, ev.RunFailed):
        return f"**{t['failed']}{t[':']}** {code(e.error_type)}\n\n{quote(e.message)}"
    # a kind a pattern added, in its view's words (`lang` here is the code's language: the words' is t's)
    own = event_views.line(e, "zh" if t is _TEXT["zh"] else "en")
    return cell(_clip(own, PROSE_CHARS, None, t)) if own else ""


def _role_label(role: str, t: dict[str, str]) -> str:
    """A role as its pattern names it in the report's language; a name no pattern declares as it is."""
    from .patterns import registry

    found = registry.role(role)
    return found.label("zh" if t is _TEXT["zh"] else "en") if found is not None else role


def _verdict_block(e: ev.VerdictEvent, t: dict[str, str]) -> str:
    parts = [f"**{t['verdict']}{t['(']}{cell(_role_label(e.role, t))}{t[')']}{t[':']}** {code(e.verdict)}"]
    if not e.parsed:
        parts.append(f"_⚠ {t['fallback']}_")
    shown: set[str] = set()
    for key in ("analysis", "suggestion", "feedback"):
        value = getattr(e, key).strip()
        if value and value not in shown:  # parsers often copy the suggestion into the feedback
            shown.add(value)
            parts.append(f"{t[key]}{t[':']}\n\n{quote(_clip(value, PROSE_CHARS, None, t))}")
    return "\n\n".join(parts)


def _draft_block(e: ev.Draft, previous: ev.Draft | None, lang: str, t: dict[str, str]) -> str:
    head = f"**{t['draft'].format(v=e.version)}**"
    if previous is None:
        return f"{head}\n\n{fence(_clip(e.text, DRAFT_CHARS, None, t), lang)}"
    if previous.text == e.text:
        return f"{head} — {t['same'].format(v=previous.version)}"
    stats = diff_stats(previous.text, e.text)
    changes = t["changes"].format(added=stats.added_lines, removed=stats.removed_lines, ratio=stats.changed_ratio)
    diff = _clip(line_diff(previous.text, e.text, previous.version), 10**9, DIFF_LINES, t)
    return f"{head} — {changes}\n\n{fence(diff, 'diff')}"


def final_statuses(events: Iterable[ev.Event]) -> dict[Any, str]:
    """Each plan step's last known status: from `step_finished`, or from a later plan that re-planned it."""
    status: dict[Any, str] = {}
    for e in events:
        if isinstance(e, ev.PlanEvent):
            for n, step in enumerate(e.steps, start=1):
                sid, value = step.get("id", n), str(step.get("status") or "")
                # a plan event shows a step's status at that moment; "pending" says nothing new
                if sid not in status or value not in ("", "pending", "running"):
                    status[sid] = value or status.get(sid, "")
        elif isinstance(e, ev.StepFinished):
            status[e.step_id] = e.status
    return status


def _plan_table(plan: ev.PlanEvent, statuses: Mapping[Any, str], t: dict[str, str]) -> str:
    rows = [f"| # | {t['step_col']} | {t['tool_col']} | {t['critical']} | {t['status']} |", "|---|---|---|---|---|"]
    for n, step in enumerate(plan.steps, start=1):
        sid = step.get("id", n)
        status = statuses.get(sid, "")
        shown = t[_STATUS_KEYS[status]] if status in _STATUS_KEYS else status
        tool = code(str(step["tool"]), table=True) if step.get("tool") else "—"
        critical = t["yes"] if step.get("critical") else ""
        rows.append(f"| {cell(sid)} | {cell(step.get('description', ''))} | {tool} | {critical} | {cell(shown)} |")
    return "\n".join(rows)


def _limits(events: list[ev.Event], t: dict[str, str]) -> str:
    hits = [e for e in events if isinstance(e, ev.LimitReached)]
    if not hits:
        return f"## {t['limits']}\n\n{t['no_limits']}"
    return f"## {t['limits']}\n\n" + "\n".join(f"- {code(e.limit)} = {e.value}: {cell(e.message)}" for e in hits)


def _final(config: Mapping[str, Any], events: list[ev.Event], t: dict[str, str]) -> str:
    answer = _last(events, ev.FinalAnswer)
    if answer is None or not answer.text.strip():
        return f"## {t['final']}\n\n_{t['no_final']}_"
    if _spec_of(config).code_answers(config):
        return f"## {t['final']}\n\n{fence(answer.text, 'python')}"
    return f"## {t['final']}\n\n{quote(answer.text)}"


def _why(events: list[ev.Event], t: dict[str, str]) -> str:
    finished = _last(events, ev.RunFinished)
    if finished is None:
        return f"## {t['why']}\n\n{t['partial']}"
    out = f"## {t['why']}\n\n{t.get(finished.reason, cell(finished.reason))}{t['(']}{code(finished.reason)}{t[')']}"
    failed = _last(events, ev.RunFailed)
    if failed is not None:
        out += f"\n\n{code(failed.error_type)}\n\n{quote(failed.message)}"
    return out


def _metrics(events: list[ev.Event], t: dict[str, str]) -> str:
    usage = role_usage(events)
    if not usage:
        return f"## {t['metrics']}\n\n{t['no_calls']}"
    star = lambda u: "*" if u.estimated else ""  # noqa: E731
    rows = [
        f"| {t['role']} | {t['model']} | {t['calls']} | {t['prompt']} | {t['completion']} | {t['total']} | "
        f"{t['latency']} | {t['mean']} |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for u in usage:
        rows.append(
            f"| {cell(u.role)} | {code(u.model, table=True)} | {u.calls} | {u.prompt_tokens:,}{star(u)} | "
            f"{u.completion_tokens:,}{star(u)} | {u.total_tokens:,}{star(u)} | {u.latency_ms_total:,.1f} | "
            f"{u.latency_ms_mean:,.1f} |"
        )
    s = summary(events)
    rows.append(
        f"| **{t['all']}** | | **{s.llm_calls}** | **{s.prompt_tokens:,}** | **{s.completion_tokens:,}** | "
        f"**{s.total_tokens:,}** | **{s.latency_ms:,.1f}** | |"
    )
    note = f"\n\n_{t['estimated']}_" if any(u.estimated for u in usage) else ""
    return f"## {t['metrics']}\n\n" + "\n".join(rows) + note
