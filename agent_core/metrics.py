"""What a run cost: LLM calls, tokens and latency per role, a timeline of calls, and one summary per run.

Works on any list of events, finished or not: a partial run (no `run_finished`) is summarised as far
as it got. The plain-Python views (`summary`, `role_usage`, `spans`) need nothing else; the DataFrame
and figure builders import pandas and plotly only when called, so `import agent_core` stays light.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from . import event_views
from . import events as ev

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go


# --- per role -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoleUsage:
    """The calls one role made on one model."""

    role: str
    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    latency_ms_total: float
    latency_ms_mean: float
    #: True when any of these counts is an estimate (the server sent no usage)
    estimated: bool


def role_usage(events: Iterable[ev.Event]) -> list[RoleUsage]:
    """Usage per (role, model), in the order the roles were first called."""
    groups: dict[tuple[str, str], list[ev.LlmCall]] = {}
    for e in events:
        if isinstance(e, ev.LlmCall):
            groups.setdefault((e.role, e.model), []).append(e)
    out = []
    for (role, model), calls in groups.items():
        prompt = sum(c.prompt_tokens for c in calls)
        completion = sum(c.completion_tokens for c in calls)
        latency = sum(c.latency_ms for c in calls)
        out.append(
            RoleUsage(
                role,
                model,
                len(calls),
                prompt,
                completion,
                prompt + completion,
                round(latency, 1),
                round(latency / len(calls), 1),
                any(c.usage_estimated for c in calls),
            )
        )
    return out


ROLE_COLUMNS = tuple(RoleUsage.__dataclass_fields__)


def by_role(events: Iterable[ev.Event]) -> pd.DataFrame:
    """One row per role and model: calls, tokens, total and mean latency, estimated flag."""
    import pandas as pd

    return pd.DataFrame([asdict(u) for u in role_usage(events)], columns=list(ROLE_COLUMNS))


# --- timeline -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    """One LLM call or tool call on the run's clock (seconds since the run started)."""

    kind: str  # "llm" or "tool"
    name: str  # the role, or the tool's name
    label: str
    start_s: float
    end_s: float
    step: int | None = None
    error: bool = False
    #: False for a tool call whose result never came (the run stopped while it ran)
    finished: bool = True

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s


def spans(events: Iterable[ev.Event]) -> list[Span]:
    """LLM calls and tool calls as time spans, ordered by start.

    `llm_call` is emitted when a call ends, so it starts `latency_ms` earlier; a tool call runs from
    its `tool_call` event to the matching `tool_result`.
    """
    out: list[Span] = []
    open_calls: list[ev.ToolCallEvent] = []
    last_t = 0.0
    for e in events:
        last_t = max(last_t, e.t)
        if isinstance(e, ev.LlmCall):
            tokens = e.prompt_tokens + e.completion_tokens
            estimate = " (est.)" if e.usage_estimated else ""
            label = f"{e.role} · {e.model} · {tokens} tokens{estimate} · {e.latency_ms:g} ms"
            out.append(Span("llm", e.role, label, max(0.0, e.t - e.latency_ms / 1000), e.t, e.step))
        elif isinstance(e, ev.ToolCallEvent):
            open_calls.append(e)
        elif isinstance(e, ev.ToolResult):
            call = _pop_call(open_calls, e)
            start = call.t if call is not None else e.t
            label = f"{e.name}({_short_args(call.arguments) if call is not None else ''})"
            label += " → error" if e.is_error else ""
            out.append(Span("tool", e.name, label, start, e.t, e.step, e.is_error))
    for call in open_calls:
        out.append(
            Span(
                "tool",
                call.name,
                f"{call.name}({_short_args(call.arguments)}) …",
                call.t,
                last_t,
                call.step,
                finished=False,
            )
        )
    return sorted(out, key=lambda s: (s.start_s, s.end_s))


def _pop_call(open_calls: list[ev.ToolCallEvent], result: ev.ToolResult) -> ev.ToolCallEvent | None:
    """The call this result answers: same call id, else the oldest open call of that tool."""
    for match in (lambda c: bool(result.call_id) and c.call_id == result.call_id, lambda c: c.name == result.name):
        for i, call in enumerate(open_calls):
            if match(call):
                return open_calls.pop(i)
    return None


def _short_args(arguments: Any, limit: int = 60) -> str:
    if isinstance(arguments, dict):
        text = ", ".join(f"{k}={v}" for k, v in arguments.items())
    else:
        text = "" if arguments is None else str(arguments)
    return text if len(text) <= limit else text[: limit - 1] + "…"


TIMELINE_COLUMNS = ("kind", "name", "label", "start_s", "end_s", "duration_s", "step", "error", "finished")


