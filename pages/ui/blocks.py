"""Which box each event of a run is drawn in, and what each box is called — pure logic, no drawing.

A run is shown as a sequence of blocks: a ReAct round, the judge's review, a plan, a step attempt,
the synthesis, a draft, a critique, a refinement. `Blocks.place(event)` says which block an event
belongs to, opening a new one when the run has moved on; `Blocks.note(event)` then updates that
block's label and state. The live view applies the changes as they come (st.status.update); a
redraw replays the whole run through `final_looks` first, so it can draw every block once, with its
final label (st.status sleeps 50 ms per block to let updates land; a redraw must not pay that).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_core import events as ev
from agent_core.patterns import registry

from . import i18n, text

#: run_failed error types raised by a model endpoint (agent_core.errors.ModelError codes)
#: Tool names a block's label lists; more are counted.
LABEL_TOOLS = 6
MODEL_ERRORS = frozenset(
    {
        "model_error",
        "auth_error",
        "rate_limited",
        "connection_error",
        "timeout",
        "bad_request",
        "server_error",
        "stream_cut",
        "malformed_response",
    }
)


def tool_name(name: str, limit: int = 40) -> str:
    """A tool's name in a label: code (a name, the same in every language), cut at `limit` characters."""
    flat = " ".join(str(name).split())
    return text.code_span(flat if len(flat) <= limit else flat[: limit - 1] + "…")


@dataclass
class Block:
    """One box of the run view. `box`, `stream` and `streamed` belong to the view that draws it."""

    index: int
    ident: tuple[Any, ...]
    title: str
    suffix: str = ""
    #: running | complete | error, as st.status has them, or sent_back: a step a verdict sent back
    #: (REPLAN) — the pattern at work, drawn amber; red is kept for real errors
    state: str = "running"
    #: the tools called in the block, each once, in the order of their first call
    tools: dict[str, None] = field(default_factory=dict)
    #: how many events the block holds (a redraw folds the middle of a long one)
    events: int = 0
    #: the current LLM call has streamed text that no llm_call has closed yet
    streaming: bool = False
    box: Any = None
    stream: Any = None
    #: the text the current call has streamed, in pieces (joined when read: `+=` on an attribute
    #: copies the whole text per token, quadratic in a file of many tokens)
    _parts: list[str] = field(default_factory=list)

    @property
    def streamed(self) -> str:
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @streamed.setter
    def streamed(self, value: str) -> None:
        self._parts = [value] if value else []

    def stream_more(self, piece: str) -> None:
        self._parts.append(piece)

    @property
    def label(self) -> str:
        return self.title + (f" — {self.suffix}" if self.suffix else "")


