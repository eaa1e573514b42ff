"""Orchestrator–workers (Anthropic, "Building effective agents"): split, dispatch, review, synthesise.

The orchestrator (role "orchestrator") splits the task into at most `max_subtasks` independent
subtasks, a JSON list parsed at the border (replies.py); ids are assigned here. A split that cannot
be parsed is asked for once more (the repair re-ask), and if it still cannot, the whole task goes to
one worker: an observation the run survives, said on the plan (`fallback`), never an exception.

Each subtask goes to a worker (role "worker"): its own small tool loop, ReAct-like, of at most
`worker_steps` model calls with the scenario's tools, the last with tools disabled. A worker sees its
instruction and, when dispatched again, the orchestrator's note and its previous result; never the
user's request or the other subtasks. A worker's attempt fails when the latest result of a tool it
called is an error, or when it reports nothing. The workers of a round are independent, so they could
run side by side; the run makes them one after another, so that its events, its forks and its step
mode are deterministic, and the views draw them as parallel branches.

With `review` on, after every round but the last (`max_dispatches` rounds in all) the orchestrator
reviews the results (role "orchestrator_review"): DONE sends them to synthesis; REDISPATCH names the
subtasks to run again, each with a sharper instruction, and any new ones (up to `max_subtasks` in
all). With it off the run is one round, whose results go straight to synthesis. A REDISPATCH
that names none runs the failed subtasks again (all of them when none failed), with its reason as
their note. An unparsable review, after its repair re-ask, is a visible DONE (`parsed=False`). When
the last round still leaves a subtask failed, `limit_reached("max_dispatches")` says so and the
synthesis reports the failure. The synthesizer (role "synthesizer") writes the reply from the
results, saying which subtasks failed and why.

Events: `plan` for the subtasks (revision 0 after the split, then one revision per REDISPATCH, whose
subtasks to run again are pending with their new instruction); per worker dispatch `step_started`
(attempt = how many times this subtask has been dispatched), its `thought`, `tool_call` and
`tool_result`, then `step_finished` (done or failed); `verdict` for each review. `step` is the
subtask's id on a worker's events, None on the orchestrator's and the synthesizer's.

Call bound. With N = max_subtasks, W = worker_steps, R = max_dispatches with the review (1 without)
and q = calls per reply the orchestrator writes (2 with the repair re-ask, else 1): one split (q), R
rounds of at most N workers of W calls, R − 1 reviews (q each) and one synthesis:

    q + R·N·W + (R − 1)·q + 1  =  R·(q + N·W) + 1
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from ... import events as ev
from ...config import RunConfig
from ...messages import Message, assistant, tool_message, user
from ...models import ModelRouter
from ...tools import ToolRegistry
from ...verdicts import REPAIR_REQUEST, strip_think
from ..base import Attempt, Body, RunContext, Seen, run_pattern
from .options import OrchestratorOptions
from .prompts import PROMPTS, label, section
from .replies import DONE, Review, parse_review, parse_split
from .roles import REVIEW

Events = Generator[ev.Event, None, None]


def call_bound(config: RunConfig[OrchestratorOptions]) -> int:
    """The most LLM calls an orchestrator–workers run can make with these limits."""
    q = 2 if config.repair_reask else 1
    o = config.options
    return rounds(config) * (q + o.max_subtasks * o.worker_steps) + 1


def rounds(config: RunConfig[OrchestratorOptions]) -> int:
    """How many rounds of dispatch a run may make: max_dispatches with the review, else one."""
    return config.options.max_dispatches if config.options.review else 1


def stream(
    task: str, config: RunConfig[OrchestratorOptions], models: ModelRouter, tools: ToolRegistry | None = None
) -> Iterator[ev.Event]:
    """Run orchestrator–workers on `task`, yielding events as they happen."""
    return run_pattern(task, config, models, tools, _run, call_bound(config), PROMPTS)


# --- run state -------------------------------------------------------------------------------------


@dataclass
class Subtask:
    """One subtask as the run goes on. `instruction` is the one its next (or latest) dispatch gets;
    `result` the latest report; `note` the orchestrator's word for the next dispatch."""

    id: int
    instruction: str
    tool: str | None = None
    status: str = "pending"
    result: str = ""
    error: Seen | None = None
    attempts: int = 0
    note: str = ""
    #: why the subtask is the whole request: the split could not be parsed ("" for a subtask of a split)
    fallback: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The subtask as a `plan` event shows it (a fallback says so, and why, until it fails)."""
        reason = self.result if self.status == "failed" else self.fallback
        return {
            "id": self.id,
            "description": self.instruction,
            "tool": self.tool,
            "critical": False,
            "synthesis": False,
            "status": self.status,
            "reason": reason,
            **({"fallback": True} if self.fallback else {}),
        }

    def line(self, lang: str) -> str:
        """The subtask's state as the review and the synthesis read it."""
        values = {"id": self.id, "instruction": self.instruction, "result": self.result or label("no_result", lang)}
        if self.status == "failed" and self.error is not None:
            return label("failed_tool", lang, tool=self.error.tool, error=self.error.output[:300], **values)
        return label(self.status if self.status in ("done", "failed") else "pending", lang, **values)


