"""Where an evaluation's runs go: every task × pattern × repeat, on the local pool (or on Ray, ray_backend.py).

`plan(...)` checks everything before a model is called (patterns, overrides, the scorer, repeats) and
lists the jobs in sequential order — task by task, every pattern on a task, each pattern's repeats
together — leaving out the (task_id, pattern, repeat) keys already done (a resumed `--out`).
`run_job` runs one job and returns its `rows.ResultRow`: the same function for every backend, so a
backend changes where runs go, never what a row says.

Code tasks (HumanEval, MBPP) are judged in the sandbox by their tests as harness.py does; question
tasks are answered by the pattern with `code_task` off and scored by the task's scorer (scorers.py).
The `reference` entry answers with the task's own solution or expected answer: on a valid set it
scores 100 %, which checks the set and the scorers.

Repeats: repeat r of a job asks an endpoint that honours OpenAI's `seed` for the seed
`repeat_seed(task, pattern, r)` (stable across runs and machines); the offline model is deterministic.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import zlib
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from .. import events as ev
from .. import metrics, runner
from ..config import RunConfig
from ..errors import ConfigError
from ..messages import ChatRequest, Completion
from ..models import ChatModel, ModelRouter
from ..patterns import registry
from ..pricing import PriceTable, spend
from ..ratelimit import Gate, RateGate, gated
from ..stepping import RunHandle, drive
from ..tools import ToolRegistry
from . import entries as named
from . import harness, scorers
from .pool import MAX_CONCURRENCY, Evaluation, Job
from .rows import ResultRow
from .tasks import EvalTask
from .tasksets import QuestionTask, TaskSet

MAX_REPEATS = 20

QUESTION_TEXT = {
    "en": "{question}{choices}\n\nWork it out, then give your final answer on the last line.",
    "zh": "{question}{choices}\n\n请先推理，然后在最后一行给出最终答案。",
}
CHOICES_TEXT = {
    "en": "\n\nChoices:\n{lines}\nAnswer with the letter of one choice.",
    "zh": "\n\n选项：\n{lines}\n请用一个选项的字母作答。",
}


def question_text(task: QuestionTask, lang: str = "en") -> str:
    """What an agent is asked for a question task (choices lettered A, B, ...)."""
    lang = "zh" if lang == "zh" else "en"
    lines = "\n".join(f"{scorers._LETTERS[i]}. {c}" for i, c in enumerate(task.choices))
    choices = CHOICES_TEXT[lang].format(lines=lines) if task.choices else ""
    return QUESTION_TEXT[lang].replace("{question}", task.question).replace("{choices}", choices)


def repeat_seed(task_id: str, pattern: str, repeat: int) -> int:
    """A stable seed per job: the same task, pattern and repeat ask for the same seed on every run."""
    return zlib.crc32(f"{task_id}\x00{pattern}\x00{repeat}".encode()) & 0x7FFFFFFF


@dataclass(frozen=True)
class Plan:
    """A checked evaluation: what runs, how it is scored, and how many times."""

    task_set: TaskSet
    patterns: tuple[str, ...]
    repeats: int = 1
    lang: str = "en"
    timeout_s: float = 5.0
    configs: Mapping[str, RunConfig | None] = dataclasses.field(default_factory=dict)
    judge_prompts: Mapping[str, Mapping[str, str]] | None = None
    #: the named entries among `patterns`: label -> the pattern the entry runs
    entries: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def runs(self, key: str) -> str:
        """The pattern a row's key runs: an entry's pattern, or a pattern entry's ("" for the reference)."""
        if key in self.entries:
            return self.entries[key]
        return harness.ENTRIES[key][0].name if key in harness.ENTRIES else ""

    def drafts_scored(self, key: str) -> bool:
        """Whether every draft of this key's runs is scored (multi-draft patterns), as harness.py does."""
        if key in self.entries:
            return named.drafts_scored(self.entries[key])
        return key in harness.ENTRIES and harness.ENTRIES[key][1].rounds

    def jobs(self, done: Collection[tuple[str, str, int]] = ()) -> list[Job]:
        """Every (task, pattern, repeat) not in `done`, in sequential order."""
        done = set(done)
        keys = [(t, p, r) for t in self.task_set.tasks for p in self.patterns for r in range(self.repeats)]
        return [
            Job(i, t.task_id, p, (t, r))
            for i, (t, p, r) in enumerate(k for k in keys if (k[0].task_id, k[1], k[2]) not in done)
        ]

    @property
    def total(self) -> int:
        return len(self.task_set.tasks) * len(self.patterns) * self.repeats


