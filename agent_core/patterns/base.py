"""Loop pieces every pattern shares: the run context, model calls that emit events, tool calls,
the run-wide budget, and the wrapper that turns any ending into well-formed closing events."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import events as ev
from ..config import RunConfig
from ..errors import AgentError
from ..messages import CallContext, ChatRequest, Completion, Message, ToolCall
from ..models import ModelRouter
from ..prompts import PromptSet, specs_for
from ..tools import ToolRegistry, parse_arguments
from ..verdicts import REPAIR_REQUEST, Verdict

#: A pattern body: yields events, returns the final answer text.
Body = Generator[ev.Event, None, str]


class BudgetExhausted(Exception):
    """Internal signal: the run-wide budget is spent (caught by `run_pattern`)."""

    def __init__(self, limit: str, value: int) -> None:
        super().__init__(limit)
        self.limit = limit
        self.value = value


@dataclass
class RunContext:
    """State one run carries: config, models, tools, prompts, counters and the best answer so far."""

    task: str
    config: RunConfig
    models: ModelRouter
    tools: ToolRegistry
    prompts: PromptSet
    max_calls: int
    clock: ev.Clock = field(default_factory=ev.Clock)
    llm_calls: int = 0
    total_tokens: int = 0
    best_answer: str = ""
    step: int | None = None
    #: why the body ended when it returns normally: answer, pass or cap (see events.END_REASONS)
    end_reason: str = "answer"
    _tool_schemas: tuple[dict[str, Any], ...] | None = None

    def event(self, cls: type[ev.Event], **fields: Any) -> ev.Event:
        fields.setdefault("step", self.step)
        return cls(t=self.clock.now(), **fields)

    def llm(self, role: str, messages: list[Message] | tuple[Message, ...], *, tools: bool = False,
            inputs: dict[str, str] | None = None, **labels: Any) -> Generator[ev.Event, None, Completion]:
        """Call the model bound to `role`, streaming `token` events, then one `llm_call` event.

        `labels` are CallContext fields (round, step_id, iteration...); `inputs` the values the prompt
        was rendered from. Both travel on the request; the labels are recorded on the `llm_call`.
        """
        self._check_budget()
        model = self.models.for_role(role)
        cfg = self.config
        context = CallContext(cfg.pattern, cfg.scenario, cfg.lang, inputs=tuple(inputs.items()) if inputs else (),
                              **labels)
        request = ChatRequest(tuple(messages), self._schemas() if tools else (), role, context, cfg.temperature)
        completion: Completion | None = None
        self.llm_calls += 1
        for item in model.stream(request):
            if isinstance(item, Completion):
                completion = item
            elif item:
                yield self.event(ev.Token, role=role, text=item)
        if completion is None:
            from ..errors import MalformedResponseError

            raise MalformedResponseError(f"model {model.name!r} returned no completion")
        usage = completion.usage
        self.total_tokens += usage.total_tokens
        yield self.event(ev.LlmCall, role=role, model=completion.model or model.name,
                         prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                         latency_ms=round(completion.latency_ms, 1), usage_estimated=usage.estimated,
                         context=context)
        return completion

    def _schemas(self) -> tuple[dict[str, Any], ...]:
        # the registry does not change during a run: build its schemas once
        if self._tool_schemas is None:
            self._tool_schemas = self.tools.schemas(self.config.lang)
        return self._tool_schemas

    def _check_budget(self) -> None:
        cfg = self.config
        if cfg.max_llm_calls and self.llm_calls >= cfg.max_llm_calls:
            raise BudgetExhausted("max_llm_calls", cfg.max_llm_calls)
        if cfg.max_total_tokens and self.total_tokens >= cfg.max_total_tokens:
            raise BudgetExhausted("max_total_tokens", cfg.max_total_tokens)

    def run_tool(self, call: ToolCall, arguments: dict[str, Any] | None = None
                 ) -> Generator[ev.Event, None, tuple[str, bool]]:
        """Emit `tool_call`, run it, emit `tool_result`; returns (output, is_error).

        `arguments` are the call's arguments when the caller has already parsed them (the hot path
        parses each call once); otherwise they are parsed here, with the same checks.
        """
        if arguments is None:
            arguments, _problem = parse_arguments(call.arguments)
        usable = arguments is not None
        yield self.event(ev.ToolCallEvent, name=call.name, arguments=arguments if usable else call.arguments,
                         call_id=call.id)
        obs = self.tools.run(call.name, arguments if usable else call.arguments)
        yield self.event(ev.ToolResult, name=call.name, output=obs.output, is_error=obs.is_error, call_id=call.id)
        return obs.output, obs.is_error

    def judge(self, role: str, messages: list[Message], parse: Callable[[str], Verdict | None],
              fallback: Verdict, **labels: Any) -> Generator[ev.Event, None, Verdict]:
        """A verdict call with one optional repair re-ask; an unparsable reply gives `fallback`."""
        completion = yield from self.llm(role, messages, **labels)
        verdict = parse(completion.text)
        if verdict is None and self.config.repair_reask:
            retry = [*messages, Message("assistant", completion.text), Message("user", REPAIR_REQUEST[self.config.lang])]
            completion = yield from self.llm(role, retry, repair=True, **labels)
            verdict = parse(completion.text)
        return verdict if verdict is not None else fallback

    def limit(self, name: str, value: int, message: str) -> ev.Event:
        """A `limit_reached` event; the run then ends on the cap."""
        self.end_reason = "cap"
        return self.event(ev.LimitReached, limit=name, value=value, message=message)

    def verdict_event(self, role: str, v: Verdict) -> ev.Event:
        return self.event(ev.VerdictEvent, role=role, verdict=v.verdict, feedback=v.feedback, analysis=v.analysis,
                          suggestion=v.suggestion, parsed=v.parsed)

    @property
    def repair_factor(self) -> int:
        """Calls one verdict may take: 2 with the repair re-ask, else 1."""
        return 2 if self.config.repair_reask else 1


def run_pattern(task: str, config: RunConfig, models: ModelRouter, tools: ToolRegistry | None,
                body: Callable[[RunContext], Body], bound: int) -> Iterator[ev.Event]:
    """Drive a pattern body and guarantee the closing events.

    Every run ends with `final_answer` (possibly after `limit_reached`) or `run_failed`, then
    `run_finished`. Errors of the core become `run_failed`; so does anything unexpected, so that a
    page never loses the trace recorded so far.
    """
    prompts = PromptSet(specs_for(config.pattern), config.lang, config.prompts)
    budget = min(bound, config.max_llm_calls) if config.max_llm_calls else bound
    ctx = RunContext(task, config, models, tools or ToolRegistry(), prompts, budget)
    yield ctx.event(ev.RunStarted, pattern=config.pattern, task=task, max_llm_calls=budget)
    reason = "answer"
    try:
        answer = yield from body(ctx)
        reason = ctx.end_reason
        ctx.step = None
        yield ctx.event(ev.FinalAnswer, text=answer)
    except BudgetExhausted as exc:
        ctx.step = None
        yield ctx.event(ev.LimitReached, limit=exc.limit, value=exc.value,
                        message=f"the run-wide budget {exc.limit}={exc.value} is spent")
        yield ctx.event(ev.FinalAnswer, text=ctx.best_answer)
        reason = "budget"
    except AgentError as exc:
        ctx.step = None
        yield ctx.event(ev.RunFailed, error_type=exc.code, message=str(exc))
        reason = "error"
    except Exception as exc:  # a bug or an unexpected library error: keep the trace, say what happened
        ctx.step = None
        yield ctx.event(ev.RunFailed, error_type=type(exc).__name__, message=f"unexpected error: {exc}")
        reason = "error"
    yield ctx.event(ev.RunFinished, reason=reason, llm_calls=ctx.llm_calls, total_tokens=ctx.total_tokens,
                    elapsed_ms=round(ctx.clock.now() * 1000, 1))
