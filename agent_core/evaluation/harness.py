"""Run patterns on a task set and judge every answer against the task's unit tests.

`evaluate()` returns an iterator (pool.Evaluation): when a run starts it yields an `EvalProgress`, and
`EvalRow`s in the order of a sequential run, so a page can show a progress bar and a live table, and
closing or stopping it stops the evaluation. Runs go task by task, every pattern on a task before
the next task, so a stopped evaluation still compares the patterns on the same tasks. With
`concurrency=N`, N runs go at once (see pool.py), all models behind one rate-limit gate
(agent_core.ratelimit): a 429 slows the whole pool down instead of failing tasks.

Judging is the same for every pattern: take the code out of the final answer (a fenced block, or
the bare text; a bare function body is appended to the prompt, as in HumanEval), then run the
task's tests on it in the sandbox. The `reference` pattern answers with the task's
`canonical_solution` and calls no model: on a valid task set it must score 100%.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Iterable, Mapping
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from .. import events as ev
from .. import metrics, runner
from ..config import SHARED_FIELDS, RunConfig
from ..errors import ConfigError
from ..models import ChatModel, ModelRouter
from ..patterns import registry
from ..pricing import PriceTable, WorstCase, spend
from ..pricing import worst_case as run_worst_case
from ..ratelimit import RateGate, gated
from ..sandbox import TestOutcome, run_python_tests
from ..stepping import RunHandle, drive
from ..tools import ToolRegistry
from ..untrusted import code_blocks, defines
from ..verdicts import strip_think
from .pool import MAX_CONCURRENCY, Evaluation, Job
from .tasks import EvalTask

REFERENCE = "reference"
#: Every way Eval runs a pattern, from the patterns' specs (patterns/registry.py), by entry id.
ENTRIES = registry.eval_entries()
#: The entries whose runs see the task's own unit tests (the Reflexion-style setting), and the first of them.
SEES_TESTS = frozenset(i for i, (_spec, e) in ENTRIES.items() if e.tests)
WITH_TESTS = next((i for i in ENTRIES if i in SEES_TESTS), "")
#: The baselines, for the rounds view: the baseline pattern's entries (one call) first, then the entries
#: that spend a larger budget without a critique (self-consistency's vote).
BASELINE_ENTRIES = (
    *(i for i, (spec, _e) in ENTRIES.items() if spec.baseline),
    *(i for i, (spec, e) in ENTRIES.items() if e.baseline and not spec.baseline),
)
#: What `evaluate` can run: the ground truth, then every pattern entry.
EVAL_PATTERNS = (REFERENCE, *ENTRIES)

PATTERN_HELP = {
    REFERENCE: {
        "en": "the task's canonical solution, no model: checks the harness and the task set",
        "zh": "直接使用任务自带的标准答案，不调用模型：用于检验评测框架和任务集本身",
    },
    **{i: {"en": e.help.en, "zh": e.help.zh} for i, (_spec, e) in ENTRIES.items()},
}

#: Said beside every result of reflection+tests: it is not the setting of the Reflexion paper.
TEST_FEEDBACK_NOTE = {
    "en": "reflection+tests gives the refiner the task's own tests, the same ones that judge the answer. "
    "Reflexion (Shinn et al. 2023) writes internal tests of its own and keeps the hidden tests for "
    "scoring, so this pass rate is optimistic next to the paper's setting.",
    "zh": "“反思 + 测试”把任务自带的测试（也就是最终判分的测试）交给修订者。Reflexion（Shinn 等，2023）"
    "使用自己生成的内部测试，隐藏测试只用于判分；因此与论文的设定相比，这里的通过率偏乐观。",
}

#: Options the harness sets itself for every run.
_HARNESS_OWNED = ("pattern", "scenario", "tools", "lang", *(n for s in registry.specs().values() for n in s.eval_owned))

TASK_TEXT = {
    "en": "Complete the Python function below. Keep its name and signature, and reply with the whole "
    "function in one ```python code block.\n\n```python\n{prompt}```",
    "zh": "请补全下面的 Python 函数。保持函数名和签名不变，把完整的函数放在一个 ```python 代码块中回复。"
    "\n\n```python\n{prompt}```",
}


@dataclass(frozen=True)
class EvalRow:
    """One pattern on one task: the judgement and what the run cost."""

    task_id: str
    pattern: str
    passed: bool
    #: the sandbox's status: passed, failed, error, timeout, memory or killed
    status: str
    summary: str
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: True when some token counts are estimates (the endpoint sent no usage)
    tokens_estimated: bool = False
    #: the run's wall time, without judging
    elapsed_ms: float = 0.0
    #: the sandbox's wall time for judging
    judge_ms: int = 0
    end_reason: str = ""
    tests_run: int | None = None
    tests_failed: int | None = None
    #: why the run failed, if it did ("error_type: message")
    error: str = ""
    #: the code that was judged
    code: str = ""
    #: USD the run's calls cost at the price table's prices; None when a model's price is unknown
    cost_usd: float | None = 0.0
    #: multi-draft entries (rounds=True in the spec): every draft's verdict, draft 0 first (rounds.py)
    rounds: tuple[bool, ...] = ()
    #: the LLM calls spent up to and including each of those drafts
    round_calls: tuple[int, ...] = ()

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def task_text(task: EvalTask, lang: str = "en") -> str:
    """What an agent is asked: complete the task's prompt."""
    prompt = task.prompt if task.prompt.endswith("\n") else task.prompt + "\n"
    return TASK_TEXT["zh" if lang == "zh" else "en"].format(prompt=prompt)


