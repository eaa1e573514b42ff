"""Self-consistency (Wang et al. 2023): k independent samples of one prompt, their final answers voted on.

Samples. The sampler answers the same messages `num_samples` (k) times, each call on its own: no sample
sees another. Each is sent at a temperature above zero so that chance, not the prompt, tells them
apart: the run's temperature when one is set (the sidebar's), else `sample_temperature` (0.7); a
server that ignores the field samples at its own default, which the call record says (`temperature`).
Event `step` is the sample's number (1 … k); each sample's reply is a `thought` of that step.

The vote (vote.py). Each reply's final answer is extracted and normalised — the last `#### X`, else the
last answer line ("Answer: X", "答案：X"), else the first code block, else the last number, else the
whole reply; a number is compared as a number, text with whitespace folded and case ignored — and
the answer most samples gave wins. A tie goes to the tied answer that came first. The vote is the
run's verdict: a `verdict` event in the role vote (a role no model is called in; step None) whose
feedback is the tally ("23: 2 of 3 samples (2, 3); 22: 1 of 3 (1)") and whose analysis says how it was
decided; PASS when more than half the samples agree (a majority), REVISE when none does (the plurality
or the tie rule decided).

The arbiter (`use_arbiter`, off by default). When the samples disagree, one more call sees the task,
each distinct answer (lettered A, B… in the order they first came) with its votes and the reasoning
of the first sample that gave it, and the vote's pick; it keeps the pick (PASS) or chooses another
by its letter (REVISE). Its verdict is the second `verdict` event, in role arbiter; a reply that names
no answer of this vote is asked for once more (the repair re-ask), then falls back to the vote's pick,
shown as an unparsed verdict. When every sample agrees there is nothing to choose and no call is made.

The answer is the whole reply of the first sample that gave the chosen answer.

Tools: none. Self-consistency votes over independent chains of thought (the paper's setting); a tool
turn per sample would double the bound and let one sample's observation differ from another's for
reasons other than chance, so the pattern does not offer the scenario's tools (`uses_tools=False`).

Call bound: k, plus r with the arbiter, where r is 2 with the repair re-ask, else 1.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator

from ... import events as ev
from ...config import RunConfig
from ...messages import Message, system, user
from ...models import ModelRouter
from ...tools import ToolRegistry
from ...verdicts import Verdict, strip_think
from ..base import Body, RunContext, run_pattern
from .options import SelfConsistencyOptions
from .prompts import PROMPTS
from .roles import LETTERS, VOTE, parse_pick
from .vote import Ballot, Group, Tally, ballot, tally
from .vote import normalised as normalised_answer

#: characters of one answer's reasoning the arbiter is shown
REASONING_CHARS = 1500


def call_bound(config: RunConfig[SelfConsistencyOptions]) -> int:
    """The most LLM calls a self-consistency run makes: k samples, and the arbiter's r when it is on."""
    options = config.options
    return options.num_samples + ((2 if config.repair_reask else 1) if options.use_arbiter else 0)


def stream(
    task: str, config: RunConfig[SelfConsistencyOptions], models: ModelRouter, tools: ToolRegistry | None = None
) -> Iterator[ev.Event]:
    """Run self-consistency on `task`, yielding events as they happen (tools are not offered)."""
    return run_pattern(task, config, models, None, _body, call_bound(config), PROMPTS)


def sample_temperature(config: RunConfig[SelfConsistencyOptions]) -> float | None:
    """The temperature the samples are sent with: None sends the run's own, when it has one."""
    return None if config.temperature is not None else config.options.sample_temperature


def _body(ctx: RunContext) -> Body:
    cfg: RunConfig[SelfConsistencyOptions] = ctx.config
    options = cfg.options
    k, lang = options.num_samples, cfg.lang
    messages: list[Message] = [system(ctx.prompts.render("sample")), user(ctx.task)]
    temperature = sample_temperature(cfg)
    ballots: list[Ballot] = []
    for i in range(1, k + 1):
        ctx.step = i
        completion = yield from ctx.llm("sampler", messages, prompt="sample", attempt=i, temperature=temperature)
        reply = strip_think(completion.text)
        if reply:
            yield ctx.event(ev.Thought, text=reply)
        cast = ballot(i, completion.text)
        if cast is not None:
            ballots.append(cast)
            so_far = tally(i, ballots)
            ctx.best_answer = so_far.text_of(so_far.winner) if so_far.winner else ctx.best_answer

    ctx.step = None
    result = tally(k, ballots)
    yield ctx.event(
        ev.VerdictEvent,
        role=VOTE.name,
        verdict="PASS" if result.majority else "REVISE",
        feedback=result.line(lang),
        analysis=result.rule(lang),
    )
    chosen = result.winner
    if chosen is None:
        ctx.best_answer = ""
        return ""
    if options.use_arbiter and len(result.groups) > 1:
        chosen = yield from _arbitrate(ctx, result, chosen)
    ctx.best_answer = result.text_of(chosen)
    return ctx.best_answer


