"""ReAct (seeds 01, 05): reason, call a tool, observe, repeat — with an optional reflection advisor.

Native tool calling, or the Thought / Action / Action Input / Observation / Final Answer text
protocol for models without it. Guards (seed 03): `max_rounds` then one forced final answer with
tools disabled; a repeated identical tool call gets a reminder, and ends the loop the second time;
consecutive near-identical thoughts (Jaccard > 0.7) end the loop. The reflection advisor (seed 01)
judges each final answer; on REVISE its feedback is injected and the loop goes on, up to
`max_reflection_rounds` judgements, after which the current answer is returned. The optional
observation check (seed 03, last part) has a reflector look at each round's tool results and append
a hint to the observation when they hold an error or miss the target.

Call bound: max_rounds + 1 + max_reflection_rounds * r (+ max_rounds * r with the observation
check), where r is 2 with the repair re-ask, else 1.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ... import events as ev
from ...config import RunConfig
from ...messages import Message, ToolCall, assistant, system, tool_message, user
from ...models import ModelRouter
from ...tools import ToolRegistry, parse_arguments
from ...verdicts import Verdict, extract_json, parse_judgement, parse_step_verdict, strip_think
from ..base import Body, RunContext, run_pattern
from .options import ReactOptions
from .prompts import PROMPTS

JACCARD_LIMIT = 0.7


def call_bound(config: RunConfig[ReactOptions]) -> int:
    """The most LLM calls a ReAct run can make with these limits."""
    r = 2 if config.repair_reask else 1
    checks = config.options.max_rounds * r if config.options.observation_check else 0
    return config.options.max_rounds + 1 + config.options.max_reflection_rounds * r + checks


@dataclass
class ConversationMemory:
    """A window of earlier turns for multi-turn use: the last `window` messages are sent again."""

    window: int = 20
    messages: list[Message] = field(default_factory=list)

    def history(self) -> list[Message]:
        return self.messages[-self.window :] if self.window else []

    def add_turn(self, question: str, answer: str) -> None:
        self.messages += [user(question), assistant(answer)]
        del self.messages[: -self.window]


def stream(
    task: str,
    config: RunConfig[ReactOptions],
    models: ModelRouter,
    tools: ToolRegistry | None = None,
    memory: ConversationMemory | None = None,
) -> Iterator[ev.Event]:
    """Run ReAct on `task`, yielding events as they happen."""

    def remembered(ctx: RunContext) -> Body:
        answer = yield from _loop(ctx, memory)
        memory.add_turn(task, answer)  # type: ignore[union-attr]
        return answer

    # without memory the loop is the body itself: one generator fewer for every event to pass through
    body = remembered if memory is not None else functools.partial(_loop, memory=None)
    return run_pattern(task, config, models, tools, body, call_bound(config), PROMPTS)


# --- text protocol --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextStep:
    thought: str = ""
    action: str = ""
    action_input: str = ""
    final_answer: str | None = None


# `[^\S\n]*`, not `\s*`, before a field's name: `\s*` after `^` ran across line breaks, so a reply of n
# blank lines cost n² steps (a 8 KB reply of newlines took a second)
_FIELD = re.compile(r"^[^\S\n]*(Thought|Action Input|Action|Final Answer)\s*[:：]\s*", re.MULTILINE | re.IGNORECASE)
_OBSERVATION = re.compile(r"^[^\S\n]*Observation\s*[:：]", re.MULTILINE | re.IGNORECASE)


def parse_text_step(text: str) -> TextStep:
    """Split a text-protocol reply into its fields; anything after an invented Observation is ignored."""
    body = strip_think(text)
    body = _OBSERVATION.split(body, maxsplit=1)[0]
    parts: dict[str, str] = {}
    matches = list(_FIELD.finditer(body))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        parts.setdefault(m.group(1).lower(), body[m.end() : end].strip())
    final = parts.get("final answer")
    raw_input = parts.get("action input", "")
    if raw_input:
        obj = extract_json(raw_input)
        raw_input = _json(obj) if obj is not None else raw_input
    if not matches and body.strip():
        final = None
    return TextStep(
        parts.get("thought", "" if matches else body.strip()), parts.get("action", "").strip("` "), raw_input, final
    )


def _json(obj: object) -> str:
    import json

    return json.dumps(obj, ensure_ascii=False)


# --- the loop -------------------------------------------------------------------------------------


def _similarity(a: str, b: str) -> float:
    def tokens(s: str) -> set[str]:
        return set(re.findall(r"[\u3000-\u9fff]|[A-Za-z0-9_]+", s.lower()))

    ta, tb = tokens(a), tokens(b)
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


def _loop(ctx: RunContext, memory: ConversationMemory | None) -> Body:
    cfg, prompts = ctx.config, ctx.prompts
    text_mode = cfg.options.text_protocol
    use_tools = bool(len(ctx.tools)) and not text_mode
    key = "text_protocol" if text_mode else "actor_system"
    messages: list[Message] = [system(prompts.render(key, tools=ctx.tools.describe(cfg.lang)))]
    if memory is not None:
        messages += memory.history()
    messages.append(user(ctx.task))

    rounds = judged = repeats = 0
    #: the previous tool call (name, raw arguments, parsed arguments): a repeat is the same name with the
    #: same raw text or, key order aside, the same arguments
    last_call: tuple[str, str, dict | None] | None = None
    last_thought = ""
    while True:
        if rounds >= cfg.options.max_rounds:
            yield ctx.limit(
                "max_rounds",
                cfg.options.max_rounds,
                f"{cfg.options.max_rounds} rounds used; forcing a final answer with tools disabled",
            )
            return (yield from _forced_final(ctx, messages))
        rounds += 1
        ctx.step = rounds
        completion = yield from ctx.llm(
            "actor", messages, tools=use_tools, round=rounds, judged=judged, protocol="text" if text_mode else "native"
        )

        if text_mode:
            step = parse_text_step(completion.text)
            thought, final = step.thought, step.final_answer
            # a Final Answer wins over an Action in the same reply, as in seed 05
            calls: tuple[ToolCall, ...] = (
                (ToolCall(f"text-{rounds}", step.action, step.action_input),) if step.action and final is None else ()
            )
            if not calls and final is None:
                if thought:
                    yield ctx.event(ev.Thought, text=thought)
                messages += [assistant(completion.text), user(prompts.render("format_reminder"))]
                continue
        else:
            calls = completion.tool_calls
            thought = strip_think(completion.text) if calls else ""
            final = None if calls else strip_think(completion.text)

        if thought:
            yield ctx.event(ev.Thought, text=thought)
            if calls and last_thought and _similarity(thought, last_thought) > JACCARD_LIMIT:
                messages.append(assistant(completion.text, () if text_mode else calls))
                _close_calls(messages, calls, text_mode, "not run: the loop stopped for lack of progress")
                yield ctx.limit(
                    "no_progress",
                    rounds,
                    f"two consecutive thoughts are near-identical (Jaccard > {JACCARD_LIMIT}); forcing a final answer",
                )
                return (yield from _forced_final(ctx, messages))
            last_thought = thought

        if final is not None:
            ctx.best_answer = final
            if cfg.options.max_reflection_rounds == 0:
                return final
            # each judged answer is a draft, so the UI can show what a REVISE was about and the diff
            yield ctx.event(ev.Draft, version=judged, text=final)
            verdict = yield from ctx.judge(
                "judge",
                [user(prompts.render("judge", question=ctx.task, answer=final))],
                parse_judgement,
                Verdict("PASS", analysis="the judge's reply could not be parsed; answer accepted", parsed=False),
                round=rounds,
                judged=judged,
                prompt="judge",
            )
            judged += 1
            yield ctx.verdict_event("judge", verdict)
            if verdict.passed:
                ctx.end_reason = "pass"
                return final
            if judged >= cfg.options.max_reflection_rounds:
                yield ctx.limit(
                    "max_reflection_rounds",
                    cfg.options.max_reflection_rounds,
                    f"{judged} judgement(s) without a pass; returning the current answer",
                )
                return final
            messages += [assistant(final), user(prompts.render("feedback", feedback=verdict.feedback or "-"))]
            continue

        messages.append(assistant(completion.text, () if text_mode else calls))
        for i, call in enumerate(calls):
            arguments, _problem = parse_arguments(call.arguments)
            if (
                last_call is not None
                and call.name == last_call[0]
                and (call.arguments == last_call[1] or (arguments is not None and arguments == last_call[2]))
            ):
                repeats += 1
                if repeats >= 2:
                    _close_calls(messages, calls[i:], text_mode, "not run: repeated identical call")
                    yield ctx.limit(
                        "repeated_tool_call",
                        repeats,
                        f"{call.name} was called with the same arguments three times in a row",
                    )
                    return (yield from _forced_final(ctx, messages))
                reminder = prompts.render("repeat_reminder", tool=call.name)
                shown = arguments if arguments is not None else call.arguments
                yield ctx.event(ev.ToolCallEvent, name=call.name, arguments=shown, call_id=call.id)
                yield ctx.event(ev.ToolResult, name=call.name, output=reminder, is_error=True, call_id=call.id)
                _observe(messages, call, reminder, text_mode)
                continue
            repeats = 0
            last_call = (call.name, call.arguments, arguments)
            output, _is_error = yield from ctx.run_tool(call, arguments)
            _observe(messages, call, output, text_mode)
        if cfg.options.observation_check and calls:
            yield from _check_observations(ctx, messages, len(calls), rounds)


def _check_observations(ctx: RunContext, messages: list[Message], count: int, rounds: int) -> Body:
    """Seed 03's ReAct + Reflection: judge this round's observations and append a hint to the last
    one when they hold an error (REPLAN) or miss the target (RETRY)."""
    observations = "\n".join(m.content for m in messages[-count:])
    verdict = yield from ctx.judge(
        "reflector",
        [user(ctx.prompts.render("observation_check", task=ctx.task, observations=observations))],
        parse_step_verdict,
        Verdict("PASS", analysis="the check's reply could not be parsed", parsed=False),
        round=rounds,
        prompt="observation_check",
        inputs={"observations": observations},
    )
    yield ctx.verdict_event("reflector", verdict)
    if verdict.verdict != "PASS":
        last = messages[-1]
        hint = ctx.prompts.render("observation_hint", analysis=verdict.analysis, suggestion=verdict.suggestion)
        messages[-1] = last._replace(content=f"{last.content}\n{hint}")
    return ""


def _forced_final(ctx: RunContext, messages: list[Message]) -> Body:
    messages.append(user(ctx.prompts.render("forced_final")))
    completion = yield from ctx.llm(
        "actor", messages, tools=False, forced=True, protocol="text" if ctx.config.options.text_protocol else "native"
    )
    text = strip_think(completion.text)
    if ctx.config.options.text_protocol:
        step = parse_text_step(text)
        text = step.final_answer if step.final_answer is not None else text
    ctx.best_answer = text or ctx.best_answer
    return ctx.best_answer


def _observe(messages: list[Message], call: ToolCall, output: str, text_mode: bool) -> None:
    messages.append(user(f"Observation: {output}") if text_mode else tool_message(call, output))


def _close_calls(messages: list[Message], calls: tuple[ToolCall, ...], text_mode: bool, note: str) -> None:
    """Answer every pending tool call so the history stays valid for the next request."""
    if not text_mode:
        messages += [tool_message(c, note) for c in calls]