def runnable_tests(task: EvalTask) -> str:
    """The task's tests as runnable statements: a HumanEval `check` is called on the entry point."""
    return f"{task.test.rstrip()}\n\n\ncheck({task.entry_point})\n" if task.defines_check else task.test


# --- judging ----------------------------------------------------------------------------------------

_IMPORT = re.compile(r"^(?:import|from)\s+\S", re.MULTILINE)


def extract_code(answer: str, task: EvalTask) -> str:
    """The program an answer stands for: its code block (or bare text), completed from the prompt.

    Code that defines the entry point comes after the prompt, whose imports and helper functions it
    may use (its own definition replaces the prompt's stub); anything else is a function body and is
    appended to the prompt, as in HumanEval.
    """
    text = strip_think(answer or "")
    blocks = [(lang.lower(), body) for lang, body in code_blocks(text)]  # one pass, whatever the answer holds
    if blocks:
        python = [body for lang, body in blocks if lang in ("", "python", "py", "python3")] or [b for _, b in blocks]
        code = next((b for b in python if defines(b, task.entry_point)), python[0])
    else:
        code = text
    code = code.strip("\n")
    if not code.strip():
        return ""
    prompt = task.prompt if task.prompt.endswith("\n") else task.prompt + "\n"
    if defines(code, task.entry_point):
        program = f"{prompt}\n\n{code}\n"
        if _compiles(program):
            return program
        # a prompt that is not a whole function (or code that does not parse): keep just the imports
        present = {line.strip() for line in code.splitlines()}  # a set: one pass, however many imports
        imports = [line for line in task.prompt.splitlines() if _IMPORT.match(line) and line.strip() not in present]
        return "\n".join([*imports, code]) + "\n"
    lines = code.splitlines()
    if not any(line[:1].isspace() for line in lines if line.strip()):
        code = "\n".join("    " + line if line.strip() else line for line in lines)  # an unindented body
    program = prompt + code + "\n"
    if not blocks and not _compiles(program):
        return ""  # prose, not a body: judged as "no code" rather than as a syntax error
    return program


