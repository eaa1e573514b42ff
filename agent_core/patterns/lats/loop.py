"""LATS — language-agent tree search (Zhou et al. 2024): grow a tree of candidates, value each one,
choose where to grow next by UCT, reflect on every failed candidate, and stop at the first solution or
at the node budget.

One iteration (the `step` of its events):

1. Select: walk from the root by UCT to a leaf (tree.py has the formula); `tree_node(expanded)` names
   it, with the score that chose it.
2. Expand: write up to `branching` children of it, one expander call each (fewer when the node budget
   runs out). The expander sees the task; the candidate it grows with its evaluation (none at the
   root); the children already written in this expansion, to take another approach; and the latest
   reflections on failed candidates (RECENT_REFLECTIONS).
3. Evaluate each child as soon as it is written. With the unit-test evaluator the child runs against
   the tests in the sandbox, as Reflection's test evaluator does (a tool named "unit_tests"; no model
   call): its value is the share of tests that pass, and passing them all solves the task. Otherwise
   one evaluator call values it from 0 to 1 (with the repair re-ask): a value of `threshold`/100 or
   more solves it. The evaluator's reading is a `verdict` event (PASS: solved; REVISE: not), so step
   mode pauses at it, a person may answer it, and the room's poll asks what it will say. A reply with
   no value is an observation, not a failure: the verdict says parsed=False and the child counts at
   FALLBACK_VALUE, neither solved nor pruned.
4. Backpropagate the value (tree.py). A solved child ends the search: it is the answer (reason pass).
5. Reflect on a child that failed: one self-reflector call says why and what to do instead; the
   reflection goes into every later expansion's prompt. A child valued 0 is pruned: never grown.

The search ends at the first solution, or when the tree holds `max_nodes` candidates: then
`limit_reached(max_nodes)` and the best-valued candidate is the answer. Either way the path from the
root to the answer is marked `chosen`, step None.

Events: `tree_node` at every change of a node; `draft` (version = node id) for every candidate; the
unit-test tool events; `verdict` for the evaluator.

Call bound: a candidate costs at most 1 call to write it, r to value it and 1 to reflect on it, with
r = 0 under the unit-test evaluator, else 1, or 2 with the repair re-ask. So a run makes at most
max_nodes · (2 + r) calls, exactly that when no candidate solves and (r = 2) no evaluator reply parses
at first.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, cast

from ... import events as ev
from ...config import RunConfig
from ...errors import ConfigError
from ...messages import Message, assistant, user
from ...models import ModelRouter
from ...tools import ToolRegistry
from ...untrusted import code_blocks
from ...verdicts import REPAIR_REQUEST, strip_think
from ..base import Body, RunContext, run_pattern
from .options import LatsOptions
from .prompts import PROMPTS, heading, items, section
from .roles import Valuation, parse_value
from .tree import Node, Tree

if TYPE_CHECKING:
    from ...sandbox import TestOutcome

#: The tool name under which unit-test runs appear in events (the run view shows such runs as tests).
UNIT_TESTS = "unit_tests"
TEST_TIMEOUT_S = 5.0
TEST_MEMORY_MB = 256
#: What a candidate counts for when the evaluator's reply gives no value: the middle, so it is neither
#: pruned nor, since an unread value never solves, taken for a solution.
FALLBACK_VALUE = 0.5
#: How many of the latest reflections an expansion's prompt carries (a prompt stays bounded).
RECENT_REFLECTIONS = 6
#: Characters of a candidate's one-line summary (its node's label in the tree).
SUMMARY_CHARS = 72


def _options(config: RunConfig) -> LatsOptions:
    return cast(LatsOptions, config.options)


def call_bound(config: RunConfig[LatsOptions]) -> int:
    """The most LLM calls a LATS run can make: max_nodes · (2 + r)."""
    opts = _options(config)
    r = 0 if opts.test_evaluator else (2 if config.repair_reask else 1)
    return opts.max_nodes * (2 + r)


def stream(
    task: str, config: RunConfig[LatsOptions], models: ModelRouter, tools: ToolRegistry | None = None
) -> Iterator[ev.Event]:
    """Run LATS on `task`, yielding events as they happen."""
    check(config)
    return run_pattern(task, config, models, tools, _search, call_bound(config), PROMPTS)


def check(config: RunConfig[LatsOptions]) -> None:
    """What a LATS config needs beyond its ranges: parseable unit tests when the test evaluator is on."""
    opts = _options(config)
    if not opts.test_evaluator:
        return
    # refused before any model is called, rather than after the first paid-for candidate
    if not opts.tests.strip():
        raise ConfigError(
            "The unit-test evaluator is on but no tests are given: add assert statements, or turn the evaluator off."
        )
    try:
        compile(opts.tests, "<tests>", "exec")
    except SyntaxError as exc:
        raise ConfigError(f"The unit tests do not parse (line {exc.lineno}): {exc.msg}.") from None


# --- candidates -----------------------------------------------------------------------------------


def clean(text: str, code: bool) -> str:
    """A candidate as shown and passed on: without reasoning blocks and, for code, without fences or prose."""
    body = strip_think(text)
    if not code:
        return body
    blocks = code_blocks(body)  # a linear scan: a candidate is model output
    if not blocks:
        return body
    python = [b for lang, b in blocks if lang.lower() in ("", "python", "py", "python3")]
    return (python or [b for _, b in blocks])[0].strip("\n").rstrip()


def summary_of(text: str, code: bool) -> str:
    """One line that names a candidate in the tree: a code candidate's docstring opening (the expand
    prompt asks it to say the approach there), else its first line."""
    head = text[:4000]
    line = ""
    if code:
        start = min((i for i in (head.find('"""'), head.find("'''")) if i >= 0), default=-1)
        if start >= 0:
            line = head[start + 3 :].lstrip().split("\n", 1)[0].split('"""')[0].split("'''")[0]
    if not line.strip():
        line = next((row for row in head.splitlines() if row.strip()), "")
    flat = " ".join(line.split())
    return flat if len(flat) <= SUMMARY_CHARS else flat[: SUMMARY_CHARS - 1] + "…"