# --- the arbiter ----------------------------------------------------------------------------------


def _votes(group: Group, total: int, lang: str) -> str:
    which = ", ".join(map(str, group.samples))
    if lang == "zh":
        return f"{total} 票中 {len(group.samples)} 票（第 {which} 次采样）"
    return f"{len(group.samples)} of {total} votes (sample{'s' if len(group.samples) > 1 else ''} {which})"


def _answers_section(result: Tally, lang: str) -> str:
    parts = []
    for letter, group in zip(LETTERS, result.groups, strict=False):
        reasoning = result.text_of(group)
        if len(reasoning) > REASONING_CHARS:
            reasoning = reasoning[:REASONING_CHARS] + "…"
        parts.append(f"### {letter} · {group.shown} — {_votes(group, result.total, lang)}\n{reasoning}")
    return "\n\n".join(parts)


def _resolve(choice: str, letters: dict[str, Group], result: Tally) -> Group | None:
    """The answer an arbiter's choice names: by its letter, or by the answer itself; None for neither."""
    if choice.upper() in letters:
        return letters[choice.upper()]
    key = normalised_answer(choice)[0]
    return next((g for g in result.groups if g.key == key), None)


def _arbitrate(ctx: RunContext, result: Tally, pick: Group) -> Generator[ev.Event, None, Group]:
    """The arbiter's review of the vote; returns the answer it chose (the vote's pick unless REVISE)."""
    lang = ctx.config.lang
    letters = dict(zip(LETTERS, result.groups, strict=False))
    pick_letter = next(letter for letter, g in letters.items() if g is pick)
    pick_line = f"{pick_letter} · {pick.shown} — {result.rule(lang)}"
    answers = _answers_section(result, lang)
    prompt = ctx.prompts.render("arbiter", task=ctx.task, answers=answers, pick=pick_line)
    chosen: list[Group] = []

    def read(text: str) -> Verdict | None:
        said = parse_pick(text)
        if said is None:
            return None
        group = pick if said.verdict == "PASS" else _resolve(said.choice, letters, result)
        if group is None:
            return None  # it names no answer of this vote: the repair re-ask, then the fallback
        chosen[:] = [group]
        letter = next(le for le, g in letters.items() if g is group)
        if group is pick:
            analysis = (
                f"保留投票结果 {letter}：{group.shown}。"
                if lang == "zh"
                else f"Keeps the vote's pick, {letter}: {group.shown}."
            )
            return Verdict("PASS", feedback=said.feedback, analysis=analysis)
        analysis = (
            f"改选 {letter}：{group.shown}，而不是投票选出的 {pick_letter}：{pick.shown}。"
            if lang == "zh"
            else f"Chooses {letter}: {group.shown} over the vote's {pick_letter}: {pick.shown}."
        )
        return Verdict("REVISE", feedback=said.feedback, analysis=analysis)

    fallback = Verdict(
        "PASS",
        parsed=False,
        analysis=(
            f"仲裁者的回复没有指明本次投票中的任何答案；维持投票结果 {pick_letter}：{pick.shown}。"
            if lang == "zh"
            else f"The arbiter's reply names no answer of this vote; the vote's pick {pick_letter}: {pick.shown} stands."
        ),
    )
    choices = json.dumps({letter: g.shown for letter, g in letters.items()}, ensure_ascii=False)
    verdict = yield from ctx.judge(
        "arbiter",
        [user(prompt)],
        read,
        fallback,
        prompt="arbiter",
        inputs={"answers": answers, "pick": pick_letter, "choices": choices},
    )
    yield ctx.verdict_event("arbiter", verdict)
    return chosen[0] if verdict.parsed and chosen else pick
