"""Loop pieces every pattern shares: the run context, model calls that emit events, tool calls,
the run-wide budget, and the wrapper that turns any ending into well-formed closing events."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .. import events as ev
from ..calls import CallLog
from ..config import RunConfig
from ..errors import AgentError, EndpointTimeoutError, ModelError, StreamCutError
from ..messages import (
    CONTEXT_INDEX,
    CallContext,
    ChatRequest,
    Completion,
    Message,
    ToolCall,
    Usage,
    estimate_prompt_tokens,
    estimate_tokens,
)
from ..models import ModelRouter
from ..prompts import PromptSet, PromptSpec
from ..tools import ToolRegistry, parse_arguments
from ..verdicts import REPAIR_REQUEST, Verdict

_perf_counter = time.perf_counter
_new = tuple.__new__

#: A pattern body: yields events, returns the final answer text.
Body = Generator[ev.Event, None, str]


#: Said by a fallback verdict or plan error when the reply it could not parse hit the output cap.
CUT_AT_CAP = {
    "en": "The reply was cut at max_output_tokens ({cap}), which may be why it could not be parsed; "
    "raise the cap for this role.",
    "zh": "回复在 max_output_tokens（{cap}）处被截断，这可能是无法解析的原因；请为该角色调高上限。",
}


class BudgetExhausted(Exception):
    """Internal signal: the run-wide budget is spent (caught by `run_pattern`)."""

    def __init__(self, limit: str, value: int, message: str = "") -> None:
        super().__init__(limit)
        self.limit = limit
        self.value = value
        self.message = message or (
            f"the run's time limit {limit}={value} s is up"
            if limit == "max_seconds"
            else f"the run-wide budget {limit}={value} is spent"
        )


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
    #: finish_reason of the latest completed call ("length": cut at the output cap)
    last_finish: str | None = None
    _tool_schemas: tuple[dict[str, Any], ...] | None = None
    _names: tuple[str, ...] | None = None
    #: the call record: each distinct message once, each call as id ranges (calls.py)
    calls: CallLog = field(init=False)

    def __post_init__(self) -> None:
        self.calls = CallLog(self.prompts.rendered)
        self._start = self.clock.start
        cfg = self.config
        self._context_base = list(CallContext(cfg.pattern, cfg.scenario, cfg.lang))
        self._task_input = (("task", self.task),)

    def event(self, cls: type[ev.Event], **fields: Any) -> ev.Event:
        if "step" not in fields:
            fields["step"] = self.step
        return cls(t=round(_perf_counter() - self._start, 4), **fields)

    # The three events of every ReAct step (llm_call, tool_call, tool_result) are built directly below,
    # not through `event(cls, **fields)`: that path builds two dicts per event, a fifth of a step's cost.

    def llm(
        self,
        role: str,
        messages: list[Message] | tuple[Message, ...],
        *,
        tools: bool = False,
        inputs: dict[str, str] | None = None,
        temperature: float | None = None,
        **labels: Any,
    ) -> Generator[ev.Event, None, Completion]:
        """Call the model bound to `role`, streaming `token` events, then one `llm_call` event.

        `labels` are CallContext fields (round, step_id, iteration...); `inputs` the values the prompt
        was rendered from. Both travel on the request; the labels are recorded on the `llm_call`.
        `temperature` is this call's, over the run's (a pattern that samples on purpose sends its own);
        the call record keeps whichever was sent.
        """
        cfg = self.config
        if cfg.max_llm_calls or cfg.max_total_tokens or cfg.max_seconds:
            self._check_budget()
        model = self.models.for_role(role)
        # the run's task rides along last (a call's own inputs come first and win): scripts quote the
        # task itself, never the first message, which for most roles is a rendered prompt template
        # (the context is built in C from the run's fixed fields: CallContext(...) with keywords costs more)
        values = self._context_base.copy()
        for name, value in labels.items():
            values[CONTEXT_INDEX[name]] = value
        values[-1] = (*inputs.items(), ("task", self.task)) if inputs else self._task_input
        context = _new(CallContext, values)
        # built in C (see messages.py's builders): every field given, in ChatRequest's order
        request = _new(
            ChatRequest,
            (
                tuple(messages),
                self._schemas() if tools else (),
                role,
                context,
                cfg.temperature if temperature is None else temperature,
                cfg.output_cap(role),
                self._time_left() if cfg.max_seconds else None,
            ),
        )
        self.llm_calls += 1
        reply = None
        if self.models.gate is not None:  # step mode: a person may pause, edit or answer this call
            outcome = self.models.gate.before_call(role, self.llm_calls, request, self.prompts)
            request, reply = outcome.request, outcome.reply
            for cls, fields in outcome.events:
                yield self.event(cls, **fields)
        if reply is not None:
            completion = Completion(
                reply.text,
                reply.tool_calls,
                Usage(estimate_prompt_tokens(request.messages), estimate_tokens(reply.text), True),
                "person",
                0.0,
                "tool_calls" if reply.tool_calls else "stop",
            )
        else:
            completion = yield from self._streamed(model, request)
        usage = completion.usage
        self.total_tokens += usage.total_tokens
        self.last_finish = completion.finish_reason
        sent, new = self.calls.request(request.messages)
        reply, new_reply = self.calls.reply(completion)
        yield ev.LlmCall(
            t=round(_perf_counter() - self._start, 4),
            step=self.step,
            role=role,
            model=completion.model or model.name,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            latency_ms=round(completion.latency_ms, 1),
            usage_estimated=usage.estimated,
            finish_reason=completion.finish_reason,
            messages=sent,
            new_messages=(*new, *new_reply) if new_reply else tuple(new),
            reply_message=reply,
            tools=self._tool_names() if tools else (),
            temperature=request.temperature,
            context=context,
        )
        return completion

    def _tool_names(self) -> tuple[str, ...]:
        if self._names is None:  # like the schemas, built once per run
            self._names = tuple(s.get("function", s).get("name", "") for s in self._schemas())
        return self._names

    def _streamed(self, model: Any, request: ChatRequest) -> Generator[ev.Event, None, Completion]:
        """Stream one call as `token` events and return its Completion.

        The run's token budget and time limit are checked after every delta, not only between
        calls: a model that rambles is stopped mid-reply (its stream closed, so the server stops
        too). Tokens the server has not reported yet are estimated from the text. A call that does
        not finish (stopped here, or cut by the transport) still gets its `llm_call` event, which
        keeps the text received so far.
        """
        cfg, started = self.config, time.perf_counter()
        prompt_estimate = estimate_prompt_tokens(request.messages) if cfg.max_total_tokens else 0
        parts: list[str] = []
        streamed = 0
        stream = model.stream(request)
        try:
            for item in stream:
                if isinstance(item, Completion):
                    return item
                if not item:
                    continue
                parts.append(item)
                yield self.event(ev.Token, role=request.role, text=item)
                streamed += estimate_tokens(item)
                if cfg.max_total_tokens and self.total_tokens + prompt_estimate + streamed > cfg.max_total_tokens:
                    yield self._unfinished(model, request, "".join(parts), started)
                    raise BudgetExhausted(
                        "max_total_tokens",
                        cfg.max_total_tokens,
                        f"the run-wide budget max_total_tokens={cfg.max_total_tokens} ran out while "
                        f"a {request.role} reply was streaming; its text so far is kept on the call",
                    )
                if self._time_left() == 0:
                    yield self._unfinished(model, request, "".join(parts), started)
                    raise BudgetExhausted(
                        "max_seconds",
                        cfg.max_seconds,
                        f"the run's time limit max_seconds={cfg.max_seconds} s ran out while a "
                        f"{request.role} reply was streaming; its text so far is kept on the call",
                    )
        except (StreamCutError, EndpointTimeoutError) as exc:
            yield self._unfinished(model, request, getattr(exc, "partial_text", "") or "".join(parts), started)
            if self._time_left() == 0:  # the read timeout was the run's time left: the limit, not the server
                raise BudgetExhausted("max_seconds", cfg.max_seconds) from None
            raise
        except ModelError:
            if self._time_left() == 0:
                raise BudgetExhausted("max_seconds", cfg.max_seconds) from None
            raise
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # stops the HTTP stream when the run stops the call early
        from ..errors import MalformedResponseError

        raise MalformedResponseError(f"model {model.name!r} returned no completion")

    def _unfinished(self, model: Any, request: ChatRequest, partial: str, started: float) -> ev.Event:
        """The `llm_call` event of a call that did not finish; its estimated tokens count against the budget."""
        prompt_tokens, completion_tokens = estimate_prompt_tokens(request.messages), estimate_tokens(partial)
        self.total_tokens += prompt_tokens + completion_tokens
        sent, new = self.calls.request(request.messages)  # what it was sent is on the record; no reply is
        return self.event(
            ev.LlmCall,
            role=request.role,
            model=model.name,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            usage_estimated=True,
            partial_text=partial,
            latency_ms=round((time.perf_counter() - started) * 1000, 1),
            messages=sent,
            new_messages=tuple(new),
            tools=self._tool_names() if request.tools else (),
            temperature=request.temperature,
            context=request.context,
        )

    def _time_left(self) -> float | None:
        """Seconds left under `max_seconds` (0 when it is up), or None when the run has no time limit."""
        if not self.config.max_seconds:
            return None
        return max(0.0, self.clock.start + self.config.max_seconds - time.perf_counter())

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
        if self._time_left() == 0:
            raise BudgetExhausted("max_seconds", cfg.max_seconds)

    def run_tool(
        self, call: ToolCall, arguments: dict[str, Any] | None = None
    ) -> Generator[ev.Event, None, tuple[str, bool]]:
        """Emit `tool_call`, run it, emit `tool_result`; returns (output, is_error).

        `arguments` are the call's arguments when the caller has already parsed them (the hot path
        parses each call once); otherwise they are parsed here, with the same checks.
        """
        if arguments is None:
            arguments, _problem = parse_arguments(call.arguments)
        usable = arguments is not None
        shown = arguments if usable else call.arguments
        yield ev.ToolCallEvent(
            t=round(_perf_counter() - self._start, 4), step=self.step, name=call.name, arguments=shown, call_id=call.id
        )
        obs = self.tools.run(call.name, shown)
        yield ev.ToolResult(
            t=round(_perf_counter() - self._start, 4),
            step=self.step,
            name=call.name,
            output=obs.output,
            is_error=obs.is_error,
            call_id=call.id,
        )
        return obs.output, obs.is_error

    def judge(
        self,
        role: str,
        messages: list[Message],
        parse: Callable[[str], Verdict | None],
        fallback: Verdict,
        **labels: Any,
    ) -> Generator[ev.Event, None, Verdict]:
        """A verdict call with one optional repair re-ask; an unparsable reply gives `fallback`."""
        completion = yield from self.llm(role, messages, **labels)
        verdict = parse(completion.text)
        if verdict is None and self.config.repair_reask:
            retry = [
                *messages,
                Message("assistant", completion.text),
                Message("user", REPAIR_REQUEST[self.config.lang]),
            ]
            completion = yield from self.llm(role, retry, repair=True, **labels)
            verdict = parse(completion.text)
        if verdict is not None:
            return verdict
        if completion.finish_reason == "length":
            return dataclasses.replace(fallback, analysis=f"{fallback.analysis} {self.cut_note(role)}".strip())
        return fallback

    def cut_note(self, role: str) -> str:
        """Why a reply that hit the output cap may not parse, in the run's language."""
        return CUT_AT_CAP[self.config.lang].format(cap=self.config.output_cap(role))

    def limit(self, name: str, value: int, message: str) -> ev.Event:
        """A `limit_reached` event; the run then ends on the cap."""
        self.end_reason = "cap"
        return self.event(ev.LimitReached, limit=name, value=value, message=message)

    def verdict_event(self, role: str, v: Verdict) -> ev.Event:
        return self.event(
            ev.VerdictEvent,
            role=role,
            verdict=v.verdict,
            feedback=v.feedback,
            analysis=v.analysis,
            suggestion=v.suggestion,
            parsed=v.parsed,
        )

    @property
    def repair_factor(self) -> int:
        """Calls one verdict may take: 2 with the repair re-ask, else 1."""
        return 2 if self.config.repair_reask else 1