def _compiles(code: str) -> bool:
    try:
        compile(code, "<answer>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


#: The longest answer judged, in characters: taking the code out and compiling it runs in the server
#: (about 0.45 s a MB with the GIL held), before the sandbox's timeout starts.
MAX_ANSWER_CHARS = 512 * 1024


def judge(task: EvalTask, answer: str, *, timeout_s: float = 5.0) -> tuple[str, TestOutcome]:
    """The code taken from `answer`, and how it fared against the task's tests."""
    if len(answer or "") > MAX_ANSWER_CHARS:
        return "", TestOutcome(
            passed=False,
            status="error",
            summary=f"the answer is {len(answer):,} characters, too long to judge (the limit is {MAX_ANSWER_CHARS:,})",
        )
    code = extract_code(answer, task)
    if not code:
        return "", TestOutcome(
            passed=False, status="error", summary="the answer holds no code: no code block, function or function body"
        )
    return code, run_python_tests(code, task.test, entry_point=task.entry_point, timeout_s=timeout_s)


# --- running ----------------------------------------------------------------------------------------


def evaluate(
    tasks: Iterable[EvalTask],
    patterns: Iterable[str],
    models: ModelRouter | ChatModel | None,
    *,
    limit: int | None = None,
    config_overrides: Mapping[str, Any] | None = None,
    lang: str = "en",
    timeout_s: float = 5.0,
    concurrency: int = 1,
    gate: RateGate | None = None,
    prices: PriceTable | None = None,
) -> Evaluation:
    """Run every pattern on every task (the first `limit` tasks), `concurrency` runs at a time,
    yielding progress and rows (rows in sequential order, whatever the concurrency).

    `config_overrides` holds RunConfig fields for every pattern, and optionally, under a pattern's
    name, fields for that pattern only: `{"max_llm_calls": 20, "<entry id>": {"<option>": 2}}`.
    Patterns, limits and prompts are checked here, before anything runs. `gate` lets several
    evaluations on one endpoint share their rate-limit back-off; `prices` prices each row's calls
    (default: the built-in table).
    """
    tasks, patterns = list(tasks), list(dict.fromkeys(patterns))
    if limit is not None:
        if limit < 1:
            raise ConfigError(f"limit must be at least 1, got {limit}")
        tasks = tasks[:limit]
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or not 1 <= concurrency <= MAX_CONCURRENCY:
        raise ConfigError(f"concurrency must be an integer from 1 to {MAX_CONCURRENCY}, got {concurrency!r}")
    if not patterns:
        raise ConfigError(f"choose at least one pattern: {', '.join(EVAL_PATTERNS)}")
    configs = {p: _config(p, lang, config_overrides or {}) for p in patterns}
    if models is None and any(c is not None for c in configs.values()):
        raise ConfigError("a model is needed for every pattern but reference")
    router = models if isinstance(models, ModelRouter) or models is None else ModelRouter(models)
    prices = prices or PriceTable()
    gate = gate or RateGate()
    router = gated(router, gate) if router is not None else None
    jobs = [
        Job(i, task.task_id, pattern, task) for i, (task, pattern) in enumerate((t, p) for t in tasks for p in patterns)
    ]

    def run(job: Job, stopped: threading.Event) -> EvalRow | None:
        config = configs[job.pattern]
        if config is None:
            return _reference_row(job.payload, timeout_s)
        return _agent_row(job.payload, job.pattern, config, router, lang, timeout_s, stopped, prices)

    return Evaluation(jobs, run, concurrency=concurrency, gate=gate)


_RUN_OPTIONS = frozenset(SHARED_FIELDS) | {n for s in registry.specs().values() for n in s.option_names()}


def _check_overrides(overrides: Mapping[str, Any]) -> None:
    for key, value in overrides.items():
        if key in EVAL_PATTERNS and not isinstance(value, Mapping):
            raise ConfigError(f"config_overrides[{key!r}] must map run options to values")
        for name in value if key in EVAL_PATTERNS else (key,):
            where = f"config_overrides[{key!r}]" if key in EVAL_PATTERNS else "config_overrides"
            if name in _HARNESS_OWNED:
                raise ConfigError(f"{where}: {name!r} is set by the harness for every run")
            if name not in _RUN_OPTIONS:
                raise ConfigError(f"{where}: {name!r} is neither a run option nor an eval pattern")


def _config(pattern: str, lang: str, overrides: Mapping[str, Any]) -> RunConfig | None:
    if pattern not in EVAL_PATTERNS:
        raise ConfigError(f"unknown eval pattern {pattern!r}; choose from {', '.join(EVAL_PATTERNS)}")
    _check_overrides(overrides)
    shared = {k: v for k, v in overrides.items() if k not in EVAL_PATTERNS}
    own = dict(overrides.get(pattern, {}))
    if pattern == REFERENCE:
        return None
    spec, entry = ENTRIES[pattern]
    defaults: dict[str, Any] = {**spec.eval_defaults, **entry.options}
    config = registry.configure(spec.name, lang=lang, **{**defaults, **shared, **own})
    registry.check_overrides(config.pattern, lang, config.prompts)
    return config


def worst_case(
    tasks: Iterable[EvalTask],
    patterns: Iterable[str],
    *,
    limit: int | None = None,
    lang: str = "en",
    config_overrides: Mapping[str, Any] | None = None,
    entries: Iterable[RunConfig] = (),
) -> WorstCase:
    """The most calls and tokens an evaluation can use: every run's worst case (agent_core.pricing), summed.

    Checks its arguments as `evaluate` does; `entries` are the configs of named entries (entries.py,
    checked there), run beside the patterns.
    """
    tasks = list(tasks)[:limit] if limit else list(tasks)
    calls = 0
    prompt: int | None = 0  # None once a run's tokens cannot be bounded
    completion: int | None = 0
    configs = [_config(pattern, lang, config_overrides or {}) for pattern in dict.fromkeys(patterns)]
    for config in [*configs, *entries]:
        if config is None:
            continue  # the reference calls no model
        for task in tasks:
            run_config = _with_tests(config, task)
            one = run_worst_case(run_config, task_text(task, lang))
            calls += one.calls
            if one.prompt_tokens is None or one.completion_tokens is None:
                prompt = completion = None
            elif prompt is not None and completion is not None:
                prompt, completion = prompt + one.prompt_tokens, completion + one.completion_tokens
    return WorstCase(calls, prompt, completion)


def _with_tests(config: RunConfig, task: EvalTask) -> RunConfig:
    """The run as its pattern takes the task's unit tests (a pattern that never sees them: as it is)."""
    take = registry.get(config.pattern).take_tests
    return take(config, runnable_tests(task)) if take is not None else config


def _reference_row(task: EvalTask, timeout_s: float) -> EvalRow:
    if not task.canonical_solution.strip():
        return EvalRow(task.task_id, REFERENCE, False, "error", "the task has no canonical_solution")
    code, outcome = judge(task, task.prompt + task.canonical_solution, timeout_s=timeout_s)
    return _row(task, REFERENCE, outcome, code, end_reason="answer")


def _agent_row(
    task: EvalTask,
    pattern: str,
    config: RunConfig,
    router: ModelRouter | None,
    lang: str,
    timeout_s: float,
    stopped: threading.Event | None = None,
    prices: PriceTable | None = None,
    drafts: bool | None = None,
) -> EvalRow | None:
    """One run judged; `drafts` says whether every draft is judged too (default: as the entry `pattern` says)."""
    # The scenario id lets the offline model find the bundled task's script; real models ignore it.
    config = _with_tests(config.replace(scenario=f"eval/{task.task_id}"), task)
    assert router is not None  # evaluate() refuses agent patterns without a model
    events: list[ev.Event] = []
    # The run goes through a RunHandle like every run the pages drive; it has no breakpoints, so
    # nothing ever waits for a person.
    handle = RunHandle.for_run(task_text(task, lang), config, router, ToolRegistry())
    with closing(drive(handle, lambda h, _pending: h.resume())) as stream:
        for event in stream:
            if stopped is not None and stopped.is_set():
                return None  # closing() stops the run and its HTTP stream; an unfinished run is no row
            if not isinstance(event, ev.Token):
                events.append(event)
    if stopped is not None and stopped.is_set():
        return None
    answer = runner.result_of(events).final_answer
    cost = metrics.summary(events)
    code, outcome = judge(task, answer, timeout_s=timeout_s)
    if not code and cost.error:
        outcome = TestOutcome(passed=False, status="error", summary=f"the run failed: {cost.error}")
    used = spend(events, prices or PriceTable())
    verdicts, calls = (
        _score_drafts(task, events, answer, outcome, timeout_s)
        if (ENTRIES[pattern][1].rounds if drafts is None else drafts)
        else ((), ())
    )
    return dataclasses.replace(
        _row(task, pattern, outcome, code, cost=cost, end_reason=cost.end_reason or "stop"),
        cost_usd=round(used.usd, 6) if used.known else None,
        rounds=verdicts,
        round_calls=calls,
    )


def drafts_with_calls(events: list[ev.Event]) -> list[tuple[str, int]]:
    """A run's drafts by version (a version written again keeps its last text), each with the model
    calls the run had made when it was written: what a round-by-round score reads."""
    drafts: dict[int, tuple[str, int]] = {}
    calls = 0
    for event in events:
        if isinstance(event, ev.LlmCall):
            calls += 1
        elif isinstance(event, ev.Draft):
            drafts[event.version] = (event.text, calls)
    return [drafts[v] for v in sorted(drafts)]


def _score_drafts(
    task: EvalTask, events: list[ev.Event], answer: str, outcome: TestOutcome, timeout_s: float
) -> tuple[tuple[bool, ...], tuple[int, ...]]:
    """Judge every draft of a run in the sandbox (the final answer's verdict is reused), with the calls
    the run had made when each draft was written."""
    verdicts, spent = [], []
    for text, at in drafts_with_calls(events):
        verdicts.append(outcome.passed if text == answer else judge(task, text, timeout_s=timeout_s)[1].passed)
        spent.append(at)
    return tuple(verdicts), tuple(spent)


def _row(
    task: EvalTask,
    pattern: str,
    outcome: TestOutcome,
    code: str,
    *,
    end_reason: str,
    cost: metrics.RunSummary | None = None,
) -> EvalRow:
    cost = cost or metrics.RunSummary()
    return EvalRow(
        task.task_id,
        pattern,
        outcome.passed,
        outcome.status,
        outcome.summary,
        llm_calls=cost.llm_calls,
        prompt_tokens=cost.prompt_tokens,
        completion_tokens=cost.completion_tokens,
        tokens_estimated=cost.usage_estimated,
        elapsed_ms=round(cost.elapsed_s * 1000, 1),
        judge_ms=outcome.duration_ms,
        end_reason=end_reason,
        tests_run=outcome.tests_run,
        tests_failed=outcome.tests_failed,
        error=cost.error,
        code=code,
    )
