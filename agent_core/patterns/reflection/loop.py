"""Reflection (seeds 02, 04, 05): execute, reflect, refine — until the critic passes or the cap.

Classic loop (seed 04). The actor writes draft 0. Then, up to `max_iterations` times: the critic
judges the latest draft — a JSON verdict PASS/REVISE with analysis and feedback, or free text in which
a stop phrase ("no improvement needed", "无需改进") means PASS; on PASS the run ends. On REVISE the
refiner writes the next draft from the task, the last draft and the feedback, plus, with
`use_trajectory`, the whole short-term memory of drafts and critiques (seed 04's `Memory`; an edited
critic template may use it too, through {trajectory}). As in
seed 04, every critique may be followed by a refinement, so a REVISE is always acted on: at the cap
the last draft was never critiqued, and it is still the answer, after
`limit_reached("max_iterations")`. A run makes at most max_iterations critiques and
max_iterations + 1 drafts.

Graph style (seed 02, `graph_style`). A generator (role actor) and a reviewer (role critic) take
turns on one message history: each review becomes a user message for the generator, which answers
with a complete new version. The reviewer sees the same history with the speakers swapped, so the
draft under review arrives as the user's turn. Up to `max_iterations` review rounds; the reviewer may
still stop early with PASS or a stop phrase; the last generator output wins. The shared history is
the memory here, so `use_trajectory` does not apply.

Quality criteria (`criteria`, seed 05) go into the critic's, reviewer's, refiner's and generator's
prompts; "default" stands for `prompts.DEFAULT_CRITERIA`. With `code_task`, drafts are the
code alone: code fences and any prose around them are dropped from `draft` events.

Unit tests (Reflexion's test-feedback loop, `test_evaluator`; implies a code task): every draft is
run against `config.options.tests` in the sandbox, with no LLM call. The UI sees a tool call named
"unit_tests": `tool_call(name="unit_tests", arguments={"draft": version}, call_id="unit_tests-<version>")`
before the run and `tool_result(name="unit_tests", output=<summary, then details when failing>,
is_error=<not passed>)` after it, both with the draft's step. The result is shown to the critic (the
{tests} section) or the reviewer; failing tests force REVISE, with the failure summary leading the
feedback, even when the critic would pass.

A lenient critic (`lenient_critic`, Compare's "strict vs lenient" lanes): the critic's or reviewer's
prompt ends with `prompts.LENIENT` (pass unless a factual error or the task is not done), and its
call's context carries the input `stance = "lenient"`, which is what the offline critic reads: a
script never reads a prompt's wording.

`step` on events is the iteration: 0 for draft 0, i for the i-th critique, the refinement after it
and draft i (so a draft's step is its version).

Call bound (both styles): 1 + max_iterations * (r + 1), where r is 2 with the repair re-ask (an
empty critique is asked for once more), else 1.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ... import events as ev
from ...config import RunConfig
from ...errors import ConfigError
from ...messages import Completion, Message, assistant, system, user
from ...models import ModelRouter
from ...tools import ToolRegistry
from ...untrusted import code_blocks
from ...verdicts import Verdict, parse_critique, strip_think
from ..base import Body, RunContext, run_pattern
from .options import ReflectionOptions
from .prompts import LENIENT, PROMPTS, RECORD_LABELS, TESTS_FAILED, resolve_criteria, section

if TYPE_CHECKING:
    from ...sandbox import TestOutcome

#: The tool name under which unit-test runs appear in events.
UNIT_TESTS = "unit_tests"
TEST_TIMEOUT_S = 5.0
TEST_MEMORY_MB = 256

_EMPTY_CRITIQUE = Verdict("PASS", analysis="the critic's reply was empty; keeping the current draft", parsed=False)


def call_bound(config: RunConfig[ReflectionOptions]) -> int:
    """The most LLM calls a Reflection run can make with these limits."""
    return 1 + config.options.max_iterations * ((2 if config.repair_reask else 1) + 1)


def stream(
    task: str, config: RunConfig[ReflectionOptions], models: ModelRouter, tools: ToolRegistry | None = None
) -> Iterator[ev.Event]:
    """Run Reflection on `task`, yielding events as they happen."""
    if config.options.test_evaluator:
        _check_tests(config.options.tests)
    body = _graph if config.options.graph_style else _classic
    return run_pattern(task, config, models, tools, body, call_bound(config), PROMPTS)


def check(config: RunConfig[ReflectionOptions]) -> None:
    """What a Reflection config needs beyond its ranges: parseable unit tests when the evaluator is on."""
    if config.options.test_evaluator:
        _check_tests(config.options.tests)


def _check_tests(tests: str) -> None:
    # refused before any model is called, rather than after the first paid-for draft
    if not tests.strip():
        raise ConfigError(
            "The unit-test evaluator is on but no tests are given: add assert statements, or turn the evaluator off."
        )
    try:
        compile(tests, "<tests>", "exec")
    except SyntaxError as exc:
        raise ConfigError(f"The unit tests do not parse (line {exc.lineno}): {exc.msg}.") from None


# --- drafts and memory ----------------------------------------------------------------------------


def clean_draft(text: str, code: bool) -> str:
    """A draft as shown and passed on: without reasoning blocks and, for code, without fences or prose."""
    body = strip_think(text)
    if not code:
        return body
    blocks = code_blocks(body)  # a linear scan: a draft is model output
    if not blocks:
        return body
    python = [b for lang, b in blocks if lang.lower() in ("", "python", "py", "python3")]
    return (python or [b for _, b in blocks])[0].strip("\n").rstrip()


@dataclass(frozen=True)
class Record:
    """One entry of the trajectory: a draft (execution) or the feedback on one (reflection)."""

    kind: Literal["execution", "reflection"]
    version: int
    content: str


@dataclass
class Memory:
    """Seed 04's short-term memory: every draft and every critique, in order."""

    records: list[Record] = field(default_factory=list)

    def add(self, kind: Literal["execution", "reflection"], version: int, content: str) -> None:
        self.records.append(Record(kind, version, content))

    def trajectory(self, lang: str) -> str:
        """The records as prompt text, oldest first."""
        key = "zh" if lang == "zh" else "en"
        return "\n\n".join(f"{RECORD_LABELS[r.kind][key].format(version=r.version)}\n{r.content}" for r in self.records)


