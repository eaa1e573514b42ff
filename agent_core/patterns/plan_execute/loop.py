"""Plan-and-Execute (seeds 03, 05): plan, run each step, let a Reflector judge it, recover.

The planner (role "planner") turns the task into a JSON plan: steps with a description, a tool hint
and a `critical` flag, ending in a synthesis step (one is appended if the planner forgot; ids are
assigned here, never taken from the model). Each work step runs in a small tool loop by the executor
(role "executor"): at most `max_step_rounds` rounds, the last one with tools disabled. The executor
is goal-blind, as seed 03 argues: it sees its step, the results of earlier steps and, on a retry, the
Reflector's suggestion, but not the user's request unless `goal_aware_executor` is on, so the
Reflector is the only part of the run that brings the whole goal back into execution. The synthesis
step (role "synthesizer", no tools, equally goal-blind) gets the completed results and the failed
steps with their reasons, or a dedicated prompt when nothing succeeded; its accepted result is the
final answer.

The Reflector (role "reflector", `reflector`) judges every attempt from the user's goal, the step's
aim and its result. PASS accepts it. RETRY re-runs the step with the suggestion injected, at most
`max_step_retries` times, then accepts the result (`limit_reached`). REPLAN marks the step failed with
the analysis as its reason, and the planner re-plans the remaining steps from a progress summary that
carries every failure reason, at most `max_replans` times; after that the remaining work steps are
skipped and the run goes to synthesis (a synthesis step's REPLAN is then accepted, as nothing comes
after it). An unparsable verdict is a visible PASS (`parsed=False`).

`rule_precheck` turns an attempt in which a tool's latest result is an error into REPLAN without an
LLM call; it also works with the Reflector off, as a rule-only reviewer. `selective_reflection`
reviews only attempts that called tools, so synthesis steps are then never reviewed (seed 03's run,
which reviews its synthesis step, is the default). A failed step marked critical ends the run at
once with `CriticalStepFailed` (seed 05: the planner flags the steps whose failure must abort), before
any re-plan.

Call bound. With N = max_plan_steps, R = max_step_rounds, T = max_step_retries, P = max_replans,
q = planner calls per plan (2 with the repair re-ask, else 1), ρ = Reflector calls per verdict (q with
the Reflector on, else 0), A = attempts per step (T + 1 with the Reflector on, else 1):

    (P' + 1) · (q + (N − 1)·A·(R + ρ) + S)

where P' = P when a step can fail (Reflector or rule pre-check on), else 0, and S = A·(1 + ρ) is the
synthesis step's share (1 when it is not reviewed: Reflector off or selective reflection). Each plan
(the first and one per re-plan) costs q planner calls and runs at most N steps: N − 1 work steps of up
to R executor rounds per attempt and one synthesis call per attempt, each attempt followed by at most
one verdict.
"""

from __future__ import annotations

from collections.abc import Collection, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from ... import events as ev
from ...config import RunConfig
from ...errors import CriticalStepFailed, PlanError
from ...messages import Message, assistant, tool_message, user
from ...models import ModelRouter
from ...tools import ToolRegistry
from ...verdicts import REPAIR_REQUEST, Verdict, json_items, parse_step_verdict, strip_think
from ..base import Attempt, Body, RunContext, Seen, run_pattern
from .options import PlanExecuteOptions
from .prompts import PROMPTS, label, section

#: Statuses a step takes in `plan` events; `step_finished` also uses "retried" for a superseded attempt.
STEP_STATUSES = ("pending", "running", "done", "failed", "replanned", "skipped")

Events = Generator[ev.Event, None, None]


def call_bound(config: RunConfig[PlanExecuteOptions]) -> int:
    """The most LLM calls a Plan-and-Execute run can make with these limits."""
    q = 2 if config.repair_reask else 1
    rho = q if config.options.reflector else 0
    attempts = config.options.max_step_retries + 1 if config.options.reflector else 1
    reviews_synthesis = config.options.reflector and not config.options.selective_reflection
    synthesis = attempts * (1 + rho) if reviews_synthesis else 1
    replans = config.options.max_replans if config.options.reflector or config.options.rule_precheck else 0
    work = (config.options.max_plan_steps - 1) * attempts * (config.options.max_step_rounds + rho)
    return (replans + 1) * (q + work + synthesis)