@dataclass
class Team:
    """Every subtask of the run, in order, and how many `plan` revisions have been shown."""

    subtasks: list[Subtask] = field(default_factory=list)
    revision: int = 0

    def pending(self) -> list[Subtask]:
        return [s for s in self.subtasks if s.status == "pending"]

    def failed(self) -> list[Subtask]:
        return [s for s in self.subtasks if s.status == "failed"]

    def lines(self, lang: str, statuses: tuple[str, ...] = ("done", "failed", "pending")) -> str:
        return "\n".join(s.line(lang) for s in self.subtasks if s.status in statuses)

    def event(self, ctx: RunContext) -> ev.Event:
        return ctx.event(
            ev.PlanEvent, step=None, steps=tuple(s.to_dict() for s in self.subtasks), revision=self.revision
        )


# --- the loop --------------------------------------------------------------------------------------


def _run(ctx: RunContext) -> Body:
    o, last = ctx.config.options, rounds(ctx.config)
    team = Team((yield from _split(ctx)))
    yield team.event(ctx)
    for round_no in range(1, last + 1):
        for subtask in team.pending():
            yield from _dispatch(ctx, team, subtask, round_no)
        if round_no == last:
            if team.failed() and o.review:
                yield ctx.limit(
                    "max_dispatches",
                    last,
                    f"{len(team.failed())} subtask(s) still failed after {last} round(s); the synthesis reports them",
                )
            break
        review = yield from _review(ctx, team, round_no)
        if review.decision == DONE:
            if review.parsed and ctx.end_reason == "answer":
                ctx.end_reason = "pass"
            break
        yield from _redispatch(ctx, team, review)
    return (yield from _synthesize(ctx, team))


def _split(ctx: RunContext) -> Generator[ev.Event, None, list[Subtask]]:
    cfg, lang = ctx.config, ctx.config.lang
    described = ctx.tools.describe(lang)
    prompt = ctx.prompts.render(
        "split",
        task=ctx.task,
        tools=described or label("none", lang),
        max_subtasks=cfg.options.max_subtasks,
        worker_steps=cfg.options.worker_steps,
    )
    messages = [user(prompt)]
    names = ctx.tools.names()
    inputs = {"tools": described}
    completion = yield from ctx.llm("orchestrator", messages, revision=0, prompt="split", inputs=inputs)
    items = parse_split(completion.text, names)
    if items is None and cfg.repair_reask:
        retry = [*messages, assistant(completion.text), user(REPAIR_REQUEST[lang])]
        completion = yield from ctx.llm("orchestrator", retry, revision=0, repair=True, prompt="split", inputs=inputs)
        items = parse_split(completion.text, names)
    if items is None:
        note = label("unparsed_split", lang)
        if completion.finish_reason == "length":
            note = f"{note} {ctx.cut_note('orchestrator')}"
        return [Subtask(1, ctx.task, fallback=note)]
    n = cfg.options.max_subtasks
    if len(items) > n:
        yield ctx.limit("max_subtasks", n, f"the split had {len(items)} subtasks; kept the first {n}")
    return [Subtask(i, item.instruction, item.tool) for i, item in enumerate(items[:n], 1)]