class Blocks:
    """The block bookkeeping of one run; its titles speak `lang` (default: the page's language)."""

    def __init__(self, config: Mapping[str, Any], lang: str | None = None) -> None:
        specs = registry.specs()
        # an uploaded trace may name a pattern this version does not have: place its calls generically
        self.spec = specs.get(str(config.get("pattern"))) or next(iter(specs.values()))
        self.config = config
        self.lang = lang if lang in i18n.LANGS else i18n.lang()
        self.w = i18n.words("blocks", self.lang)
        self.items: list[Block] = []
        self.plans = 0
        self.step_titles: dict[Any, str] = {}

    @property
    def current(self) -> Block | None:
        return self.items[-1] if self.items else None

    # --- placing events ---------------------------------------------------------------------------
    def place(self, e: ev.Event) -> Block | None:
        """The block `e` is drawn in, opened if need be; None for events of the run's ending."""
        if isinstance(e, (ev.Token, ev.LlmCall, ev.Edited, ev.HumanReply)):
            return self._for_call(e.role, e.step)
        if isinstance(e, ev.PlanEvent):
            current = self.current
            return current if current is not None and current.ident[0] == "plan" else self._open(("plan", self.plans))
        if isinstance(e, ev.StepStarted):
            if e.description:
                self.step_titles[e.step_id] = self.w["step_titled"].format(
                    step=e.step_id, description=text.inline(e.description, 70)
                )
            ident = ("step", e.step_id, e.attempt)
            current = self.current
            return current if current is not None and current.ident == ident else self._open(ident)
        if isinstance(e, ev.RunFailed):
            current = self.current
            if e.error_type in MODEL_ERRORS and (current is None or not current.streaming):
                # the endpoint failed on a call that had streamed nothing yet: that call gets its own block
                return self._open(("failed", e.error_type))
            return current
        if isinstance(e, (ev.RunStarted, ev.FinalAnswer, ev.RunFinished)):
            return None
        own = self.spec.event_block(e)  # e.g. a vote over the blocks before it, in a block of its own
        if own is not None:
            current = self.current
            return current if current is not None and current.ident == own else self._open(own)
        if isinstance(e, ev.LimitReached) and (e.step is None or self.current is None):
            return None
        return self.current if self.current is not None else self._open(("misc", e.step))

    def _for_call(self, role: str, step: int | None) -> Block:
        current = self.current
        grammar = self.spec.role(role)
        if (
            grammar is not None
            and grammar.in_step
            and current is not None
            and current.ident[0] == "step"
            and current.ident[1] == step
        ):
            return current
        ident = self._ident(role, step)
        return current if current is not None and current.ident == ident else self._open(ident)

    def _ident(self, role: str, step: int | None) -> tuple[Any, ...]:
        ident = self.spec.block_of(role, step)
        return ("plan", self.plans) if ident == ("plan",) else ident

    def _open(self, ident: tuple[Any, ...]) -> Block:
        if self.items:
            self.settle(self.items[-1])
        block = Block(len(self.items), ident, self._title(ident))
        self.items.append(block)
        return block

    def _title(self, ident: tuple[Any, ...]) -> str:
        own = self.spec.block_title(ident, self.config, self.lang)
        if own is not None:
            return own
        kind, step = ident[0], ident[1]
        w = self.w
        if kind == "plan":
            return w["plan"] if step == 0 else w["replan"].format(n=step)
        if kind == "step":
            attempt = ident[2] if len(ident) > 2 else 0
            title = self.step_titles.get(step, w["step"].format(step=step))
            return title + (w["attempt"].format(n=attempt) if attempt and attempt > 1 else "")
        if kind == "failed":
            return w["model_call"]
        return w["step"].format(step=step) if step is not None else w["run"]

    # --- labels and states ------------------------------------------------------------------------
    def note(self, e: ev.Event, block: Block | None) -> None:
        """Update labels and states after `e` was drawn in `block`."""
        if block is not None:
            block.events += 1
        if isinstance(e, ev.Token) and block is not None:
            block.streaming = True
        elif isinstance(e, ev.LlmCall) and block is not None:
            block.streaming = False
        elif isinstance(e, ev.ToolCallEvent) and block is not None and e.name != "unit_tests":
            if e.name not in block.tools:  # the label changes only with a new name: linear in the calls
                block.tools[e.name] = None
                # tool names come from the model (or a file): escaped, like every label from data; a
                # block of a thousand names lists the first few
                shown = [tool_name(name) for name in itertools.islice(block.tools, LABEL_TOOLS)]
                more = len(block.tools) - len(shown)
                block.suffix = self.w["calls"].format(tools=", ".join(shown) + (f", … (+{more})" if more else ""))
        elif isinstance(e, ev.PlanEvent) and block is not None:
            self.plans += 1
            for s in e.steps:
                self.step_titles[s.get("id")] = self.w["step_titled"].format(
                    step=text.inline(str(s.get("id")), 40), description=text.inline(s.get("description", ""), 70)
                )
            block.suffix = self.w["steps_one" if len(e.steps) == 1 else "steps"].format(n=len(e.steps))
        elif isinstance(e, ev.StepFinished) and block is not None and block.ident[0] == "step":
            if e.status == "failed":
                block.state = "sent_back"
            block.suffix = block.suffix or self.w.get(f"status.{e.status}") or text.inline(e.status)
        elif isinstance(e, ev.VerdictEvent) and block is not None:
            block.suffix = text.inline(e.verdict) + ("" if e.parsed else self.w["fallback"])
            if e.verdict == "REPLAN":
                block.state = "sent_back"
        elif isinstance(e, ev.RunFailed) and block is not None:
            block.state, block.suffix, block.streaming = "error", self.w["status.failed"], False
            self.settle(block)
        elif isinstance(e, ev.FinalAnswer) and self.current is not None:
            self.settle(self.current)
        elif isinstance(e, ev.RunFinished) and self.current is not None:
            last = self.current
            if e.reason == "stop" and last.state == "running":
                last.suffix = (last.suffix + " · " + self.w["stopped"]).lstrip(" ·")
            self.settle(last)
        elif block is not None and (own := self.spec.event_views.get(e.kind)) is not None:
            suffix = own.suffix(e, self.lang)  # a kind the pattern added: its view labels the block
            if suffix is not None:
                block.suffix = text.inline(suffix, 80)

    def settle(self, block: Block) -> None:
        """A block the run has left: no longer running."""
        if block.ident[0] == "round" and not block.tools and not block.suffix:
            block.suffix = self.w["final_answer"]
        if block.state == "running":
            block.state = "complete"


def final_blocks(config: Mapping[str, Any], events: Iterable[ev.Event], lang: str | None = None) -> list[Block]:
    """Every block once the events are all in, settled: their final labels and states, and their sizes."""
    blocks = Blocks(config, lang)
    for e in events:
        blocks.note(e, blocks.place(e))
    if blocks.current is not None:
        blocks.settle(blocks.current)
    return blocks.items


def final_looks(
    config: Mapping[str, Any], events: Iterable[ev.Event], lang: str | None = None
) -> list[tuple[str, str]]:
    """(label, state) of every block once the events are all in: what a redraw draws at once."""
    return [(b.label, b.state) for b in final_blocks(config, events, lang)]


class Versions:
    """Draft versions seen so far, each with its text; `previous(v)` is the latest one before `v`.

    Sorted, so a run of 20,000 drafts (or a file that numbers them backwards) costs a binary search
    per draft, not a scan of every earlier one."""

    def __init__(self) -> None:
        self.texts: dict[int, str] = {}
        self._order: list[int] = []

    def add(self, version: int, body: str) -> int | None:
        """Keep `body` as `version`; the version it follows (None for the first)."""
        before = self.previous(version)
        if version not in self.texts:
            bisect.insort(self._order, version)
        self.texts[version] = body
        return before

    def previous(self, version: int) -> int | None:
        at = bisect.bisect_left(self._order, version)
        return self._order[at - 1] if at else None

    @property
    def latest(self) -> int | None:
        return self._order[-1] if self._order else None

    def __bool__(self) -> bool:
        return bool(self.texts)
