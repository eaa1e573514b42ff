"""THE renderer of run events. A `RunView` draws one run into the current container: live, event by
event as the core yields them, or all at once from stored events (redraw, Replay, Compare). Both
paths make the same calls in the same order, so a redrawn run looks like the live one.

Layout, top to bottom: the head (headline.py: every verdict as a badge, the newest feedback, the
run's latest change as a diff); counters (LLM calls against the bound, tokens, time); the pattern's graph
with the active node; a side table that changes as the run goes (the plan's step statuses, the
drafts, or the tools used); one block per round / plan / step attempt / draft / critique holding
what happened in it (blocks.py decides which and what they are called); the ending. A live block
is an st.status whose label and state change as it goes; a redrawn one is an st.expander drawn
once with the status's final label and icon (st.status sleeps 50 ms per block, which a redraw of
a long run cannot afford). Live-only work — streamed tokens, "running…" slots, counter refreshes —
is skipped on redraw.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from agent_core import events as ev
from agent_core.calls import MessageTable
from agent_core.diffing import MAX_DIFF_WORK, Budget, diff_stats
from agent_core.patterns.registry import LIMITS

from . import call_views, diff_view, figures, graphs, i18n, tables, text
from .blocks import Block, Blocks, Versions, final_blocks, final_looks, tool_name
from .catalogue import limit_label
from .headline import Headline
from .slots import slot

VERDICT_LOOK = {
    "PASS": ("green", ":material/check_circle:"),
    "REVISE": ("orange", ":material/edit_note:"),
    "RETRY": ("orange", ":material/replay:"),
    "REPLAN": ("orange", ":material/alt_route:"),
    "DONE": ("green", ":material/check_circle:"),
    "REDISPATCH": ("orange", ":material/call_split:"),
}
#: how a run ended -> its badge colour (the words are the catalogue's [render.end] and [render.end_line])
ENDING_COLORS = {
    "answer": "green",
    "pass": "green",
    "cap": "orange",
    "budget": "orange",
    "stop": "gray",
    "error": "red",
}
STEP_ICONS = {
    "pending": ":material/schedule:",
    "running": ":material/play_circle:",
    "done": ":material/check_circle:",
    "failed": ":material/cancel:",
    "retried": ":material/replay:",
    "replanned": ":material/alt_route:",
    "skipped": ":material/skip_next:",
}
#: the icons st.status shows per state, for redrawn blocks
STATE_ICONS = {
    "running": ":material/progress_activity:",
    "complete": ":material/check:",
    "error": ":material/error:",
    "sent_back": ":material/alt_route:",
}
#: st.status knows no amber state: a step sent back shows as complete while live, its label says REPLAN
LIVE_STATES = {"sent_back": "complete"}
TOOL_OUTPUT_CHARS = 1500
STEP_RESULT_CHARS = 800
#: A redraw draws this many blocks at most (a page); the others are counted but not drawn, so a
#: 20,000-event trace redraws in the time of a short one. The latest page is shown first.
PAGE_BLOCKS = 50
#: ... and a page holds at most this many drawn events (a folded block counts what it can draw).
PAGE_EVENTS = 300
#: A block of more than FOLD_HEAD + FOLD_WINDOW + FOLD_TAIL events is folded on redraw: its first
#: FOLD_HEAD and last FOLD_TAIL events are drawn, and between them FOLD_WINDOW of the rest, chosen in
#: a picker. One step that holds 20,000 verdicts then costs what forty do (it took 115 s whole).
FOLD_HEAD, FOLD_WINDOW, FOLD_TAIL = 10, 20, 10
#: Events of the run's ending drawn (answers, limits, failures, finishes); more are counted.
END_EVENTS = 12
#: Characters of one body drawn (a thought, a verdict's words, a draft, an answer); the rest is cut
#: with a note saying how much (the downloads hold all of it).
BODY_CHARS = 50_000
#: Rows of a plan drawn, in its block and in the side table; and rows of the side table's drafts and tools.
PLAN_ROWS = SIDE_ROWS = 100
#: Element comparisons all the diffs of one view may spend: two costly diffs.
DIFF_BUDGET = 2 * MAX_DIFF_WORK


#: the shortest time between two paints of streamed text, in seconds
TOKEN_PAINT_S = 0.1
#: the shortest time between two refreshes of a live view's counters and side table, in seconds
REFRESH_S = 0.2


@dataclass(frozen=True)
class Pace:
    """How often a live view redraws what changes all the time: the streamed text (`tokens`, seconds
    between paints), the counters and side table (`refresh`), and whether each move of the graph is
    drawn at once (`moves`) or waits for the next refresh. A person's own run shows every move; a room's
    seat, one of forty drawing the same run on one server, draws less often."""

    tokens: float = TOKEN_PAINT_S
    refresh: float = REFRESH_S
    moves: bool = True


def words(lang: str | None = None) -> dict[str, str]:
    """The run view's texts (locales/*.toml, table [render]) in `lang`, default the page's."""
    return i18n.words("render", lang)


def ending(reason: str, lang: str | None = None) -> tuple[str, str, str]:
    """How a run ended, as (badge label, colour, one line); a reason this app does not know, as it is."""
    w = words(lang)
    if reason in ENDING_COLORS:
        return w[f"end.{reason}"], ENDING_COLORS[reason], w[f"end_line.{reason}"]
    return text.badge(reason), "gray", ""


def _call_marks(e: ev.LlmCall, w: dict[str, str]) -> None:
    """A visible mark on a call cut at max_output_tokens, and the kept text of an unfinished one."""
    if e.cut_at_cap:
        st.badge(w["cut"], color="orange", icon=":material/content_cut:", help=w["cut_help"])
    if e.partial_text:
        st.badge(w["unfinished"], color="red", icon=":material/link_off:", help=w["unfinished_help"])
        st.code(text.clip(e.partial_text, 1500), language=None, wrap_lines=True)


class RunView:
    """Draws one run. Call `add(event)` for every event in order, then `close()`. Its labels speak the
    page's language (the sidebar's), whatever language the run itself was in.

    `looks` — (label, state) per block, from blocks.final_looks — makes it a redraw. `compact` puts
    the counters in two rows, for narrow columns (Compare's lanes). `pace` spaces a live view's paints.
    """

    def __init__(
        self,
        config: Mapping[str, Any],
        *,
        bound: int,
        key: str,
        task: str = "",
        diff_layout: str = "inline",
        looks: list[tuple[str, str]] | None = None,
        compact: bool = False,
        recorded: int = 0,
        call_actions: Callable[[Any, int, ev.LlmCall], None] | None = None,
        sizes: list[int] | None = None,
        pace: Pace = Pace(),
    ) -> None:
        self.config = dict(config)
        self.pace = pace
        self._moved = False  # the graph moved since its last drawing
        #: events per block (blocks.final_blocks), for a redraw: long blocks are folded, pages weighed
        self.sizes = sizes
        self._ordinal: dict[int, int] = {}  # block index -> events of it seen so far
        self._window: dict[int, int] = {}  # folded block index -> the first event of the window drawn
        self._ends = 0  # ending events drawn, and counted past END_EVENTS
        self._keys: dict[str, int] = {}  # keyed boxes made so far (a file may repeat a draft version)
        self._rows: dict[Any, list[Any]] = {}  # rows of blocks drawn side by side, by the pattern's row key
        #: a fork's first `recorded` calls were served from its parent's record: they are marked so
        self.recorded, self.call_actions = recorded, call_actions
        self.table = MessageTable()
        self.compact = compact
        self.bound, self.key, self.diff_layout = bound, key, diff_layout
        self.looks, self.live = looks, looks is None
        self.lang = i18n.lang()
        self.w = words(self.lang)
        #: blocks drawn by `catch_up` as a redraw would: expanders, which have no live label or state
        self._static: set[int] = set()
        self.blocks = Blocks(self.config, self.lang)
        self.code = self.blocks.spec.code_answers(self.config)
        #: the summary beside the graph: plan, drafts or tools (from the pattern's spec)
        self.summary = self.blocks.spec.summary
        self.shown: dict[int, tuple[str, str]] = {}
        self.calls = self.tokens = self.n = self.thoughts = 0
        self.estimated = False
        self.elapsed = 0.0
        self.reason: str | None = None
        self.active: str | None = None
        self.visited: list[str] = []
        self.drafts = Versions()
        self.draft_rows: list[dict[str, Any]] = []
        self.plan: list[dict[str, Any]] = []
        self._steps: dict[Any, list[dict[str, Any]]] = {}  # step id -> its rows of the plan
        self.tool_rows: dict[str, list[int]] = {}
        self.tool_slots: dict[str, tuple[Any, ev.ToolCallEvent]] = {}
        self.raw: dict[str, str] = {}
        self.final: str | None = None
        #: events of the kinds the pattern added whose views draw a figure (a search tree), by kind
        self.own: dict[str, list[ev.Event]] = {}
        self._own_dirty = False
        self._side_dirty = False
        self._painted = 0.0
        self._refreshed, self._stale = 0.0, False
        self._holding = False  # inside add_all: refreshes wait for the end of the batch

        if task:
            st.markdown(self.w["task"].format(task=text.inline(task, 400)))
        # verdict first: the trail and the latest diff lead, counters and graph come after
        self.head = Headline(
            key,
            spec=self.blocks.spec,
            lang=self.lang,
            code=self.code,
            diff_layout=diff_layout,
            diff=not compact,
            live=self.live,
        )
        # (the figure: the pattern's own picture, if its events draw one — a search tree as it grows)
        self._counters, self._graph, self._figure, self._side = (slot(self.live) for _ in range(4))
        #: blocks drawn on redraw (a page of them); the others only count. `hide_before` (live views)
        #: leaves blocks below that index undrawn: Play starts a long run from its middle that way.
        self.window = self._page() if looks is not None else None
        self.hide_before = 0
        # every diff of the view draws on one budget, so a page of a hundred costly drafts costs no
        # more than a few; drafts off the page are diffed the linear way at once (their table row)
        self._budget = Budget(DIFF_BUDGET)
        self._rough = Budget(0)
        self._flow = st.container(key=f"{key}-flow")
        self._end = st.container(key=f"{key}-end")
        if self.live:
            self._refresh(graph=True)

    # --- the one entry point ----------------------------------------------------------------------
    def add(self, event: ev.Event) -> None:
        """Draw one event."""
        self.elapsed = max(self.elapsed, event.t)
        node = graphs.node_for(event, self.config, self.active)
        moved = node is not None and node != self.active
        if moved:
            self.active = node
            if node not in self.visited:
                self.visited.append(node)
        opened = len(self.blocks.items)
        block = self.blocks.place(event)
        if len(self.blocks.items) > opened:
            if opened:
                self._sync(self.blocks.items[opened - 1])
            self._create(self.blocks.items[-1])
        hidden = block is not None and (block.box is None or self._folded(block))
        if block is None and not self.live and not isinstance(event, ev.RunStarted):
            self._ends += 1
            hidden = self._ends > END_EVENTS  # a file of 20,000 answers draws a dozen
        if hidden:
            self._count(event, block)  # off the page, folded or past the ending's bound: it counts, nothing is drawn
        else:
            getattr(self, "_on_" + event.kind, self._on_own)(event, block)
        self.blocks.note(event, block)
        self.head.see(event)  # drawn at once when live, at close() on a redraw
        if self.live and not hidden:  # (the next drawn event refreshes the counters for them)
            if block is not None:
                self._sync(block)
            if self.blocks.current is not None and self.blocks.current is not block:
                self._sync(self.blocks.current)  # the ending settles the last block
            if event.kind != "token" or moved:
                self._refresh_soon(graph=moved)
            self.head.paint()

    def point_at(self, event: ev.Event, draw: bool = True) -> None:
        """Light the graph node `event` belongs to: in step mode, the node about to run. Drawn with
        whatever else is stale, in one refresh, at once or (`draw=False`) at the next `tick()`."""
        node = graphs.node_for(event, self.config, self.active)
        if node is not None and node != self.active:
            self.active = node
            self._moved = self._stale = True
            if draw:
                self.flush()

    def add_all(self, events: Iterable[ev.Event], settle: bool = True) -> None:
        """Draw `events` in order; the counters, graph and side table once after them, at the view's
        pace, not mid-way (a seat's look brings a call, its draft and a pause at once). `settle=False`
        leaves that refresh to the caller's next `tick()` or `flush()`."""
        self._holding = True
        try:
            for event in events:
                self.add(event)
        finally:
            self._holding = False
        if settle and self._stale:
            self._refresh_soon(graph=False)

    def catch_up(self, events: Iterable[ev.Event]) -> None:
        """Draw what a live run made before this script run — a rerun in the middle of a run that lives
        in its own thread — the quick way a redraw does, then go on live. A live block costs Streamlit
        a pause per block; a rerun after every Step must not. Blocks drawn so keep their look."""
        events = list(events)
        if not self.live or not events:
            return
        self.looks, self.live = final_looks(self.config, events), False
        self.add_all(events)
        self.looks, self.live = None, True
        self._static = {b.index for b in self.blocks.items}
        self._refresh(graph=True)
        self.head.paint()

    def close(self) -> None:
        """Finish the drawing: settle the last block, unfinished tools, counters, graph, side table."""
        if self.blocks.current is not None:
            if self.blocks.current.box is not None:
                self._cut_stream(self.blocks.current)
            self.blocks.settle(self.blocks.current)
            self._sync(self.blocks.current)
        for place, call in self.tool_slots.values():
            place.markdown(f"{_tool_line(call, self.w)} · {self.w['no_result']}")
        self.tool_slots.clear()
        if self.final is None and self.drafts and self.reason in ("stop", "error"):
            version = self.drafts.latest
            with self._end.container(border=True, key=f"{self.key}-latest-draft"):
                st.markdown(self.w["latest_draft"].format(version=version))
                self._text_block(self.drafts.texts[version])
        if self._ends > END_EVENTS:
            self._end.caption(":material/unfold_less: " + self.w["fold.ends"].format(n=f"{self._ends - END_EVENTS:,}"))
        self._refresh(graph=True)
        self.head.paint()

    # --- blocks -----------------------------------------------------------------------------------
    def _create(self, block: Block) -> None:
        if block.index < self.hide_before or (self.window is not None and block.index not in self.window):
            return  # off the page: block.box stays None
        place = self._place_of(block)
        if self.live:
            block.box = place.status(block.label, expanded=True, state=LIVE_STATES.get(block.state, block.state))
            self.shown[block.index] = (block.label, "running")
        else:
            label, state = self.looks[block.index] if block.index < len(self.looks) else (block.label, "complete")
            block.box = place.expander(label, expanded=True, icon=STATE_ICONS[state])

    def _place_of(self, block: Block) -> Any:
        """Where a block is drawn: below the last one, or in its column of a row of blocks side by side
        (the pattern's `block_lane`: samples drawn as lanes). A narrow Compare lane stacks them. A block drawn
        below ends the rows above it, so a row named again after it (the next round's workers) opens under it."""
        lane = None if self.compact else self.blocks.spec.block_lane(block.ident, self.config)
        if lane is None:
            self._rows.clear()
            return self._flow
        row, column, columns = lane
        if row not in self._rows:
            self._rows[row] = self._flow.columns(max(1, columns), gap="small")
        cells = self._rows[row]
        return cells[min(max(column, 0), len(cells) - 1)]

    def _sync(self, block: Block) -> None:
        """Show a live block's current label and state, if they changed."""
        look = (block.label, block.state)
        if (
            self.live
            and block.box is not None
            and self.shown.get(block.index) != look
            and block.index not in self._static
        ):
            block.box.update(label=look[0], state=LIVE_STATES.get(look[1], look[1]), expanded=True)
            self.shown[block.index] = look

    # --- events -----------------------------------------------------------------------------------
    def _on_run_started(self, e: ev.RunStarted, _block: Block | None) -> None:
        self.bound = e.max_llm_calls or self.bound

    def _on_token(self, e: ev.Token, block: Block) -> None:
        block.stream_more(e.text)
        if not self.live:
            return
        # Each paint re-sends the call's whole text so far: at most pace.tokens apart, so a long
        # reply costs the server (and 30 sessions on one box) linear, not quadratic, work. The last
        # partial paint is replaced by the call's caption when it ends, so nothing is lost.
        now = time.monotonic()
        if block.stream is None:
            block.stream = block.box.empty()
        elif now - self._painted < self.pace.tokens:
            return
        self._painted = now
        block.stream.code(block.streamed, language=None, wrap_lines=True)

    def _on_llm_call(self, e: ev.LlmCall, block: Block) -> None:
        self.calls += 1
        self.tokens += e.prompt_tokens + e.completion_tokens
        self.estimated |= e.usage_estimated
        self.raw[e.role] = block.streamed
        slot = block.stream if block.stream is not None else block.box.empty()
        block.stream, block.streamed = None, ""
        approx = "~" if e.usage_estimated else ""
        self.table.add(e)
        with slot.container():
            st.caption(
                ":material/smart_toy: "
                + self.w["call"].format(
                    role=call_views.role_name(e.role, self.lang),
                    model=text.inline(e.model, 60),
                    prompt=f"{approx}{e.prompt_tokens:,}",
                    completion=f"{approx}{e.completion_tokens:,}",
                    seconds=f"{e.latency_ms / 1000:.2f}",
                )
            )
            _call_marks(e, self.w)
            if e.reply_message is None:  # a format-1 trace: no call record to show
                return
            row = call_views.call_views(st, self.table, e, self.lang, f"{self.key}-call-{self.calls}")
            if self.calls <= self.recorded:
                row.badge(self.w["recorded"], color="gray", icon=":material/history:", help=self.w["recorded_help"])
            if self.call_actions is not None:
                self.call_actions(row, self.calls, e)

    def _on_thought(self, e: ev.Thought, block: Block) -> None:
        # keyed as the model's text (like drafts and replies), so a reader can tell it from the page's labels
        self.thoughts += 1
        block.box.container(key=f"{self.key}-thought-{self.thoughts}").markdown(
            f":material/psychology: {text.escape(text.clip(e.text, BODY_CHARS))}"
        )

    def _on_tool_call(self, e: ev.ToolCallEvent, block: Block) -> None:
        slot = block.box.empty()
        self.tool_slots[e.call_id or f"{e.name}#{len(self.tool_slots)}"] = (slot, e)
        if self.live:
            slot.markdown(f"{_tool_line(e, self.w)} · {self.w['running_tool']}")

    def _on_tool_result(self, e: ev.ToolResult, block: Block) -> None:
        found = self.tool_slots.pop(e.call_id, None) if e.call_id else None
        if found is None:  # servers without call ids: the oldest open call of that tool
            match = next((k for k, (_, c) in self.tool_slots.items() if c.name == e.name), None)
            found = self.tool_slots.pop(match) if match is not None else None
        slot, call = found if found is not None else (block.box.empty(), ev.ToolCallEvent(name=e.name))
        row = self.tool_rows.setdefault(e.name, [0, 0])
        row[0] += 1
        row[1] += int(e.is_error)
        self._side_dirty = True
        with slot.container():
            st.markdown(_tool_line(call, self.w))
            output = text.clip(e.output, TOOL_OUTPUT_CHARS)
            if e.name == "unit_tests":
                head, _, rest = output.partition("\n")
                (st.error if e.is_error else st.success)(text.escape(head), icon=":material/science:")
                if rest.strip():
                    st.code(rest.strip(), language=None, wrap_lines=True)
            elif e.is_error:  # an observation the model reads, not a failure of the app: amber, and code
                st.badge(self.w["tool_error"], color="orange", icon=":material/error:")
                st.code(output, language="json" if text.looks_like_json(output) else None, wrap_lines=True)
            else:
                st.code(output, language="json" if text.looks_like_json(output) else None, wrap_lines=True)

    def _on_plan(self, e: ev.PlanEvent, block: Block) -> None:
        self._set_plan(e.steps)
        lines = []
        for s in e.steps[:PLAN_ROWS]:
            tool = self.w["plan_tool"].format(tool=text.code_span(text.flat(s["tool"], 60))) if s.get("tool") else ""
            critical = self.w["plan_critical"] if s.get("critical") else ""
            icon = STEP_ICONS.get(s.get("status", "pending"), "")
            lines.append(
                f"{text.inline(str(s.get('id')), 40)}. {icon} {text.inline(s.get('description', ''), 300)}"
                f"{tool}{critical}"
            )
        if len(e.steps) > PLAN_ROWS:
            lines.append(self.w["fold.more_steps"].format(n=f"{len(e.steps) - PLAN_ROWS:,}"))
        block.box.markdown("  \n".join(lines) or self.w["empty_plan"])

    def _on_step_started(self, e: ev.StepStarted, _block: Block) -> None:
        self._set_status(e.step_id, "running")

    def _on_step_finished(self, e: ev.StepFinished, block: Block) -> None:
        shown = text.escape(text.clip(e.result, STEP_RESULT_CHARS)) if e.result else ""
        if e.status == "failed":  # a verdict sent it back: amber, for red is kept for real errors
            block.box.warning(self.w["step_failed"].format(step=e.step_id, result=shown), icon=":material/alt_route:")
        else:
            icon = STEP_ICONS.get(e.status, ":material/circle:")
            status = self.w.get(f"step_is.{e.status}") or text.inline(e.status)
            block.box.markdown(
                f"{icon} **{self.w['step_status'].format(step=e.step_id, status=status)}**"
                + (f"  \n{shown}" if shown else "")
            )
        self._set_status(e.step_id, e.status)

    def _on_verdict(self, e: ev.VerdictEvent, block: Block) -> None:
        self.n += 1
        color, icon = VERDICT_LOOK.get(e.verdict, ("gray", None))
        known = e.verdict if e.verdict in VERDICT_LOOK else "other"  # a widget key is no place for data
        with block.box.container(key=f"{self.key}-verdict-{self.n}-{known}"):
            row = st.container(horizontal=True, vertical_alignment="center", gap="small")
            row.badge(text.badge(e.verdict), color=color, icon=icon)
            row.markdown(f"**{self.w.get('verdict_role.' + e.role) or call_views.role_name(e.role, self.lang)}**")
            if not e.parsed:
                row.badge(self.w["fallback"], color="gray", icon=":material/warning:", help=self.w["fallback_help"])
            for name, value in (("feedback", e.feedback), ("analysis", e.analysis), ("suggestion", e.suggestion)):
                if value:
                    st.markdown(f"**{self.w[name]}** · {text.escape(text.clip(value, BODY_CHARS))}")
            raw = self.raw.get(e.role, "")
            if not e.parsed and raw.strip():
                st.caption(self.w["unparsed"])
                st.code(text.clip(raw, 1500), language=None, wrap_lines=True)
        if self.draft_rows and self._on_draft_verdict(e.role):
            self.draft_rows[-1]["verdict"] = text.inline(e.verdict, 20)  # a table cell is Markdown
            self._side_dirty = True

    def _on_draft_verdict(self, role: str) -> bool:
        """Whether a verdict in `role` judges the latest draft (so the drafts table shows it)."""
        grammar = self.blocks.spec.role(role)
        return grammar is not None and grammar.verdict_at == "draft"

    def _on_draft(self, e: ev.Draft, block: Block) -> None:
        since = self.drafts.previous(e.version)
        previous = self.drafts.texts[since] if since is not None else None
        budget = self._budget  # the view's cost bound (agent_core.diffing)
        stats = self._draft_row(e, budget)
        with block.box.container(key=self._unique(f"{self.key}-draft-{e.version}")):
            row = st.container(horizontal=True, vertical_alignment="center", gap="small")
            row.badge(self.w["draft"].format(version=e.version), color="blue", icon=":material/description:")
            if stats is not None:
                row.caption(
                    self.w["draft_stats"].format(
                        added=stats.added_lines,
                        removed=stats.removed_lines,
                        ratio=f"{stats.changed_ratio:.0%}",
                        since=since,
                    )
                )
            if previous is None:
                self._text_block(e.text)
                return
            with st.container(key=self._unique(f"{self.key}-diff-{e.version}")):
                self._diff(text.clip(previous, BODY_CHARS), text.clip(e.text, BODY_CHARS), since, e.version, budget)

    def _unique(self, key: str) -> str:
        """`key`, or `key` and a count when a file repeats what names it (two drafts numbered 1)."""
        seen = self._keys.get(key, 0)
        self._keys[key] = seen + 1
        return key if not seen else f"{key}-{seen}"

    def _draft_row(self, e: ev.Draft, budget: Budget) -> Any:
        """Keep the draft and its row in the side table; its diff stats (None for a first draft)."""
        since = self.drafts.add(e.version, e.text)
        previous = self.drafts.texts[since] if since is not None else None
        stats = diff_stats(previous, e.text, budget) if previous is not None else None
        changed = f"{'' if stats.exact else '~'}{stats.changed_ratio:.0%}" if stats else "—"
        self.draft_rows.append(
            {
                "draft": e.version,
                "lines": len(e.text.splitlines()),
                "characters": len(e.text),
                "changed": changed,
                "verdict": "",
            }
        )
        self._side_dirty = True
        return stats

    def _diff(self, old: str, new: str, v_old: int, v_new: int, budget: Budget | None = None) -> None:
        budget = Budget() if budget is None else budget
        w = self.w
        labels = [w["diff_words"], w["diff_lines"], w["draft"].format(version=v_new)]
        words_tab, lines, full = st.tabs(labels, default=labels[1] if self.code else labels[0])
        with words_tab:  # struck / underlined, wrapped, code in monospace (diff_view)
            diff_view.word_diff_block(
                old,
                new,
                code=self.code,
                layout=self.diff_layout,
                budget=budget,
                names=(w["draft"].format(version=v_old), w["draft"].format(version=v_new)),
            )
        with lines:
            diff_view.line_diff_block(old, new, version=v_old, budget=budget)
        if budget.exhausted:
            st.caption(f":material/speed: {w['rough']}")
        with full:
            self._text_block(new)

    def _text_block(self, body: str) -> None:
        body = text.clip(body, BODY_CHARS)
        if self.code:
            st.code(body, language="python")
        else:
            st.markdown(text.escape(body))

    # --- the kinds a pattern adds (agent_core.event_views) ---------------------------------------
    def _on_own(self, e: ev.Event, block: Block | None) -> None:
        """An event of a kind the pattern added: a line in its view's words, and its part of the figure."""
        view = self._keep_own(e)
        if view is not None and block is not None and block.box is not None:
            block.box.caption(text.escape(text.clip(view.line(e, self.lang), BODY_CHARS)))

    def _keep_own(self, e: ev.Event) -> Any:
        """Keep an event of the pattern's own kind for its figure; its view (None for any other event)."""
        view = self.blocks.spec.event_views.get(e.kind)
        if view is not None and view.figure is not None:
            self.own.setdefault(e.kind, []).append(e)
            self._own_dirty = True
        return view

    def _draw_own(self) -> None:
        """The figures of the pattern's own events (a search tree as it grows), under its graph."""
        views = self.blocks.spec.event_views
        drawn = [(views[kind], events) for kind, events in self.own.items() if views[kind].figure is not None]
        if not drawn:
            return
        with self._figure.container():
            for view, events in drawn:
                figures.draw(st, view.figure(events), self.blocks.lang)

    # --- step mode -------------------------------------------------------------------------------
    def _on_paused(self, e: ev.Paused, block: Block | None) -> None:
        w = self.w
        line = w.get(f"paused.{e.at}", w["paused.call"]).format(
            call=e.call, role=call_views.role_name(e.role, self.lang)
        )
        (block.box if block is not None else self._end).caption(f":material/pause_circle: {line}")

    def _on_resumed(self, e: ev.Resumed, block: Block | None) -> None:
        line = self.w.get(f"resumed.{e.action}") or text.inline(e.action, 20)
        (block.box if block is not None else self._end).caption(f":material/play_circle: {line}")

    def _on_edited(self, e: ev.Edited, block: Block) -> None:
        w = self.w
        what = w.get(f"edited_what.{e.what}", w["edited_what.messages"]).format(
            template=text.code_span(text.flat(e.template or "", 80))
        )
        block.box.markdown(f":orange-badge[:material/edit: {w['edited'].format(call=e.call, what=what)}]")

    def _on_human_reply(self, e: ev.HumanReply, block: Block) -> None:
        block.box.markdown(
            f":violet-badge[:material/person: {self.w['human'].format(role=call_views.role_name(e.role, self.lang))}]"
        )

    def _on_limit_reached(self, e: ev.LimitReached, block: Block | None) -> None:
        target = self._end if block is None else block.box
        if target is None:
            return
        # the core words a limit's message in English, with the run's specifics; another language gets
        # the catalogue's line for that limit (a limit this app does not know keeps the core's message)
        why = self.w.get(f"limit_why.{e.limit}") if self.lang != "en" else None
        message = why.format(value=e.value) if why else text.escape(text.clip(e.message, BODY_CHARS))
        target.warning(
            self.w["limit"].format(limit=self._limit_name(e.limit), value=e.value, message=message),
            icon=":material/block:",
        )

    def _limit_name(self, name: str) -> str:
        """A limit as the limit controls name it; a loop guard by the catalogue; anything else as code."""
        if name in LIMITS:
            return text.inline(limit_label(name, self.lang), 60)
        return self.w.get(f"limit_name.{name}") or text.code_span(name)

    def _on_final_answer(self, e: ev.FinalAnswer, _block: None) -> None:
        self.final = e.text
        with self._end.container(border=True, key=self._unique(f"{self.key}-final")):
            st.markdown(f"#### {self.w['final']}")
            if e.text.strip():
                self._text_block(e.text)
            else:
                st.caption(self.w["no_answer"])

    def _cut_stream(self, block: Block) -> None:
        """Keep the text a call had streamed when the run ended before the call did."""
        if block.streamed:
            slot = block.stream if block.stream is not None else block.box.empty()
            with slot.container():
                st.code(text.clip(block.streamed, BODY_CHARS), language=None, wrap_lines=True)
                st.caption(self.w["cut_stream"])
        block.stream, block.streamed = None, ""

    def _on_run_failed(self, e: ev.RunFailed, block: Block | None) -> None:
        # the kind of failure in the page's language; the message itself is the endpoint's or the core's
        kind = self.w.get(f"error.{e.error_type}") or text.inline(e.error_type)
        message = f"**{kind}** · {text.escape(text.clip(e.message, BODY_CHARS))}"
        if block is not None and block.box is not None:
            self._cut_stream(block)
            block.box.error(message, icon=":material/error:")
        self._end.error(self.w["failed"].format(message=message), icon=":material/error:")

    def _on_run_finished(self, e: ev.RunFinished, _block: None) -> None:
        self.reason = e.reason
        self.elapsed = max(self.elapsed, e.elapsed_ms / 1000)
        label, color, line = ending(e.reason, self.lang)
        with self._end.container(
            key=self._unique(f"{self.key}-end-{e.reason if e.reason in ENDING_COLORS else 'other'}")
        ):
            row = st.container(horizontal=True, vertical_alignment="center", gap="small")
            row.badge(self.w["ended"].format(label=label), color=color, icon=":material/flag:")
            # the calls that got a reply, as the counter above counts them; a call the core counted but
            # that got none (a dead endpoint, a Stop mid-call) is said apart
            unanswered = max(0, e.llm_calls - self.calls)
            extra = i18n.words("ended_calls", self.lang)["no_reply_one" if unanswered == 1 else "no_reply"]
            row.caption(
                self.w["ended_line_one" if self.calls == 1 else "ended_line"].format(
                    line=line, calls=self.calls, tokens=f"{e.total_tokens:,}", seconds=f"{e.elapsed_ms / 1000:.1f}"
                )
                + (extra.format(n=unanswered) if unanswered else "")
            )

    # --- long runs: pages of blocks ----------------------------------------------------------------
    def _page(self) -> range | None:
        """The blocks this redraw draws: all of them, or the page picked (the latest one at first).

        A page is at most PAGE_BLOCKS blocks and PAGE_EVENTS drawn events (a folded block draws at most
        FOLD_HEAD + FOLD_WINDOW + FOLD_TAIL), so what one script run draws is bounded whatever the run."""
        n = len(self.looks or ())
        sizes = self.sizes if self.sizes is not None and len(self.sizes) == n else [1] * n
        starts, blocks, drawn = [0], 0, 0
        for i, size in enumerate(sizes):
            weight = min(size, FOLD_HEAD + FOLD_WINDOW + FOLD_TAIL)
            if blocks and (blocks == PAGE_BLOCKS or drawn + weight > PAGE_EVENTS):
                starts.append(i)
                blocks, drawn = 0, 0
            blocks, drawn = blocks + 1, drawn + weight
        if len(starts) == 1:
            return None
        bounds = [*starts, n]
        state, key = st.session_state, f"{self.key}-page"
        if state.get(key) not in range(len(starts)):
            state[key] = len(starts) - 1
        w = self.w
        page = st.selectbox(
            w["page"],
            range(len(starts)),
            key=key,
            help=w["page_help"],
            persist_state="session",
            format_func=lambda p: w["page_of"].format(first=bounds[p] + 1, last=bounds[p + 1], n=n),
        )
        return range(bounds[page], bounds[page + 1])

    def _folded(self, block: Block) -> bool:
        """True when the event just placed in `block` falls in the folded middle of a long block (a
        redraw only); the first of the middle draws the picker of which events to show."""
        if self.live or self.sizes is None or block.index >= len(self.sizes):
            return False
        k = self._ordinal.get(block.index, 0)
        self._ordinal[block.index] = k + 1
        size = self.sizes[block.index]
        if size <= FOLD_HEAD + FOLD_WINDOW + FOLD_TAIL or k < FOLD_HEAD or k >= size - FOLD_TAIL:
            return False
        if k == FOLD_HEAD:
            self._window[block.index] = self._fold_picker(block, size)
        start = self._window[block.index]
        return not start <= k < start + FOLD_WINDOW

    def _fold_picker(self, block: Block, size: int) -> int:
        """Say how much of a long block is folded, and pick the FOLD_WINDOW events of its middle to draw."""
        w, last = self.w, size - FOLD_TAIL
        starts = range(FOLD_HEAD, last, FOLD_WINDOW)
        with block.box.container(key=f"{self.key}-fold-{block.index}"):
            st.caption(
                ":material/unfold_less: "
                + w["fold.folded"].format(
                    n=f"{size - FOLD_HEAD - FOLD_TAIL - FOLD_WINDOW:,}",
                    total=f"{size:,}",
                    head=FOLD_HEAD,
                    tail=FOLD_TAIL,
                )
            )
            return st.selectbox(
                w["fold.window"],
                starts,
                key=f"{self.key}-fold-{block.index}-at",
                help=w["fold.help"],
                persist_state="session",
                format_func=lambda a: w["fold.range"].format(
                    first=f"{a + 1:,}", last=f"{min(a + FOLD_WINDOW, last):,}"
                ),
            )

    def _count(self, e: ev.Event, block: Block) -> None:
        """What an event off the page adds to the counters, the graph and the side table."""
        if isinstance(e, ev.Token):
            block.stream_more(e.text)
        elif isinstance(e, ev.LlmCall):
            self.calls += 1
            self.tokens += e.prompt_tokens + e.completion_tokens
            self.estimated |= e.usage_estimated
            self.table.add(e)  # a drawn call's prompt may resend messages this one introduced
            if block is not None:
                self.raw[e.role], block.streamed = block.streamed, ""
        elif isinstance(e, ev.ToolResult):
            row = self.tool_rows.setdefault(e.name, [0, 0])
            row[0] += 1
            row[1] += int(e.is_error)
            self._side_dirty = True
        elif isinstance(e, ev.PlanEvent):
            self._set_plan(e.steps)
        elif isinstance(e, (ev.StepStarted, ev.StepFinished)):
            self._set_status(e.step_id, "running" if isinstance(e, ev.StepStarted) else e.status)
        elif isinstance(e, ev.VerdictEvent):
            self.n += 1
            if self.draft_rows and self._on_draft_verdict(e.role):
                self.draft_rows[-1]["verdict"] = text.inline(e.verdict, 20)  # a table cell is Markdown
        elif isinstance(e, ev.Draft):
            self._draft_row(e, self._rough)
        elif isinstance(e, ev.FinalAnswer):
            self.final = e.text
        elif isinstance(e, ev.RunFinished):
            self.reason = e.reason
            self.elapsed = max(self.elapsed, e.elapsed_ms / 1000)
        elif isinstance(e, ev.RunFailed) and block is not None:
            self._ends += 1  # the ending's message is drawn whatever the page (a dozen: a file may hold thousands)
            if self._ends <= END_EVENTS:
                self._on_run_failed(e, None)
        else:
            self._keep_own(e)

    # --- live panels ------------------------------------------------------------------------------
    def _set_status(self, step_id: int, status: str) -> None:
        self._side_dirty = True
        for s in self._steps.get(step_id, ()):  # by id: a scan of the whole plan per event was quadratic
            s["status"] = status

    def _set_plan(self, steps: Iterable[Mapping[str, Any]]) -> None:
        self.plan = [dict(s) for s in steps]
        self._steps = {}
        for s in self.plan:
            self._steps.setdefault(s.get("id"), []).append(s)
        self._side_dirty = True

    def _refresh_soon(self, graph: bool) -> None:
        """Refresh now if the graph moved (it shows where the run is) and the pace draws moves at once,
        else at most every pace.refresh: a burst of events (a fast model, a fork's recorded prefix) redrew the
        counters and rebuilt the side table's DataFrame after every one of them. `flush()`, `tick()`
        and `close()` catch up."""
        now = time.monotonic()
        self._moved |= graph
        if self._holding:
            self._stale = True  # add_all refreshes once, after the last of its events
        elif (self._moved and self.pace.moves) or now - self._refreshed >= self.pace.refresh:
            self._refreshed, self._stale = now, False
            self._refresh(graph=self._moved)
        else:
            self._stale = True

    def clock(self, now: float) -> None:
        """The run's time so far where no event says it: a paused run's clock runs on (the next
        `flush` shows it)."""
        if now > self.elapsed:
            self.elapsed, self._stale = now, True

    def tick(self, every: float | None = None) -> None:
        """Refresh what `add` left stale once pace.refresh (or `every` seconds) has passed: a live view
        whose run went quiet (a model call that takes its time) shows its last events' counts."""
        if self._stale and time.monotonic() - self._refreshed >= (self.pace.refresh if every is None else every):
            self.flush()

    def flush(self) -> None:
        """Bring the counters and the side table up to date (a live run that pauses here)."""
        if self._stale:
            self._refreshed, self._stale = time.monotonic(), False
            self._refresh(graph=self._moved)

    def _refresh(self, graph: bool) -> None:
        """Redraw the counters, and the graph and side table when they changed."""
        self._moved = self._moved and not graph
        with self._counters.container():
            if self.compact:
                (a, b), (c, d) = st.columns(2), st.columns(2, vertical_alignment="center")
            else:
                a, b, c, d = st.columns(4, vertical_alignment="center")
            w = self.w
            # the count is the figure; the bound is its worst case, said in words ("9 / 174" read
            # as nine out of a budget of 174)
            a.metric(w["calls"], self.calls, help=w["calls_help"])
            a.caption(i18n.t("fits.worst_case", self.lang, bound=self.bound))
            b.metric(w["tokens_estimated" if self.estimated else "tokens"], f"{self.tokens:,}")
            c.metric(w["elapsed"], w["seconds"].format(s=f"{self.elapsed:.1f}"))
            if self.reason in ENDING_COLORS:
                label, color, _ = ending(self.reason, self.lang)
                d.badge(label, color=color, icon=":material/flag:")
            else:
                d.badge(w["running"], color="blue", icon=":material/progress_activity:")
        if graph:
            # at its own size (a compact lane's column is narrow: top to bottom there), never stretched
            self._graph.graphviz_chart(
                graphs.dot(
                    self.config,
                    self.active,
                    self.visited,
                    self.blocks.lang,
                    vertical=graphs.vertical_in_run(self.config, self.compact),
                ),
                width="content",
            )
        # the figure and the side table only when they changed: a table rebuilt at every move of the
        # graph (each call) was the costliest part of a room's forty seats following a run
        if self._own_dirty:
            self._own_dirty = False
            self._draw_own()
        if self._side_dirty:
            self._side_dirty = False
            self._draw_side()

    def _draw_side(self) -> None:
        w = self.w
        if self.summary == "plan" and self.plan:
            # st.table draws its cells as Markdown: text from the model is escaped, names are code
            rows = [
                {
                    "status": _status(s.get("status", "pending"), w),
                    "step": text.inline(str(s.get("id")), 40),
                    "description": text.inline(s.get("description", ""), 300),
                    "tool": text.code_span(text.flat(s["tool"], 60)) if s.get("tool") else "",
                    "critical": "✓" if s.get("critical") else "",
                }
                for s in self.plan[:SIDE_ROWS]
            ]
            # st.table, not a data grid: its cells wrap, so no word is cut at a column's edge at
            # 1280×720 ("replannec", "query_or" were cut so)
            self._side_table(rows, len(self.plan))
        elif self.summary == "drafts" and self.draft_rows:
            self._side_table(self.draft_rows[-SIDE_ROWS:], len(self.draft_rows))  # the latest drafts
        elif self.summary == "tools" and self.tool_rows:
            rows = [
                {"tool": text.code_span(text.flat(name, 60)), "calls": n, "errors": errors}
                for name, (n, errors) in itertools.islice(self.tool_rows.items(), SIDE_ROWS)
            ]
            self._side_table(rows, len(self.tool_rows))

    def _side_table(self, rows: list[dict[str, Any]], total: int) -> None:
        """The side table, and how many rows it leaves out (a plan of 10,000 steps shows 100)."""
        with self._side.container():
            st.table(self._headed(rows), hide_index=True)
            if total > len(rows):
                st.caption(self.w["fold.more_rows"].format(n=f"{total - len(rows):,}"))

    def _headed(self, rows: list[dict[str, Any]]) -> Any:
        """The side table's rows, under column headers in the page's language."""
        return tables.arrow(rows, {name: self.w.get(f"col.{name}", name) for row in rows for name in row})


def _status(status: str, w: Mapping[str, str]) -> str:
    """A plan step's status in words (pending, running, done ...)."""
    return w.get(f"status.{status}") or status


def _tool_line(call: ev.ToolCallEvent, w: Mapping[str, str]) -> str:
    if call.name == "unit_tests":
        draft = call.arguments.get("draft", "?") if isinstance(call.arguments, dict) else "?"
        return ":material/science: " + w["unit_tests"].format(draft=text.inline(str(draft)))
    args = text.arguments(call.arguments) if call.arguments not in (None, {}, "") else ""
    return f":material/build: **{tool_name(call.name, 60)}** {text.code_span(args) if args else '()'}"


def hide_stale(area_key: str, live: bool) -> None:
    """Call first in the keyed container `area_key` that holds a run view.

    Streamlit keeps what the previous script run drew, faded, until the current one ends, so a live
    run would show the last run's blocks under its own for as long as it takes. While `live`, this
    hides them: stale elements carry data-stale="true", and a box (a step block, the answer's
    border) holding no fresh element is one the current run has not drawn yet. Otherwise it draws an
    empty style in the same place, so the rule is gone as soon as the next run starts. Our own
    constant CSS: no model text goes near st.html.
    """
    area, mark = f".st-key-{area_key}", f"ap-live-{area_key}"
    boxes = ", ".join(f"[data-testid={name}]" for name in ("stExpander", "stVerticalBlock", "stTabs"))
    # The rule holds only while this script run's own mark is fresh. The next script run marks every
    # element stale as it starts, the mark too, so the rule lets go at once; a rule that lived until
    # the next script run replaced it hid the whole run area while the finished run was redrawn
    # (for 0.3-0.5 s at the end of every run, and the page jumped up).
    scope = f"{area}:has([data-stale='false'] .{mark})"
    rule = f"{scope} [data-stale='true'], {scope} :is({boxes}):not(:has([data-stale='false'])) {{ display: none; }}"
    # the mark's element is drawn live or not, so a live view and a redraw have the same element tree;
    # it is hidden by its container's key, not by a `:has(.ap-mark)` rule on every element container
    # of the area (the browser re-checked that on each of a redraw's hundreds of insertions)
    with st.container(key=f"ap-mark-{area_key}"):
        st.html(
            f"<style>{rule if live else ''} [class*='st-key-ap-mark-'] {{ display: none; }}</style>"
            f"<span class='ap-mark {mark if live else ''}'></span>"
        )


def draw_run(
    config: Mapping[str, Any],
    events: Iterable[ev.Event],
    *,
    bound: int,
    key: str,
    task: str = "",
    diff_layout: str = "inline",
    compact: bool = False,
    recorded: int = 0,
    call_actions: Callable[[Any, int, ev.LlmCall], None] | None = None,
) -> RunView:
    """Redraw a stored run (finished, stopped or failed) from its events: a page of its blocks, long
    blocks folded (RunView._page, RunView._folded), so the work is bounded whatever the run holds."""
    events = list(events)
    settled = final_blocks(config, events)
    view = RunView(
        config,
        bound=bound,
        key=key,
        task=task,
        diff_layout=diff_layout,
        looks=[(b.label, b.state) for b in settled],
        compact=compact,
        recorded=recorded,
        call_actions=call_actions,
        sizes=[b.events for b in settled],
    )
    view.add_all(events)
    view.close()
    return view


def fresh_area(live: bool) -> Any:
    """A container for a run view that never shows the previous script run's leftovers.

    Streamlit lets a container inherit the children its predecessor at the same place had, and shows
    them faded until the script run ends: a long live run would sit above the old run's later blocks.
    An element sent to that place first drops them. So there are two places: a live run draws in one
    and empties the other, a redraw the reverse (a redraw is quick, its own leftovers barely show).
    """
    first, second = st.empty(), st.empty()
    return (second if live else first).container()