def _is_code(config: RunConfig) -> bool:
    opts = _options(config)
    return opts.code_task or opts.test_evaluator


def _node(ctx: RunContext, node: Node, status: str, *, uct: float | None = None, note: str = "") -> ev.Event:
    """The `tree_node` event of a node's change (its status is set here)."""
    node.status = status
    return ctx.event(
        ev.TreeNode,
        node=node.id,
        parent=node.parent.id if node.parent is not None else None,
        depth=node.depth,
        summary=node.summary,
        value=node.value,
        visits=node.visits,
        status=status,
        uct=round(uct, 4) if uct is not None else None,
        note=note,
    )


def _working(node: Node, c: float, score: float | None) -> str:
    """How UCT scored the node it chose, as the formula with its numbers ("" for the root)."""
    if score is None or node.parent is None:
        return ""
    return (
        f"Q/N + c·√(ln N_parent / N) = {node.mean:.2f} + {c:.2f}·√(ln {node.parent.visits} / {node.visits}) "
        f"= {score:.2f}"
    )


# --- the search -----------------------------------------------------------------------------------


def _search(ctx: RunContext) -> Body:
    opts = _options(ctx.config)
    tree = Tree()
    c = opts.exploration / 100
    reflections: list[tuple[int, str]] = []
    solved: Node | None = None
    iteration = 0
    while solved is None and tree.candidates < opts.max_nodes:
        iteration += 1
        ctx.step = iteration
        leaf, score = tree.select(c)
        yield _node(ctx, leaf, "expanded", uct=score, note=_working(leaf, c, score))
        siblings: list[Node] = []
        for attempt in range(1, opts.branching + 1):
            if tree.candidates >= opts.max_nodes:
                break
            child = tree.add(leaf)
            yield from _expand(ctx, leaf, child, siblings, reflections, iteration, attempt)
            yield from _evaluate(ctx, tree, child, iteration)
            if child.status == "solved":
                solved = child
                break
            yield from _reflect(ctx, child, iteration)
            reflections.append((child.id, child.reflection))
            siblings.append(child)

    ctx.step = None
    answer = solved or tree.best()
    if solved is not None:
        ctx.end_reason = "pass"
    else:
        n = opts.max_nodes
        yield ctx.limit(
            "max_nodes",
            n,
            f"the tree holds {n} candidate(s) and none solves the task; the "
            f"best-valued one (node {answer.id if answer else '-'}) is the answer",
        )
    if answer is None:
        return ctx.best_answer
    for node in tree.path(answer):
        yield _node(ctx, node, "chosen")
    return answer.text


def _expand(
    ctx: RunContext,
    leaf: Node,
    child: Node,
    siblings: list[Node],
    reflections: list[tuple[int, str]],
    iteration: int,
    attempt: int,
) -> Body:
    """Write one child of `leaf`: its `draft` event, then its `tree_node(proposed)`."""
    cfg, lang = ctx.config, ctx.config.lang
    code = _is_code(cfg)
    parent = ""
    if leaf.parent is not None:  # the root is the task itself: nothing to improve yet
        body = f"{leaf.text}\n\n### {heading('feedback', lang)}\n{leaf.feedback or '-'}"
        parent = section("parent", body, lang, node=leaf.id, value=f"{leaf.value or 0:.2f}")
    recent = reflections[-RECENT_REFLECTIONS:]
    prompt = ctx.prompts.render(
        "expand",
        task=ctx.task,
        parent=parent,
        siblings=section("siblings", items([(s.id, s.text) for s in siblings], lang), lang),
        reflections=section("reflections", items(recent, lang), lang),
    )
    completion = yield from ctx.llm(
        "expander",
        [user(prompt)],
        iteration=iteration,
        version=child.id,
        attempt=attempt,
        prompt="expand",
        inputs={"parent": leaf.text, "feedback": leaf.feedback, "reflections": "\n\n".join(r for _, r in recent)},
    )
    child.text = clean(completion.text, code)
    child.summary = summary_of(child.text, code)
    yield _node(ctx, child, "proposed")
    yield ctx.event(ev.Draft, version=child.id, text=child.text)
    return child.text