def _dispatch(ctx: RunContext, team: Team, subtask: Subtask, round_no: int) -> Events:
    """One worker on one subtask; leaves its status at done or failed."""
    subtask.attempts += 1
    subtask.status = "running"
    ctx.step = subtask.id
    yield ctx.event(ev.StepStarted, step_id=subtask.id, description=subtask.instruction, attempt=subtask.attempts)
    attempt = yield from _work(ctx, subtask, round_no)
    subtask.error = attempt.tool_error()
    subtask.result = attempt.text or label("no_result", ctx.config.lang)
    subtask.status = "failed" if subtask.error is not None or not attempt.text else "done"
    subtask.note = ""
    # what a budget stop returns before synthesis: the results gathered so far
    ctx.best_answer = "\n\n".join(s.result for s in team.subtasks if s.status == "done")
    yield ctx.event(ev.StepFinished, step_id=subtask.id, status=subtask.status, result=subtask.result)
    ctx.step = None


def _work(ctx: RunContext, subtask: Subtask, round_no: int) -> Generator[ev.Event, None, Attempt]:
    """A worker's tool loop: at most `worker_steps` calls, the last with tools disabled."""
    cfg, lang = ctx.config, ctx.config.lang
    steps = cfg.options.worker_steps
    prompt = ctx.prompts.render(
        "worker",
        instruction=subtask.instruction,
        tool=subtask.tool or label("none", lang),
        tools=ctx.tools.describe(lang) or label("none", lang),
        hint=section("hint", subtask.note, lang),
    )
    messages: list[Message] = [user(prompt)]
    inputs = {"instruction": subtask.instruction, "hint": subtask.note}
    seen: list[Seen] = []
    for call_no in range(1, steps + 1):
        last = call_no == steps
        if last and call_no > 1:
            messages.append(user(ctx.prompts.render("worker_final")))
        use_tools = bool(len(ctx.tools)) and not last
        completion = yield from ctx.llm(
            "worker",
            messages,
            tools=use_tools,
            round=call_no,
            last_round=last,
            forced=last and call_no > 1,
            has_hint=bool(subtask.note),
            step_id=subtask.id,
            attempt=subtask.attempts,
            revision=round_no,
            tool=subtask.tool,
            prompt="worker_final" if last and call_no > 1 else "worker",
            inputs=inputs,
        )
        text = strip_think(completion.text)
        calls = completion.tool_calls if use_tools else ()  # calls in a tools-off call are ignored
        if not calls:
            return Attempt(text, tuple(seen))
        if text:
            yield ctx.event(ev.Thought, text=text)
        messages.append(assistant(completion.text, calls))
        for call in calls:
            output, is_error = yield from ctx.run_tool(call)
            seen.append(Seen(call.name, output, is_error))
            messages.append(tool_message(call, output))
    return Attempt("", tuple(seen))  # not reached: the last call has tools disabled and so returns