def timeline(events: Iterable[ev.Event]) -> pd.DataFrame:
    """One row per LLM call and tool call: kind, name (role or tool), label, start/end seconds."""
    import pandas as pd

    rows = [{**asdict(s), "duration_s": s.duration_s} for s in spans(events)]
    return pd.DataFrame(rows, columns=list(TIMELINE_COLUMNS))


STEP_COLUMNS = ("step", "roles", "calls", "prompt_tokens", "completion_tokens", "total_tokens", "cumulative_tokens")


def tokens_per_step(events: Iterable[ev.Event]) -> pd.DataFrame:
    """Tokens per step, one row per run of consecutive LLM calls in the same step (so a re-plan
    between two steps keeps its own row); `step` is None for run-level calls such as planning."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    total = 0
    for e in events:
        if not isinstance(e, ev.LlmCall):
            continue
        total += e.prompt_tokens + e.completion_tokens
        if not rows or rows[-1]["step"] != e.step:
            rows.append({"step": e.step, "roles": [], "calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
        row = rows[-1]
        if e.role not in row["roles"]:
            row["roles"].append(e.role)
        row["calls"] += 1
        row["prompt_tokens"] += e.prompt_tokens
        row["completion_tokens"] += e.completion_tokens
        row["total_tokens"] = row["prompt_tokens"] + row["completion_tokens"]
        row["cumulative_tokens"] = total
    for row in rows:
        row["roles"] = ", ".join(row["roles"])
    frame = pd.DataFrame(rows, columns=list(STEP_COLUMNS))
    frame["step"] = frame["step"].astype("Int64")
    return frame


# --- one run in one row ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSummary:
    """The numbers of one run, for comparison tables and the CLI."""

    pattern: str = ""
    llm_calls: int = 0
    #: the run's bound on LLM calls (from `run_started`), 0 if unknown
    max_llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    usage_estimated: bool = False
    latency_ms: float = 0.0
    elapsed_s: float = 0.0
    tool_calls: int = 0
    tool_errors: int = 0
    #: verdict -> count, e.g. {"REPLAN": 1, "RETRY": 1, "PASS": 1}
    verdicts: dict[str, int] = field(default_factory=dict)
    #: verdicts that fell back to a default because the reply could not be parsed
    fallback_verdicts: int = 0
    drafts: int = 0
    #: what the patterns' own event kinds count (event_views), e.g. {"tree_nodes": 5, "tree_solved": 1}
    counts: dict[str, int] = field(default_factory=dict)
    limits: tuple[str, ...] = ()
    #: why the run ended (events.END_REASONS); None while it has no `run_finished`
    end_reason: str | None = None
    error: str = ""
    final_answer_chars: int = 0

    @property
    def finished(self) -> bool:
        return self.end_reason is not None

    def row(self) -> dict[str, Any]:
        """A flat dict for a table: verdict counts become `verdicts_<VERDICT>` columns, the patterns' own counts
        `count_<name>` columns."""
        out = {k: v for k, v in asdict(self).items() if k not in ("verdicts", "limits", "counts")}
        out["limits"] = ", ".join(self.limits)
        out.update({f"count_{name}": n for name, n in self.counts.items()})
        out.update({f"verdicts_{v}": self.verdicts.get(v, 0) for v in ev.VERDICTS})
        return out


def summary(events: Iterable[ev.Event]) -> RunSummary:
    """Count a run's calls, tokens, tools, verdicts and drafts; works on partial runs."""
    events = list(events)
    calls = [e for e in events if isinstance(e, ev.LlmCall)]
    results = [e for e in events if isinstance(e, ev.ToolResult)]
    verdicts = [e for e in events if isinstance(e, ev.VerdictEvent)]
    started = next((e for e in events if isinstance(e, ev.RunStarted)), None)
    finished = next((e for e in reversed(events) if isinstance(e, ev.RunFinished)), None)
    failed = next((e for e in reversed(events) if isinstance(e, ev.RunFailed)), None)
    answer = next((e for e in reversed(events) if isinstance(e, ev.FinalAnswer)), None)
    prompt = sum(c.prompt_tokens for c in calls)
    completion = sum(c.completion_tokens for c in calls)
    if finished is not None:
        elapsed = finished.elapsed_ms / 1000
    else:
        elapsed = max((e.t for e in events), default=0.0)
    return RunSummary(
        pattern=started.pattern if started else "",
        llm_calls=len(calls),
        max_llm_calls=started.max_llm_calls if started else 0,
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        usage_estimated=any(c.usage_estimated for c in calls),
        latency_ms=round(float(sum(c.latency_ms for c in calls)), 1),
        elapsed_s=round(elapsed, 3),
        tool_calls=sum(1 for e in events if isinstance(e, ev.ToolCallEvent)),
        tool_errors=sum(1 for e in results if e.is_error),
        verdicts=dict(Counter(v.verdict for v in verdicts)),
        fallback_verdicts=sum(1 for v in verdicts if not v.parsed),
        drafts=sum(1 for e in events if isinstance(e, ev.Draft)),
        counts=event_views.counts(events),
        limits=tuple(e.limit for e in events if isinstance(e, ev.LimitReached)),
        end_reason=finished.reason if finished else None,
        error=f"{failed.error_type}: {failed.message}" if failed else "",
        final_answer_chars=len(answer.text) if answer else 0,
    )