def stream(
    task: str, config: RunConfig[PlanExecuteOptions], models: ModelRouter, tools: ToolRegistry | None = None
) -> Iterator[ev.Event]:
    """Run Plan-and-Execute on `task`, yielding events as they happen."""
    return run_pattern(task, config, models, tools, _run, call_bound(config), PROMPTS)


# --- the plan, parsed at the border ---------------------------------------------------------------


@dataclass
class PlanStep:
    """One step of a plan. `status` and `result` (the accepted result, or the failure reason) change
    as the run goes on; the rest comes from the planner."""

    id: int
    description: str
    tool: str | None = None
    critical: bool = False
    synthesis: bool = False
    status: str = "pending"
    result: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The step as a `plan` event shows it."""
        return {
            "id": self.id,
            "description": self.description,
            "tool": self.tool,
            "critical": self.critical,
            "synthesis": self.synthesis,
            "status": self.status,
            "reason": self.result if self.status == "failed" else "",
        }


_DESCRIPTION_KEYS = ("description", "desc", "step", "task", "action", "title", "content")
_TOOL_KEYS = ("tool", "tool_hint", "toolHint", "tool_name", "toolName")
_NO_TOOL = ("", "null", "none", "n/a", "无", "不需要")


def parse_plan(text: str, tools: Collection[str] = ()) -> list[PlanStep] | None:
    """The steps of a planner's reply, in order (ids not yet assigned); None when it holds no plan.

    Accepts `{"steps": [...]}`, seed 05's `{"steps": {"1": {...}, "2": {...}}}` and a bare list; an
    entry may be an object or a plain description. Junk entries are dropped; a tool hint that names no
    known tool becomes None (matched loosely: "queryOrder" is "query_order").
    """
    entries = json_items(text, ("steps", "plan"))
    if entries is None:
        return None
    steps = [s for s in (_step(e, tools) for e in entries) if s is not None]
    for s in steps[:-1]:
        s.synthesis = False  # only the last step may combine the results
    return steps


def shape_plan(steps: list[PlanStep], *, first_id: int, max_steps: int, synthesis: str) -> tuple[list[PlanStep], int]:
    """End a plan with exactly one synthesis step, keep at most `max_steps` steps and number them
    from `first_id`. Returns the steps and how many the cap cut."""
    steps = list(steps)
    if steps and (steps[-1].synthesis or steps[-1].tool is None):
        final = steps.pop()
        final.synthesis, final.tool, final.critical = True, None, False
    else:
        final = PlanStep(0, synthesis, synthesis=True)
    cut = max(0, len(steps) - (max_steps - 1))
    kept = [*steps[: max_steps - 1], final]
    for offset, s in enumerate(kept):
        s.id = first_id + offset
    return kept, cut


def _step(raw: Any, tools: Collection[str]) -> PlanStep | None:
    if isinstance(raw, str):
        return PlanStep(0, raw.strip()) if raw.strip() else None
    if not isinstance(raw, dict):
        return None
    description = next((v.strip() for k in _DESCRIPTION_KEYS if isinstance(v := raw.get(k), str) and v.strip()), "")
    if not description:
        return None
    tool = next((raw[k] for k in _TOOL_KEYS if k in raw), None)
    return PlanStep(0, description, _known_tool(tool, tools), _flag(raw.get("critical")), _flag(raw.get("synthesis")))


def _known_tool(value: Any, tools: Collection[str]) -> str | None:
    if not isinstance(value, str) or value.strip().lower() in _NO_TOOL:
        return None

    def key(name: str) -> str:
        return name.strip().lower().replace("_", "").replace("-", "")

    return next((t for t in tools if key(t) == key(value)), None)


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "是")
    return value is True or value == 1


# --- run state -------------------------------------------------------------------------------------


@dataclass
class Plan:
    """The plan as it runs: every step ever planned, in order, and the re-plan count."""

    steps: list[PlanStep] = field(default_factory=list)
    revision: int = 0
    replans: int = 0

    def next_pending(self) -> PlanStep | None:
        return next((s for s in self.steps if s.status == "pending"), None)

    def pending(self) -> list[PlanStep]:
        return [s for s in self.steps if s.status == "pending"]

    def next_id(self) -> int:
        return max((s.id for s in self.steps), default=0) + 1

    def lines(self, lang: str, statuses: tuple[str, ...], *, synthesis: bool = False) -> str:
        """One summary line per step with one of `statuses` (work steps only, unless `synthesis`)."""
        return "\n".join(
            label(s.status, lang, id=s.id, description=s.description, result=s.result)
            for s in self.steps
            if s.status in statuses and (synthesis or not s.synthesis)
        )

    def event(self, ctx: RunContext) -> ev.Event:
        return ctx.event(ev.PlanEvent, step=None, steps=tuple(s.to_dict() for s in self.steps), revision=self.revision)


# --- the loop --------------------------------------------------------------------------------------


def _run(ctx: RunContext) -> Body:
    cfg = ctx.config
    plan = Plan((yield from _first_plan(ctx)))
    yield plan.event(ctx)
    while (step := plan.next_pending()) is not None:
        ctx.step = step.id
        yield from _run_step(ctx, plan, step)
        if step.status == "done":
            if step.synthesis:
                return step.result
            continue
        if step.critical:
            raise CriticalStepFailed(
                f"step {step.id} ({step.description}) is marked critical and failed, so the run "
                f"stops here. Reason: {step.result}"
            )
        if plan.replans < cfg.options.max_replans:
            yield from _replan(ctx, plan)
            continue
        yield ctx.limit(
            "max_replans",
            cfg.options.max_replans,
            f"{plan.replans} re-plan(s) used; skipping the remaining steps and going to synthesis",
        )
        for rest in plan.pending():
            if not rest.synthesis:
                rest.status = "skipped"
                ctx.step = rest.id
                yield ctx.event(ev.StepFinished, step_id=rest.id, status="skipped")
    return ctx.best_answer  # not reached: every plan ends with a synthesis step, whose result ends the run


def _first_plan(ctx: RunContext) -> Generator[ev.Event, None, list[PlanStep]]:
    cfg = ctx.config
    prompt = ctx.prompts.render(
        "planner", goal=ctx.task, tools=ctx.tools.describe(cfg.lang), max_steps=cfg.options.max_plan_steps
    )
    inputs = {"goal": ctx.task, "tools": ctx.tools.describe(cfg.lang)}
    steps, reply = yield from _ask_plan(ctx, [user(prompt)], revision=0, prompt="planner", inputs=inputs)
    if not steps:
        shown = " ".join(reply.split())[:160] or "(an empty reply)"
        raise PlanError(
            f"the planner gave no usable plan{' even after a repair re-ask' if cfg.repair_reask else ''}: "
            f'{shown!r}. Its reply must hold a JSON object like {{"steps": [...]}}; check the planner '
            "prompt or bind a stronger planner model."
            + (f" {ctx.cut_note('planner')}" if ctx.last_finish == "length" else "")
        )
    shaped, cut = shape_plan(
        steps, first_id=1, max_steps=cfg.options.max_plan_steps, synthesis=label("synthesis", cfg.lang)
    )
    if cut:
        yield ctx.limit(
            "max_plan_steps",
            cfg.options.max_plan_steps,
            f"the plan had {len(steps)} steps; kept {len(shaped)}, the last being the synthesis step",
        )
    return shaped


def _ask_plan(
    ctx: RunContext, messages: list[Message], **labels: Any
) -> Generator[ev.Event, None, tuple[list[PlanStep] | None, str]]:
    """A planner call with one optional repair re-ask; returns the steps (None if unusable) and the reply."""
    names = ctx.tools.names()
    completion = yield from ctx.llm("planner", messages, **labels)
    steps = parse_plan(completion.text, names)
    if not steps and ctx.config.repair_reask:
        retry = [*messages, assistant(completion.text), user(REPAIR_REQUEST[ctx.config.lang])]
        completion = yield from ctx.llm("planner", retry, repair=True, **labels)
        steps = parse_plan(completion.text, names)
    return steps or None, completion.text


def _replan(ctx: RunContext, plan: Plan) -> Events:
    cfg, lang = ctx.config, ctx.config.lang
    plan.replans += 1
    ctx.step = None
    remaining = plan.pending()
    progress = plan.lines(lang, ("done", "failed", "skipped", "pending"), synthesis=True)
    prompt = ctx.prompts.render(
        "replanner",
        goal=ctx.task,
        progress=progress or label("none", lang),
        tools=ctx.tools.describe(lang),
        max_steps=cfg.options.max_plan_steps,
    )
    steps, _reply = yield from _ask_plan(
        ctx,
        [user(prompt)],
        revision=plan.revision + 1,
        replan=True,
        prompt="replanner",
        inputs={"goal": ctx.task, "progress": progress},
    )
    plan.revision += 1
    # an unusable re-plan keeps the remaining steps: the new revision then shows nothing changed
    if steps is not None:
        new, cut = shape_plan(
            steps, first_id=plan.next_id(), max_steps=cfg.options.max_plan_steps, synthesis=label("synthesis", lang)
        )
        for old in remaining:
            old.status = "replanned"
        plan.steps.extend(new)
        if cut:
            yield ctx.limit(
                "max_plan_steps",
                cfg.options.max_plan_steps,
                f"re-plan {plan.revision} had {len(steps)} steps; kept {len(new)}",
            )
    yield plan.event(ctx)


def _run_step(ctx: RunContext, plan: Plan, step: PlanStep) -> Events:
    """Attempt a step until it is accepted or failed; leaves `step.status` at done or failed."""
    cfg = ctx.config
    hint = ""
    attempt_no = 0
    while True:
        attempt_no += 1
        step.status = "running"
        yield ctx.event(ev.StepStarted, step_id=step.id, description=step.description, attempt=attempt_no)
        run = _synthesize if step.synthesis else _execute
        attempt = yield from run(ctx, plan, step, hint, attempt_no)
        verdict = yield from _review(ctx, plan, step, attempt, attempt_no)
        if verdict is not None and verdict.verdict == "RETRY":
            if attempt_no <= cfg.options.max_step_retries:
                yield ctx.event(ev.StepFinished, step_id=step.id, status="retried", result=attempt.text)
                hint = verdict.suggestion or verdict.analysis
                continue
            yield ctx.limit(
                "max_step_retries",
                cfg.options.max_step_retries,
                f"step {step.id} was retried {cfg.options.max_step_retries} time(s); accepting its result",
            )
        elif verdict is not None and verdict.verdict == "REPLAN":
            if not (step.synthesis and plan.replans >= cfg.options.max_replans):
                step.status = "failed"
                step.result = verdict.analysis or verdict.suggestion or label("replan_reason", cfg.lang)
                yield ctx.event(ev.StepFinished, step_id=step.id, status="failed", result=step.result)
                return
            yield ctx.limit(
                "max_replans",
                cfg.options.max_replans,
                "the synthesis step asked for a re-plan, but none are left; accepting its result",
            )
        step.status, step.result = "done", attempt.text
        if step.synthesis:
            ctx.best_answer = attempt.text
            if verdict is not None and verdict.passed and verdict.parsed and ctx.end_reason == "answer":
                ctx.end_reason = "pass"
        else:
            # what a budget stop returns before synthesis: the results gathered so far
            ctx.best_answer = "\n\n".join(s.result for s in plan.steps if s.status == "done" and not s.synthesis)
        yield ctx.event(ev.StepFinished, step_id=step.id, status="done", result=attempt.text)
        return


def _labels(plan: Plan, step: PlanStep, attempt_no: int) -> dict[str, Any]:
    """Where a step call stands: labels it in traces (and lets the offline model play its script)."""
    return {
        "step_id": step.id,
        "attempt": attempt_no,
        "synthesis": step.synthesis,
        "tool": step.tool,
        "revision": plan.revision,
    }


def _hint_section(hint: str, lang: str) -> str:
    return section("hint", f"{hint}\n{label('hint_follow_up', lang)}", lang) if hint else ""


def _goal_section(ctx: RunContext) -> str:
    return section("goal", ctx.task, ctx.config.lang) if ctx.config.options.goal_aware_executor else ""


def _execute(
    ctx: RunContext, plan: Plan, step: PlanStep, hint: str, attempt_no: int
) -> Generator[ev.Event, None, Attempt]:
    """One attempt at a work step: a tool loop of at most `max_step_rounds` rounds."""
    cfg, lang = ctx.config, ctx.config.lang
    prompt = ctx.prompts.render(
        "executor",
        step=step.description,
        tool=step.tool or label("none", lang),
        tools=ctx.tools.describe(lang),
        context=section("context", plan.lines(lang, ("done",)), lang),
        goal=_goal_section(ctx),
        hint=_hint_section(hint, lang),
    )
    messages: list[Message] = [user(prompt)]
    inputs = {"step": step.description, "goal": ctx.task if cfg.options.goal_aware_executor else "", "hint": hint}
    seen: list[Seen] = []
    round_no = 0
    while True:
        round_no += 1
        last = round_no >= cfg.options.max_step_rounds
        if last and round_no > 1:
            messages.append(user(ctx.prompts.render("executor_final")))
        use_tools = bool(len(ctx.tools)) and not last
        completion = yield from ctx.llm(
            "executor",
            messages,
            tools=use_tools,
            round=round_no,
            last_round=last,
            has_hint=bool(hint),
            prompt="executor",
            inputs=inputs,
            **_labels(plan, step, attempt_no),
        )
        text = strip_think(completion.text)
        calls = completion.tool_calls if use_tools else ()  # calls in a tools-off round are ignored
        if not calls:
            return Attempt(text, tuple(seen))
        if text:
            yield ctx.event(ev.Thought, text=text)
        messages.append(assistant(completion.text, calls))
        for call in calls:
            output, is_error = yield from ctx.run_tool(call)
            seen.append(Seen(call.name, output, is_error))
            messages.append(tool_message(call, output))


def _synthesize(
    ctx: RunContext, plan: Plan, step: PlanStep, hint: str, attempt_no: int
) -> Generator[ev.Event, None, Attempt]:
    """One attempt at the synthesis step: completed results and failure reasons in, the reply out."""
    lang = ctx.config.lang
    completed = plan.lines(lang, ("done",))
    failed = plan.lines(lang, ("failed", "skipped"))
    all_failed = bool(failed) and not completed
    values = {
        "step": step.description,
        "failed": section("failed", failed, lang),
        "goal": _goal_section(ctx),
        "hint": _hint_section(hint, lang),
    }
    if all_failed:
        prompt = ctx.prompts.render("synthesizer_all_failed", **values)
    else:
        prompt = ctx.prompts.render("synthesizer", completed=completed or label("none", lang), **values)
    inputs = {"step": step.description, "completed": completed, "failed": failed, "hint": hint}
    completion = yield from ctx.llm(
        "synthesizer",
        [user(prompt)],
        all_failed=all_failed,
        has_hint=bool(hint),
        prompt="synthesizer_all_failed" if all_failed else "synthesizer",
        inputs=inputs,
        **_labels(plan, step, attempt_no),
    )
    return Attempt(strip_think(completion.text))


def _review(
    ctx: RunContext, plan: Plan, step: PlanStep, attempt: Attempt, attempt_no: int
) -> Generator[ev.Event, None, Verdict | None]:
    """The verdict on one attempt, or None when it is accepted without review."""
    cfg, lang = ctx.config, ctx.config.lang
    error = attempt.tool_error() if cfg.options.rule_precheck else None
    if error is not None:
        analysis = label("precheck", lang, tool=error.tool, error=error.output[:300])
        verdict = Verdict("REPLAN", feedback=analysis, analysis=analysis)
    elif not cfg.options.reflector or (cfg.options.selective_reflection and not attempt.observations):
        return None
    else:
        observed = "\n".join(f"- {s.tool}{' [error]' if s.is_error else ''}: {s.output}" for s in attempt.observations)
        prompt = ctx.prompts.render(
            "reflector",
            goal=ctx.task,
            step=step.description,
            result=attempt.text or label("none", lang),
            observations=section("observations", observed, lang),
        )
        fallback = Verdict("PASS", analysis=label("unparsed", lang), parsed=False)
        inputs = {
            "goal": ctx.task,
            "step": step.description,
            "result": attempt.text or label("none", lang),
            "observations": observed,
        }
        verdict = yield from ctx.judge(
            "reflector",
            [user(prompt)],
            parse_step_verdict,
            fallback,
            prompt="reflector",
            inputs=inputs,
            **_labels(plan, step, attempt_no),
        )
    yield ctx.verdict_event("reflector", verdict)
    return verdict