def _is_code(config: RunConfig[ReflectionOptions]) -> bool:
    return config.options.code_task or config.options.test_evaluator


def _draft(ctx: RunContext, completion: Completion, version: int) -> Body:
    """Emit the `draft` event of a completion and return its cleaned text, the best answer so far."""
    text = clean_draft(completion.text, _is_code(ctx.config))
    ctx.best_answer = text or ctx.best_answer
    yield ctx.event(ev.Draft, version=version, text=text)
    return text


# --- unit tests -----------------------------------------------------------------------------------


def _run_tests(ctx: RunContext, draft: str, version: int) -> Generator[ev.Event, None, TestOutcome | None]:
    """Run the draft against the configured tests (when the evaluator is on), as unit_tests events."""
    if not ctx.config.options.test_evaluator:
        return None
    call_id = f"{UNIT_TESTS}-{version}"
    yield ctx.event(ev.ToolCallEvent, name=UNIT_TESTS, arguments={"draft": version}, call_id=call_id)
    # the sandbox is loaded only by a run that judges code: every other import of the core skips its cost
    from ...sandbox import run_python_tests

    outcome = run_python_tests(draft, ctx.config.options.tests, timeout_s=TEST_TIMEOUT_S, memory_mb=TEST_MEMORY_MB)
    yield ctx.event(
        ev.ToolResult, name=UNIT_TESTS, output=_report(outcome), is_error=not outcome.passed, call_id=call_id
    )
    return outcome


def _report(outcome: TestOutcome) -> str:
    return outcome.summary if outcome.passed or not outcome.details else f"{outcome.summary}\n\n{outcome.details}"


def _tests_section(outcome: TestOutcome | None, lang: str) -> str:
    return section("tests", _report(outcome), lang) if outcome is not None else ""


def _with_tests(verdict: Verdict, outcome: TestOutcome | None, lang: str) -> Verdict:
    """Failing tests force REVISE and lead the feedback (Reflexion), whatever the critic said."""
    if outcome is None or outcome.passed:
        return verdict
    failure = TESTS_FAILED["zh" if lang == "zh" else "en"].format(summary=outcome.summary)
    if verdict.passed:
        # the critic's reasons for passing would only mislead the refiner
        return Verdict(
            "REVISE",
            feedback=failure,
            parsed=verdict.parsed,
            analysis="the unit tests fail, which overrides the critic's PASS",
        )
    return Verdict(
        "REVISE",
        feedback=f"{failure}\n\n{verdict.feedback}".strip(),
        analysis=verdict.analysis,
        suggestion=verdict.suggestion,
        parsed=verdict.parsed,
    )


def _parse_critique(text: str) -> Verdict | None:
    verdict = parse_critique(text)
    return verdict if verdict.parsed else None  # None asks `ctx.judge` for its repair re-ask


def _stance_name(config: RunConfig) -> str:
    """The critic's stance as its call's context says it ("" = as the template says)."""
    return "lenient" if config.options.lenient_critic else ""


def _stance(config: RunConfig) -> str:
    """What the stance adds to the end of the critic's or reviewer's prompt."""
    return LENIENT["zh" if config.lang == "zh" else "en"] if config.options.lenient_critic else ""


def _cap(ctx: RunContext) -> ev.Event:
    n = ctx.config.options.max_iterations
    return ctx.limit(
        "max_iterations",
        n,
        f"{n} critique(s) without a PASS; the last draft (version {n}) "
        "answers the last feedback but was not critiqued itself",
    )


# --- classic loop (seed 04) -----------------------------------------------------------------------