def plan(
    task_set: TaskSet,
    patterns: Collection[str],
    *,
    repeats: int = 1,
    limit: int | None = None,
    lang: str = "en",
    timeout_s: float = 5.0,
    config_overrides: Mapping[str, Any] | None = None,
    judge_prompts: Mapping[str, Mapping[str, str]] | None = None,
    entries: Iterable[named.Entry | tuple[object, RunConfig | Mapping[str, Any]]] = (),
) -> Plan:
    """A Plan, or ConfigError saying what cannot run.

    `entries` are named run configs (entries.py) run after the patterns by name, each under its
    label: labels are cleaned and made unique (also against the patterns), configs checked here."""
    patterns = tuple(dict.fromkeys(patterns))
    chosen = named.parse(entries, taken=harness.EVAL_PATTERNS)
    if not patterns and not chosen:
        raise ConfigError(f"choose at least one pattern: {', '.join(harness.EVAL_PATTERNS)}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or not 1 <= repeats <= MAX_REPEATS:
        raise ConfigError(f"repeats must be an integer from 1 to {MAX_REPEATS}, got {repeats!r}")
    if limit is not None:
        if limit < 1:
            raise ConfigError(f"limit must be at least 1, got {limit}")
        task_set = dataclasses.replace(task_set, tasks=task_set.tasks[:limit])
    configs: dict[str, RunConfig | None] = {}
    for p in patterns:
        config = harness._config(p, lang, config_overrides or {})
        if config is not None and not task_set.is_code:
            if p in harness.SEES_TESTS:
                raise ConfigError(f"{p} runs drafts against unit tests; a {task_set.format} question set has none")
            # a question is no code task: the options Eval sets for code go back to the pattern's own defaults
            spec = registry.get(config.pattern)
            plain = spec.options().to_dict()
            config = config.replace(**{name: plain[name] for name in spec.eval_defaults})
        configs[p] = config
    for entry in chosen:
        config = entry.config
        if not task_set.is_code:  # as for the patterns: a question set runs without Eval's code options
            spec = registry.get(config.pattern)
            plain = spec.options().to_dict()
            config = config.replace(**{name: plain[name] for name in spec.eval_defaults})
        configs[entry.label] = config
    labels = {e.label: e.pattern for e in chosen}
    return Plan(task_set, (*patterns, *labels), repeats, lang, timeout_s, configs, judge_prompts, labels)


class SeededModel:
    """A ChatModel asking its endpoint for a fixed seed (OpenAI's `seed`; servers that ignore it still answer)."""

    def __init__(self, inner: ChatModel, seed: int) -> None:
        self.inner, self.seed, self.name = inner, seed, inner.name

    def stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        extra = getattr(self.inner, "_stream", None)
        if extra is not None:  # llm.OpenAICompatibleModel: the seed goes into the request body
            yield from extra(request, {"seed": self.seed})
        else:
            yield from self.inner.stream(request)


def seeded(router: ModelRouter, seed: int) -> ModelRouter:
    return ModelRouter(SeededModel(router.default, seed), {r: SeededModel(m, seed) for r, m in router.by_role.items()})


def run_job(
    p: Plan,
    job: Job,
    models: ModelRouter | None,
    prices: PriceTable,
    stopped: threading.Event | None = None,
    gate: Gate | None = None,
) -> ResultRow | None:
    """One job's row (None when stopped part-way): the same for every backend. Every call goes through
    `gate` (the endpoint's shared 429 back-off), the repeat's seed inside it."""
    task, repeat = job.payload
    config = p.configs[job.pattern]
    started = time.perf_counter()
    router = None
    if models is not None:
        router = seeded(models, repeat_seed(task.task_id, job.pattern, repeat))
        router = gated(router, gate) if gate is not None else router
    if isinstance(task, EvalTask):
        row: harness.EvalRow | None
        if config is None:
            row = harness._reference_row(task, p.timeout_s)
        else:
            assert router is not None
            row = harness._agent_row(
                task, job.pattern, config, router, p.lang, p.timeout_s, stopped, prices, p.drafts_scored(job.pattern)
            )
            if row is None:
                return None
        return ResultRow(
            task.task_id,
            job.pattern,
            repeat,
            row.passed,
            row.status,
            1.0 if row.passed else 0.0,
            row.llm_calls,
            row.total_tokens,
            row.cost_usd,
            "tests",
            row.summary,
            row.error,
            row.rounds or ((row.passed,) if row.llm_calls else ()),
            row.round_calls or ((row.llm_calls,) if row.llm_calls else ()),
            round(time.perf_counter() - started, 3),
            row.code,
            p.runs(job.pattern),
        )
    events: list[ev.Event] = []
    if config is None:
        answer, error = ("" if task.scorer == "regex" else task.answer), ""
    else:
        assert router is not None
        answer, ran = _answer(task, config.replace(scenario=f"eval/{task.task_id}"), router, p.lang, stopped)
        if ran is None:
            return None
        events, error = ran, metrics.summary(ran).error
    score = score_answer(task, answer, router, p.lang, p.judge_prompts)
    cost = metrics.summary(events)
    used = spend(events, prices)
    usd = round(used.usd + score.cost_usd, 6) if used.known else None
    detail = score.detail if not (error and not answer) else f"the run failed: {error}"
    if config is not None and p.drafts_scored(job.pattern):
        verdicts, spent = _drafts(task, events, answer, score, router, p)
    else:
        verdicts, spent = ((score.passed,), (cost.llm_calls,)) if cost.llm_calls else ((), ())
    return ResultRow(
        task.task_id,
        job.pattern,
        repeat,
        score.passed,
        score.status,
        score.score,
        cost.llm_calls + score.calls,
        cost.prompt_tokens + cost.completion_tokens + score.tokens,
        usd,
        task.scorer,
        detail,
        error,
        verdicts,
        spent,
        round(time.perf_counter() - started, 3),
        answer,
        p.runs(job.pattern),
    )


def _answer(
    task: QuestionTask, config: RunConfig, router: ModelRouter, lang: str, stopped: threading.Event | None
) -> tuple[str, list[ev.Event] | None]:
    events: list[ev.Event] = []
    handle = RunHandle.for_run(question_text(task, lang), config, router, ToolRegistry())
    with closing(drive(handle, lambda h, _pending: h.resume())) as stream:
        for event in stream:
            if stopped is not None and stopped.is_set():
                return "", None
            if not isinstance(event, ev.Token):
                events.append(event)
    if stopped is not None and stopped.is_set():
        return "", None
    return runner.result_of(events).final_answer, events


def score_answer(
    task: QuestionTask,
    answer: str,
    router: ModelRouter | None,
    lang: str = "en",
    judge_prompts: Mapping[str, Mapping[str, str]] | None = None,
) -> scorers.Score:
    """Score one answer with the task's scorer (the judge through the router's `judge` role)."""
    name = task.scorer
    if name == "judge":
        if router is None:
            return scorers.Score(False, "unparsable", "the judge scorer needs a model")
        return scorers.judge_with(
            router.for_role(scorers.JUDGE_ROLE),
            task.question,
            answer,
            task.answer,
            lang=lang,
            prompts=judge_prompts,
            scenario="eval/judge",
        )
    if name == "regex" and not answer:
        return scorers.Score(False, "unparsable", "no answer to match")
    if name == "numeric":
        return scorers.numeric(answer, task.answer, task.tolerance)
    if name == "choice":
        return scorers.choice(answer, task.answer, task.choices)
    return {"exact": scorers.exact, "contains": scorers.contains, "regex": scorers.regex}[name](answer, task.answer)


def _drafts(
    task: QuestionTask, events: list[ev.Event], answer: str, final: scorers.Score, router: ModelRouter | None, p: Plan
) -> tuple[tuple[bool, ...], tuple[int, ...]]:
    """Every draft scored (the final answer's score reused), with the calls made when each was written."""
    drafts = harness.drafts_with_calls(events)
    if not drafts:
        return (final.passed,), (sum(isinstance(e, ev.LlmCall) for e in events),)
    verdicts = tuple(
        final.passed if text == answer else score_answer(task, text, router, p.lang, p.judge_prompts).passed
        for text, _at in drafts
    )
    return verdicts, tuple(at for _text, at in drafts)


def local(
    p: Plan,
    models: ModelRouter | ChatModel | None,
    *,
    done: Collection[tuple[str, str, int]] = (),
    concurrency: int = 1,
    gate: RateGate | None = None,
    prices: PriceTable | None = None,
) -> Evaluation:
    """The local pool: `concurrency` runs at once, rows handed back in sequential order."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or not 1 <= concurrency <= MAX_CONCURRENCY:
        raise ConfigError(f"concurrency must be an integer from 1 to {MAX_CONCURRENCY}, got {concurrency!r}")
    needs_model = any(c is not None for c in p.configs.values()) or any(
        getattr(t, "scorer", "") == "judge" for t in p.task_set.tasks
    )
    if models is None and needs_model:
        raise ConfigError("a model is needed for every pattern but reference, and for the judge scorer")
    router = models if isinstance(models, ModelRouter) or models is None else ModelRouter(models)
    gate = gate or RateGate()
    prices = prices or PriceTable()
    return Evaluation(
        p.jobs(done),
        lambda job, stopped: run_job(p, job, router, prices, stopped, gate),
        concurrency=concurrency,
        gate=gate,
    )
