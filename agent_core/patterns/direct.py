"""Direct — the baseline: one model call answers the task, with no loop and no critique.

Huang et al. (ICLR 2024) found that intrinsic self-correction often does worse than doing nothing
once the baseline gets the same budget; the patterns here are shown beside this one.

Tools: where the task has tools, the one call may ask for them, all in that turn. They run (each a
`tool_call` / `tool_result` pair), and one final call with tools disabled writes the answer from their
results. A reply without tool calls is the answer. So the bound is honest: 1 call without tools,
2 with them — never a loop.

Samples (`samples`, default 1): the same baseline at a larger call budget, as Huang et al. give it —
`samples` independent answers (no answer sees another, there is no critique), and the most frequent
one wins (self-consistency, Wang et al. 2023; a tie goes to the earliest). Each sample is a `draft`
event (version = sample - 1) when there is more than one. Eval's "direct×3" entry sets it to 3, about
the calls Reflection spends on the bundled set.

Events: `step` is the sample (1 for a single call), for its call and, when tools ran, its final call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from .. import events as ev
from ..config import RunConfig
from ..messages import Message, assistant, system, tool_message, user
from ..models import ModelRouter
from ..prompts.direct import PROMPTS
from ..tools import ToolRegistry
from ..verdicts import strip_think
from .base import Body, RunContext, run_pattern
from .spec import Edge, EvalEntry, Lesson, LimitSpec, PatternSpec, Text, VariantSpec


def call_bound(config: RunConfig) -> int:
    """Per sample 1 call, or 2 when the task has tools (the tool turn, then one final call with tools off)."""
    return config.samples * (2 if config.tools else 1)


def stream(task: str, config: RunConfig, models: ModelRouter, tools: ToolRegistry | None = None) -> Iterator[ev.Event]:
    """Run the baseline on `task`, yielding events as they happen."""
    bound = config.samples * (2 if tools is not None and len(tools) else 1)
    return run_pattern(task, config, models, tools, _vote, bound)


def _vote(ctx: RunContext) -> Body:
    """One answer, or the most frequent of `samples` independent answers."""
    n = ctx.config.samples
    if n == 1:
        return (yield from _answer(ctx, 1))
    answers: list[str] = []
    for sample in range(1, n + 1):
        answer = yield from _answer(ctx, sample)
        answers.append(answer)
        yield ctx.event(ev.Draft, version=sample - 1, text=answer)
    counts = Counter(" ".join(a.split()) for a in answers)
    best = max(counts.values())
    ctx.best_answer = next(a for a in answers if counts[" ".join(a.split())] == best)
    return ctx.best_answer


def _answer(ctx: RunContext, sample: int) -> Body:
    lang = ctx.config.lang
    has_tools = bool(len(ctx.tools))
    note = ctx.prompts.render("tools_note", tools=ctx.tools.describe(lang)) if has_tools else ""
    messages: list[Message] = [system(ctx.prompts.render("system", tools=note)), user(ctx.task)]
    ctx.step = sample
    completion = yield from ctx.llm("actor", messages, tools=has_tools, prompt="system", attempt=sample)
    text = strip_think(completion.text)
    if not completion.tool_calls:
        ctx.best_answer = text
        return text
    if text:
        yield ctx.event(ev.Thought, text=text)
    messages.append(assistant(completion.text, completion.tool_calls))
    for call in completion.tool_calls:
        output, _is_error = yield from ctx.run_tool(call)
        messages.append(tool_message(call, output))
    messages.append(user(ctx.prompts.render("final")))
    completion = yield from ctx.llm("actor", messages, tools=False, forced=True, prompt="final", attempt=sample)
    ctx.best_answer = strip_think(completion.text)
    return ctx.best_answer


# --- the spec -------------------------------------------------------------------------------------

def _edges(config: Mapping[str, Any]) -> list[Edge]:
    if config.get("tools"):
        return [("task", "actor", None), ("actor", "tools", Text("tool calls, one turn", "一轮工具调用")),
                ("tools", "final", Text("results", "结果")), ("actor", "end", Text("no tool call", "不调用工具")),
                ("final", "end", None)]
    return [("task", "actor", None), ("actor", "end", None)]


def _role_node(role: str, config: Mapping[str, Any], after: str | None) -> str:
    # the call after the tool turn is the final one (tools off): it has its own node
    return "final" if after in ("tools", "final") else "actor"


def _block_title(ident: tuple[Any, ...], config: Mapping[str, Any], lang: str) -> str | None:
    return Text("One call", "一次调用")(lang) if ident[0] == "actor" else None


SPEC = PatternSpec(
    name="direct", label=Text("Direct (baseline)", "直接回答（基线）"), order=40, stream=stream,
    call_bound=call_bound, bound_formula="samples (×2 when the task has tools)", roles=("actor",), prompts=PROMPTS,
    limits=(LimitSpec("samples", 1, 8, Text("Samples (majority vote)", "采样次数（多数投票）"),
                      Text("independent answers, the most frequent wins: the baseline at a larger call budget "
                           "(1 = one call)", "相互独立的回答，取出现最多的一个：更大调用预算下的基线（1 = 一次调用）")),),
    variants=(VariantSpec("direct", Text("Direct — one call (baseline)", "直接回答——一次调用（基线）"),
                          Text("One model call answers the task: no loop, no critique. The yardstick for the "
                               "other patterns (Huang et al. 2024).",
                               "一次模型调用直接作答：没有循环，也没有评审。是衡量其他模式的基准（Huang 等，2024）。"),
                          "umbrella-one-call"),),
    edges=_edges,
    nodes={"task": Text("Task", "任务"), "actor": Text("One call\\n(actor)", "一次调用\\n（执行者）"),
           "tools": Text("Tools\\n(one turn)", "工具\\n（一轮）"), "final": Text("Final call\\n(tools off)", "最终调用\\n（禁用工具）"),
           "end": Text("End", "结束")},
    role_node=_role_node, block_title=_block_title, step_word=Text("step", "步骤"), summary="tools",
    color="#B279A2", baseline=True, compare_variant="direct",
    eval_entries=(EvalEntry("direct", {}, Text("one model call, no loop, no critique: the baseline",
                                               "一次模型调用，没有循环和评审：基线")),
                  EvalEntry("direct×3", {"samples": 3},
                            Text("the baseline at about reflection's call budget: three independent answers, "
                                 "majority vote (Huang et al. 2024's equal-budget comparison)",
                                 "与反思调用预算相当的基线：三次独立回答，多数投票（Huang 等 2024 的等预算对照）"))),
    lesson=Lesson(
        "direct", "umbrella-one-call", Text("Direct (baseline)", "直接回答（基线）"),
        Text("**One call** answers the task. No loop, no plan, no critique: where the task has tools, the "
             "model may call them once, and one more call (tools off) writes the answer. It is the yardstick: "
             "Huang et al. (ICLR 2024) found that intrinsic self-correction often *lowers* accuracy once the "
             "baseline gets the same budget, and CorrectBench (2025) finds plain prompting competitive. Put it "
             "beside any pattern to see what the loop really buys.",
             "**一次调用**直接完成任务。没有循环、没有计划、没有评审：任务有工具时，模型可以调用一次，"
             "再用一次调用（禁用工具）写出答案。它是衡量其他模式的基准：Huang 等（ICLR 2024）发现，"
             "在基线获得相同调用预算时，内在自我纠错往往反而*降低*准确率；CorrectBench（2025）也发现"
             "朴素提示颇具竞争力。把它放在任何模式旁边，看看循环到底带来了什么。"),
        (Text("a yardstick beside any other pattern, at the same call budget", "在相同调用预算下与其他模式对比的基准"),
         Text("simple lookups and tasks a strong model gets right first time", "简单查询，以及强模型一次就能做对的任务")),
        (Text("tasks that need several dependent tool calls (it has only one turn)", "需要多次相互依赖的工具调用的任务（只有一轮）"),
         Text("work where an external check (tests) could catch and fix mistakes", "有外部检验（如测试）可以发现并修正错误的工作")),
        Text("Exactly 1 call, or 2 when the task has tools.", "恰好 1 次调用；任务有工具时为 2 次。")),
)
