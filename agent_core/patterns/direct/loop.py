"""Direct — the baseline: one model call answers the task, with no loop and no critique.

Huang et al. (ICLR 2024) found that intrinsic self-correction often does worse than doing nothing
once the baseline gets the same budget; the patterns here are shown beside this one. The same budget
spent on independent answers voted on is the self-consistency pattern, in its own folder.

Tools: where the task has tools, the one call may ask for them, all in that turn. They run (each a
`tool_call` / `tool_result` pair), and one final call with tools disabled writes the answer from their
results. A reply without tool calls is the answer. So the bound is honest: 1 call without tools,
2 with them — never a loop.

Events: `step` is 1 (the one answer, attempt 1) for its call and, when tools ran, its final call.
"""

from __future__ import annotations

from collections.abc import Iterator

from ... import events as ev
from ...config import RunConfig
from ...messages import Message, assistant, system, tool_message, user
from ...models import ModelRouter
from ...tools import ToolRegistry
from ...verdicts import strip_think
from ..base import Body, RunContext, run_pattern
from .options import DirectOptions
from .prompts import PROMPTS


def call_bound(config: RunConfig[DirectOptions]) -> int:
    """1 call, or 2 when the task has tools (the tool turn, then one final call with tools off)."""
    return 2 if config.tools else 1


def stream(
    task: str, config: RunConfig[DirectOptions], models: ModelRouter, tools: ToolRegistry | None = None
) -> Iterator[ev.Event]:
    """Run the baseline on `task`, yielding events as they happen."""
    return run_pattern(task, config, models, tools, _answer, 2 if tools is not None and len(tools) else 1, PROMPTS)


def _answer(ctx: RunContext) -> Body:
    """The one answer: a call, and after a tool turn one more with tools off."""
    lang = ctx.config.lang
    has_tools = bool(len(ctx.tools))
    note = ctx.prompts.render("tools_note", tools=ctx.tools.describe(lang)) if has_tools else ""
    messages: list[Message] = [system(ctx.prompts.render("system", tools=note)), user(ctx.task)]
    ctx.step = 1
    completion = yield from ctx.llm("actor", messages, tools=has_tools, prompt="system", attempt=1)
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
    completion = yield from ctx.llm("actor", messages, tools=False, forced=True, prompt="final", attempt=1)
    ctx.best_answer = strip_think(completion.text)
    return ctx.best_answer