def _evaluate(ctx: RunContext, tree: Tree, child: Node, iteration: int) -> Body:
    """Value a child (unit tests or the evaluator), count it up the tree, and say whether it solves."""
    opts = _options(ctx.config)
    if opts.test_evaluator:
        outcome = yield from _run_tests(ctx, child.text, child.id)
        value, solved, feedback = _tests_value(outcome), outcome.passed, _report(outcome)
    else:
        found, cut = yield from _judge(ctx, child, iteration)
        threshold = opts.threshold / 100
        value = found.value if found is not None else FALLBACK_VALUE
        solved = found is not None and value >= threshold
        feedback = found.reason if found is not None else ""
        if found is not None:
            analysis = f"value {value:.2f}; a candidate valued {threshold:.2f} or more solves the task"
        else:
            analysis = (
                f"the evaluator's reply gave no value; the candidate counts at {FALLBACK_VALUE:.2f}, "
                "neither solved nor pruned"
            )
            if cut:
                analysis = f"{analysis} {ctx.cut_note('evaluator')}"
        yield ctx.event(
            ev.VerdictEvent,
            role="evaluator",
            verdict="PASS" if solved else "REVISE",
            feedback=feedback,
            analysis=analysis,
            parsed=found is not None,
        )
    child.feedback = feedback
    tree.backpropagate(child, value)
    best = tree.best()
    ctx.best_answer = best.text if best is not None else ctx.best_answer
    # (the tests' summary line: their details are in the tool result)
    yield _node(
        ctx,
        child,
        "solved" if solved else "evaluated",
        note=feedback.split("\n", 1)[0] if opts.test_evaluator else feedback,
    )
    return child.text


def _judge(ctx: RunContext, child: Node, iteration: int) -> Generator[ev.Event, None, tuple[Valuation | None, bool]]:
    """One evaluator call (and its repair re-ask): the value it gives, and whether the reply was cut."""
    prompt = ctx.prompts.render("evaluate", task=ctx.task, candidate=child.text)
    messages: list[Message] = [user(prompt)]
    inputs = {"draft": child.text}
    completion = yield from ctx.llm(
        "evaluator", messages, inputs=inputs, iteration=iteration, version=child.id, prompt="evaluate"
    )
    found = parse_value(completion.text)
    if found is None and ctx.config.repair_reask:
        retry = [*messages, assistant(completion.text), user(REPAIR_REQUEST[ctx.config.lang])]
        completion = yield from ctx.llm(
            "evaluator", retry, repair=True, inputs=inputs, iteration=iteration, version=child.id, prompt="evaluate"
        )
        found = parse_value(completion.text)
    return found, completion.finish_reason == "length"


def _reflect(ctx: RunContext, child: Node, iteration: int) -> Body:
    """Say why a child failed; a child valued 0 is pruned, any other failed."""
    prompt = ctx.prompts.render("self_reflect", task=ctx.task, candidate=child.text, feedback=child.feedback or "-")
    completion = yield from ctx.llm(
        "self_reflector",
        [user(prompt)],
        iteration=iteration,
        version=child.id,
        prompt="self_reflect",
        inputs={"draft": child.text, "feedback": child.feedback},
    )
    child.reflection = strip_think(completion.text)
    yield _node(ctx, child, "pruned" if child.value == 0 else "failed", note=child.reflection)
    return child.reflection


# --- unit tests -----------------------------------------------------------------------------------


def _run_tests(ctx: RunContext, draft: str, node: int) -> Generator[ev.Event, None, TestOutcome]:
    """Run a candidate against the configured tests, as `unit_tests` tool events (no model call)."""
    call_id = f"{UNIT_TESTS}-{node}"
    yield ctx.event(ev.ToolCallEvent, name=UNIT_TESTS, arguments={"draft": node}, call_id=call_id)
    # the sandbox is loaded only by a run that judges code: every other import of the core skips its cost
    from ...sandbox import run_python_tests

    outcome = run_python_tests(draft, _options(ctx.config).tests, timeout_s=TEST_TIMEOUT_S, memory_mb=TEST_MEMORY_MB)
    yield ctx.event(
        ev.ToolResult, name=UNIT_TESTS, output=_report(outcome), is_error=not outcome.passed, call_id=call_id
    )
    return outcome


def _report(outcome: TestOutcome) -> str:
    return outcome.summary if outcome.passed or not outcome.details else f"{outcome.summary}\n\n{outcome.details}"


def _tests_value(outcome: TestOutcome) -> float:
    """The share of the tests a candidate passes (0 when they could not run: a syntax error, a timeout)."""
    if outcome.passed:
        return 1.0
    run, failed = outcome.tests_run, outcome.tests_failed
    return round((run - failed) / run, 4) if run and failed is not None else 0.0