def _review(ctx: RunContext, team: Team, round_no: int) -> Generator[ev.Event, None, Review]:
    """The orchestrator's decision on a round, with one repair re-ask; an unreadable one is a visible DONE."""
    cfg, lang = ctx.config, ctx.config.lang
    results = team.lines(lang)
    prompt = ctx.prompts.render(
        "review",
        task=ctx.task,
        results=results,
        round=round_no,
        rounds_left=rounds(cfg) - round_no,
        max_subtasks=cfg.options.max_subtasks,
    )
    messages = [user(prompt)]
    names = ctx.tools.names()
    inputs = {"results": results, "failed": team.lines(lang, ("failed",))}
    completion = yield from ctx.llm(REVIEW, messages, revision=round_no, prompt="review", inputs=inputs)
    review = parse_review(completion.text, names)
    if review is None and cfg.repair_reask:
        retry = [*messages, assistant(completion.text), user(REPAIR_REQUEST[lang])]
        completion = yield from ctx.llm(REVIEW, retry, revision=round_no, repair=True, prompt="review", inputs=inputs)
        review = parse_review(completion.text, names)
    if review is None:
        note = label("unparsed", lang)
        if completion.finish_reason == "length":
            note = f"{note} {ctx.cut_note(REVIEW)}"
        review = Review(DONE, parsed=False, note=note)
    yield ctx.event(
        ev.VerdictEvent,
        role=REVIEW,
        verdict=review.decision,
        feedback=review.reason,
        analysis=review.note,
        suggestion="; ".join(_planned(review, team, lang)),
        parsed=review.parsed,
    )
    return review


def _planned(review: Review, team: Team, lang: str) -> list[str]:
    """What a REDISPATCH asks for, one phrase per subtask, for the verdict's suggestion."""
    known = {s.id for s in team.subtasks}
    out = []
    for redo in review.subtasks:
        if redo.id in known:
            out.append(
                label("redo", lang, id=redo.id, instruction=redo.instruction)
                if redo.instruction
                else label("redo_same", lang, id=redo.id)
            )
        elif redo.instruction:
            out.append(label("new", lang, instruction=redo.instruction))
    return out


def _redispatch(ctx: RunContext, team: Team, review: Review) -> Events:
    """Mark what a REDISPATCH runs again (with its sharper instruction and the note), add what it adds,
    and show the revised subtasks."""
    cfg, lang = ctx.config, ctx.config.lang
    by_id = {s.id: s for s in team.subtasks}
    reason = review.reason or label("no_reason", lang)
    added: list[Subtask] = []
    dropped = 0
    for redo in review.subtasks:
        subtask = by_id.get(redo.id) if redo.id is not None else None
        if subtask is not None:
            _again(subtask, reason, lang, redo.instruction, redo.tool)
        elif redo.instruction:
            if len(team.subtasks) + len(added) < cfg.options.max_subtasks:
                added.append(Subtask(max(by_id, default=0) + len(added) + 1, redo.instruction, redo.tool))
            else:
                dropped += 1
    team.subtasks.extend(added)
    if not team.pending():
        # a REDISPATCH that named nothing usable: the failed subtasks again, or every one when none failed
        for subtask in team.failed() or team.subtasks:
            _again(subtask, reason, lang)
    if dropped:
        yield ctx.limit(
            "max_subtasks",
            cfg.options.max_subtasks,
            f"the review added {dropped} subtask(s) past the run's {cfg.options.max_subtasks}; they were left out",
        )
    team.revision += 1
    yield team.event(ctx)


def _again(subtask: Subtask, reason: str, lang: str, instruction: str = "", tool: str | None = None) -> None:
    previous = subtask.result
    if subtask.error is not None:
        previous = f"{previous} ({subtask.error.tool}: {subtask.error.output[:300]})"
    subtask.note = (
        label("redispatched", lang, reason=reason, previous=previous)
        if previous
        else label("redispatched_plain", lang, reason=reason)
    )
    subtask.instruction = instruction or subtask.instruction
    subtask.tool = tool or subtask.tool
    subtask.status = "pending"


def _synthesize(ctx: RunContext, team: Team) -> Body:
    lang = ctx.config.lang
    done, failed = team.lines(lang, ("done",)), team.lines(lang, ("failed",))
    prompt = ctx.prompts.render(
        "synthesis", task=ctx.task, results=done or label("none", lang), failed=section("failed", failed, lang)
    )
    completion = yield from ctx.llm(
        "synthesizer",
        [user(prompt)],
        synthesis=True,
        all_failed=not done,
        prompt="synthesis",
        inputs={"results": done, "failed": failed},
    )
    ctx.best_answer = strip_think(completion.text)
    return ctx.best_answer