def run_pattern(
    task: str,
    config: RunConfig,
    models: ModelRouter,
    tools: ToolRegistry | None,
    body: Callable[[RunContext], Body],
    bound: int,
    prompt_specs: tuple[PromptSpec, ...],
) -> Iterator[ev.Event]:
    """Drive a pattern body, with the pattern's own prompts, and guarantee the closing events.

    Every run ends with `final_answer` (possibly after `limit_reached`) or `run_failed`, then
    `run_finished`. Errors of the core become `run_failed`; so does anything unexpected, so that a
    page never loses the trace recorded so far.
    """
    prompts = PromptSet({p.key: p for p in prompt_specs}, config.lang, config.prompts)
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
        # max_seconds ends with reason "budget" too: like the call and token budgets it is a run-wide
        # allowance the user set, spent whatever the pattern was doing ("cap" is a pattern's own loop bound).
        ctx.step = None
        yield ctx.event(ev.LimitReached, limit=exc.limit, value=exc.value, message=exc.message)
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
    yield ctx.event(
        ev.RunFinished,
        reason=reason,
        llm_calls=ctx.llm_calls,
        total_tokens=ctx.total_tokens,
        elapsed_ms=round(ctx.clock.now() * 1000, 1),
    )


# --- a tool loop's attempt (a plan step's executor, an orchestrator's worker) ------------------------


class Seen(NamedTuple):
    """One tool observation made during an attempt."""

    tool: str
    output: str
    is_error: bool


@dataclass(frozen=True)
class Attempt:
    """What one attempt of a small tool loop produced: its report and the tool observations it made."""

    text: str
    observations: tuple[Seen, ...] = ()

    def tool_error(self) -> Seen | None:
        """The first tool whose latest result in this attempt is an error (a step's rule pre-check, a
        worker's failure)."""
        latest: dict[str, Seen] = {}
        for seen in self.observations:
            latest[seen.tool] = seen
        return next((s for s in latest.values() if s.is_error), None)