def _classic(ctx: RunContext) -> Body:
    cfg, prompts, lang = ctx.config, ctx.prompts, ctx.config.lang
    criteria = section("criteria", resolve_criteria(cfg.options.criteria, lang), lang)
    memory = Memory()

    ctx.step = 0
    initial = prompts.render("initial_code" if _is_code(cfg) else "initial", task=ctx.task, criteria=criteria)
    completion = yield from ctx.llm(
        "actor", [user(initial)], iteration=0, version=0, prompt="initial_code" if _is_code(cfg) else "initial"
    )
    draft = yield from _draft(ctx, completion, 0)
    memory.add("execution", 0, draft)
    outcome = yield from _run_tests(ctx, draft, 0)

    for i in range(1, cfg.options.max_iterations + 1):
        ctx.step = i
        trajectory = section("trajectory", memory.trajectory(lang), lang) if cfg.options.use_trajectory else ""
        critique = prompts.render(
            "critic",
            task=ctx.task,
            draft=draft,
            criteria=criteria,
            tests=_tests_section(outcome, lang),
            trajectory=trajectory,
        ) + _stance(cfg)
        verdict = yield from ctx.judge(
            "critic",
            [user(critique)],
            _parse_critique,
            _EMPTY_CRITIQUE,
            iteration=i,
            version=i - 1,
            prompt="critic",
            inputs={"draft": draft, "tests": _report(outcome) if outcome else "", "stance": _stance_name(cfg)},
        )
        verdict = _with_tests(verdict, outcome, lang)
        memory.add("reflection", i - 1, verdict.feedback or verdict.analysis)
        yield ctx.verdict_event("critic", verdict)
        if verdict.passed:
            ctx.end_reason = "pass"
            return ctx.best_answer

        trajectory = section("trajectory", memory.trajectory(lang), lang) if cfg.options.use_trajectory else ""
        refine = prompts.render(
            "refiner",
            task=ctx.task,
            draft=draft,
            feedback=verdict.feedback or "-",
            criteria=criteria,
            trajectory=trajectory,
        )
        completion = yield from ctx.llm(
            "refiner",
            [user(refine)],
            iteration=i,
            version=i,
            prompt="refiner",
            inputs={"draft": draft, "feedback": verdict.feedback or "-"},
        )
        draft = yield from _draft(ctx, completion, i)
        memory.add("execution", i, draft)
        outcome = yield from _run_tests(ctx, draft, i)

    yield _cap(ctx)
    return ctx.best_answer


# --- graph style (seed 02) ------------------------------------------------------------------------


def _graph(ctx: RunContext) -> Body:
    cfg, prompts, lang = ctx.config, ctx.prompts, ctx.config.lang
    criteria = section("criteria", resolve_criteria(cfg.options.criteria, lang), lang)
    generator = system(prompts.render("generator", criteria=criteria))
    reviewer = system(prompts.render("reviewer", criteria=criteria) + _stance(cfg))
    history: list[Message] = [user(ctx.task)]

    ctx.step = 0
    completion = yield from ctx.llm(
        "actor", [generator, *history], iteration=0, version=0, node="generator", prompt="generator"
    )
    history.append(assistant(strip_think(completion.text)))
    draft = yield from _draft(ctx, completion, 0)
    outcome = yield from _run_tests(ctx, draft, 0)

    for i in range(1, cfg.options.max_iterations + 1):
        ctx.step = i
        seen = _as_reviewer(history, _tests_section(outcome, lang))
        verdict = yield from ctx.judge(
            "critic",
            [reviewer, *seen],
            _parse_critique,
            _EMPTY_CRITIQUE,
            iteration=i,
            version=i - 1,
            node="reviewer",
            prompt="reviewer",
            inputs={"draft": draft, "tests": _report(outcome) if outcome else "", "stance": _stance_name(cfg)},
        )
        verdict = _with_tests(verdict, outcome, lang)
        yield ctx.verdict_event("critic", verdict)
        if verdict.passed:
            ctx.end_reason = "pass"
            return ctx.best_answer

        history.append(user(verdict.feedback or verdict.analysis or "-"))
        completion = yield from ctx.llm(
            "actor",
            [generator, *history],
            iteration=i,
            version=i,
            node="generator",
            prompt="generator",
            inputs={"draft": draft, "feedback": history[-1].content},
        )
        history.append(assistant(strip_think(completion.text)))
        draft = yield from _draft(ctx, completion, i)
        outcome = yield from _run_tests(ctx, draft, i)

    yield _cap(ctx)
    return ctx.best_answer


def _as_reviewer(history: list[Message], tests: str) -> list[Message]:
    """The shared history from the reviewer's side: the task, then the speakers swapped, so the
    latest draft is the user's turn (with the unit-test result appended to it)."""
    swapped = [Message("user" if m.role == "assistant" else "assistant", m.content) for m in history[1:]]
    if tests and swapped:
        swapped[-1] = Message("user", f"{swapped[-1].content}\n{tests}")
    return [history[0], *swapped]