def compare_table(summaries: Mapping[str, RunSummary]) -> pd.DataFrame:
    """One row per lane (the mapping's keys become the `lane` column)."""
    import pandas as pd

    return pd.DataFrame([{"lane": lane, **s.row()} for lane, s in summaries.items()])


# --- figures --------------------------------------------------------------------------------------

_TEXT = {
    "en": {
        "llm": "LLM call",
        "tool": "tool call",
        "error": "tool error",
        "x": "seconds since the run started",
        "empty": "no calls yet",
        "calls": "LLM calls",
        "tokens": "tokens",
        "tokens_est": "tokens (estimated)",
        "seconds": "seconds",
    },
    "zh": {
        "llm": "LLM 调用",
        "tool": "工具调用",
        "error": "工具出错",
        "x": "自运行开始的秒数",
        "empty": "暂无调用",
        "calls": "LLM 调用次数",
        "tokens": "token 数",
        "tokens_est": "token 数（估算）",
        "seconds": "耗时（秒）",
    },
}
_COLORS = {"llm": "#4C78A8", "tool": "#F58518", "error": "#E45756"}
_LANE_COLORS = ("#4C78A8", "#F58518", "#54A24B", "#B279A2", "#E45756", "#72B7B2", "#EECA3B", "#9D755D")


def empty_figure(message: str, height: int = 200) -> go.Figure:
    """A blank chart that says why it is blank (no calls, no results yet)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
    fig.update_layout(xaxis={"visible": False}, yaxis={"visible": False}, height=height)
    return fig


def timeline_figure(events: Iterable[ev.Event], lang: str = "en") -> go.Figure:
    """Horizontal bars per role and tool over the run's seconds."""
    import plotly.graph_objects as go

    text = _TEXT.get(lang, _TEXT["en"])
    items = spans(events)
    fig = go.Figure()
    if not items:
        return empty_figure(text["empty"], height=200)
    end = max(s.end_s for s in items)
    # Offline calls and mock tools take microseconds; give every bar a sliver of width so it shows.
    # The hover text keeps the true start and end.
    least = max(end, 1e-3) * 0.005
    groups = {
        "llm": [s for s in items if s.kind == "llm"],
        "tool": [s for s in items if s.kind == "tool" and not s.error],
        "error": [s for s in items if s.kind == "tool" and s.error],
    }
    for key, group in groups.items():
        if not group:
            continue
        fig.add_trace(
            go.Bar(
                name=text[key],
                orientation="h",
                y=[s.name for s in group],
                base=[s.start_s for s in group],
                x=[max(s.duration_s, least) for s in group],
                marker_color=_COLORS[key],
                customdata=[[s.label, s.start_s, s.end_s] for s in group],
                hovertemplate="%{customdata[0]}<br>%{customdata[1]:.3f} s → %{customdata[2]:.3f} s<extra></extra>",
            )
        )
    names = list(dict.fromkeys(s.name for s in items))
    fig.update_layout(
        barmode="overlay",
        xaxis_title=text["x"],
        height=140 + 32 * len(names),
        yaxis={"categoryorder": "array", "categoryarray": names[::-1]},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"},
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
    )
    return fig


def cost_figure(summaries: Mapping[str, RunSummary], lang: str = "en") -> go.Figure:
    """LLM calls, tokens and seconds per lane, side by side."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    text = _TEXT.get(lang, _TEXT["en"])
    lanes = list(summaries)
    estimated = any(s.usage_estimated for s in summaries.values())
    titles = (text["calls"], text["tokens_est"] if estimated else text["tokens"], text["seconds"])
    fig = make_subplots(rows=1, cols=3, subplot_titles=titles)
    colors = [_LANE_COLORS[i % len(_LANE_COLORS)] for i in range(len(lanes))]
    columns = (("llm_calls", "%{y}"), ("total_tokens", "%{y:,}"), ("elapsed_s", "%{y:.2f} s"))
    for col, (attr, fmt) in enumerate(columns, start=1):
        fig.add_trace(
            go.Bar(
                x=lanes,
                y=[getattr(summaries[lane], attr) for lane in lanes],
                marker_color=colors,
                showlegend=False,
                hovertemplate=f"%{{x}}: {fmt}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    fig.update_layout(height=320, margin={"l": 10, "r": 10, "t": 40, "b": 40})
    return fig
