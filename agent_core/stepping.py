"""Step mode: a run that outlives a script run, pauses at breakpoints, and lets a person edit a call
or answer it in a role.

A `RunHandle` runs a pattern's generator in a worker thread and puts its events on a queue that any
number of script runs drain. Breakpoints pause it: before every model call, before the calls of
chosen roles, at every verdict, before tool calls. At a pause before a model call the pending request
can be read and one of three things done: send it unchanged, send it edited (this call's messages, or
a prompt template from here on), or skip the model and supply the reply by hand. A role bound to a
person always pauses there and waits for the reply. Every action is recorded as an event (`paused`,
`resumed`, `edited`, `human_reply`), so a trace tells what the person did.

The core meets the handle at one point: `RunContext.llm` asks the router's `gate` (this handle)
before each call. A paused run blocks its thread on a condition — it costs no CPU — and one left
alone for `idle_timeout_s` ends with reason `stop`, its thread gone.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from contextlib import closing
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from . import events as ev
from . import settings
from .errors import AgentError
from .fork import Reply
from .messages import ChatRequest, Message
from .roles import Role

#: how long a paused run waits for a person before it ends with reason stop
IDLE_TIMEOUT_S = settings.IDLE_TIMEOUT_S

#: how often a run asks whether its owner (a page's browser session) is still there
OWNER_CHECK_S = 1.0

Action = Literal["continue", "step", "send", "edit", "answer", "stop"]


@dataclass(frozen=True)
class Breakpoints:
    """Where a run pauses on its own. `people` are roles a person answers (they always pause)."""

    every_call: bool = False
    roles: frozenset[str] = frozenset()
    verdicts: bool = False
    tools: bool = False
    people: frozenset[str] = frozenset()

    def before_call(self, role: str) -> bool:
        return self.every_call or role in self.roles or role in self.people


@dataclass
class Pending:
    """What a paused run is about to do: a model call (with its request), or what it just showed."""

    at: Literal["call", "verdict", "tool"]
    role: str = ""
    #: the 1-based number of the call about to be made (for `at == "call"`)
    call: int = 0
    request: ChatRequest | None = None
    event: ev.Event | None = None
    human: bool = False
    #: the run's prompts, for a template edit "from here on"
    prompts: Any = None
    #: the role's reply grammar: its verdicts, how a person's line becomes a reply (None: a tool pause)
    grammar: Role | None = None

    @property
    def messages(self) -> tuple[Message, ...]:
        return self.request.messages if self.request is not None else ()


@dataclass
class _Decision:
    action: Action
    messages: tuple[Message, ...] | None = None
    reply: Reply | None = None
    template: tuple[str, str] | None = None


class _Stop(BaseException):
    """Ends the worker from inside a call; a BaseException so the pattern's error handling lets it pass."""


@dataclass
class Outcome:
    """What `RunContext.llm` does with a call after asking the gate."""

    request: ChatRequest
    reply: Reply | None = None
    #: (event class, fields) for the core to emit with its own clock: edited, human_reply
    events: list[tuple[type[ev.Event], dict[str, Any]]] = field(default_factory=list)


class RunHandle:
    """One run in a worker thread, steerable from any script run (or the CLI).

    `start(gate)` must return the run's event stream with `gate` set on its ModelRouter (see
    `for_run`). Read events with `drain()`; steer with `pause()`, `step()`, `resume()`, `send()`,
    `answer()`, `stop()`.
    """

    def __init__(
        self,
        start: Callable[[RunHandle], Iterator[ev.Event]],
        breakpoints: Breakpoints = Breakpoints(),
        *,
        idle_timeout_s: float | None = None,
        on_event: Callable[[ev.Event], None] | None = None,
        owner_alive: Callable[[], bool] | None = None,
        roles: Mapping[str, Role] | None = None,
    ) -> None:

        # None: the server's setting (AGENT_PLAYGROUND_STEP_IDLE_S), else IDLE_TIMEOUT_S
        self._start, self.breakpoints = start, breakpoints
        #: the run's pattern's roles, by name: each pause carries its role's grammar
        self.roles = dict(roles or {})
        self.idle_timeout_s = settings.step_idle_timeout_s() if idle_timeout_s is None else idle_timeout_s
        #: called in the worker thread with every event as it is made (e.g. a poll waiting for a verdict)
        self.on_event = on_event
        #: whether whoever started the run is still there (a page: its browser session); checked about
        #: once a second, running or paused — work started for a session stops when the session goes
        self.owner_alive = owner_alive
        self._next_check = 0.0
        self.events: queue.Queue[ev.Event] = queue.Queue()
        #: set whenever there is something new to look at (an event, a pause): a page following the run
        #: waits on it instead of polling, so a click's effect reaches the screen without a poll's delay
        self.changed = threading.Event()
        self.pending: Pending | None = None
        self.finished = threading.Event()
        self._cond = threading.Condition()
        self._decision: _Decision | None = None
        self._stop = self._pause_next = False
        #: True when the run ended because a pause outlasted `idle_timeout_s`
        self.timed_out = False
        self._clock_base: float | None = None
        # the creator's context goes with the run: whom its judged runs count against, and when their
        # wait for a judge slot ends (agent_core.sandbox.admission)
        self._thread = threading.Thread(
            target=contextvars.copy_context().run, args=(self._work,), name="run-handle", daemon=True
        )

    @classmethod
    def for_run(cls, task: str, config: Any, models: Any, tools: Any = None, **kwargs: Any) -> RunHandle:
        """A handle on `agent_core.stream(task, config, models, tools)`."""
        from .models import ModelRouter
        from .patterns import registry
        from .runner import stream

        router = models if isinstance(models, ModelRouter) else ModelRouter(models)
        kwargs.setdefault("roles", {r.name: r for r in registry.get(config.pattern).roles})
        return cls(lambda gate: stream(task, config, replace(router, gate=gate), tools), **kwargs)

    # --- the person's side (any thread) -----------------------------------------------------------
    def start(self) -> RunHandle:
        self._thread.start()
        return self

    @property
    def paused(self) -> bool:
        return self.pending is not None

    @property
    def alive(self) -> bool:
        return not self.finished.is_set()

    def drain(self) -> list[ev.Event]:
        """Every event queued so far, in order, without waiting."""
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    def pause(self) -> None:
        """Pause at the next model call, verdict or tool call."""
        self._pause_next = True

    def resume(self) -> None:
        """Go on; pause again only at a breakpoint."""
        self._decide(_Decision("continue"))

    def step(self) -> None:
        """Go on until the next model call is about to be made, or the next verdict."""
        self._decide(_Decision("step"))

    def send(
        self, messages: tuple[Message, ...] | list[Message] | None = None, template: tuple[str, str] | None = None
    ) -> None:
        """Send the pending call — as it is, with edited `messages`, and/or with a prompt template
        (key, text) replaced from here on (validated first: TemplateError names the problem)."""
        if template is not None and self.pending is not None and self.pending.prompts is not None:
            self.pending.prompts.replace(*template)
        self._decide(
            _Decision(
                "edit" if messages is not None or template else "send",
                tuple(messages) if messages is not None else None,
                template=template,
            )
        )

    def answer(self, reply: Reply | str) -> None:
        """Skip the model: the pending call gets this reply, parsed as a model's would be."""
        self._decide(_Decision("answer", reply=Reply(reply) if isinstance(reply, str) else reply))

    def stop(self) -> None:
        """End the run now (reason stop), keeping every event so far."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()

    def join(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _decide(self, decision: _Decision) -> None:
        with self._cond:
            if self.pending is not None:
                self._decision, self.pending = decision, None  # not paused from now on, for every reader
                self._cond.notify_all()

    # --- the run's side (the worker thread) -------------------------------------------------------
    def before_call(self, role: str, call: int, request: ChatRequest, prompts: Any = None) -> Outcome:
        """The gate: asked by `RunContext.llm` before each model call."""
        if self._stop:
            raise _Stop
        human = role in self.breakpoints.people
        if not (human or self._pause_next or self.breakpoints.before_call(role)):
            return Outcome(request)
        decision = self._wait(
            Pending("call", role, call, request, human=human, prompts=prompts, grammar=self.roles.get(role))
        )
        out = Outcome(request)
        if decision.action == "answer" and decision.reply is not None:
            out.reply = decision.reply
            out.events.append(
                (
                    ev.HumanReply,
                    {
                        "role": role,
                        "call": call,
                        "text": decision.reply.text,
                        "tool_calls": tuple(
                            {"name": c.name, "arguments": c.arguments} for c in decision.reply.tool_calls
                        ),
                    },
                )
            )
        elif decision.action == "edit":
            if decision.messages is not None:
                out.request = request._replace(messages=decision.messages)
            what = "messages" if decision.messages is not None else "template"
            out.events.append(
                (
                    ev.Edited,
                    {
                        "role": role,
                        "call": call,
                        "what": what,
                        "template": decision.template[0] if decision.template else None,
                    },
                )
            )
        return out

    def _wait(self, pending: Pending) -> _Decision:
        """Pause: record it, block (no CPU) until a decision, a stop or the idle timeout."""
        self._pause_next = False
        self._emit(
            ev.Paused(
                at=pending.at, role=pending.role, call=pending.call, reason="person" if pending.human else "breakpoint"
            )
        )
        with self._cond:
            self.pending, self._decision = pending, None
            self.changed.set()
            deadline = time.monotonic() + self.idle_timeout_s
            while self._decision is None and not self._stop:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._stop = self.timed_out = True
                    break
                self._cond.wait(min(left, OWNER_CHECK_S) if self.owner_alive is not None else left)
                if self._owner_gone():
                    break
            decision = self._decision if self._decision is not None and not self._stop else _Decision("stop")
            self.pending, self._decision = None, None
        if decision.action == "stop":
            raise _Stop
        if decision.action == "step":
            self._pause_next = True
        self._emit(ev.Resumed(action=decision.action))
        return decision

    def _pause_after(self, event: ev.Event) -> Pending | None:
        bp = self.breakpoints
        if isinstance(event, ev.VerdictEvent) and (bp.verdicts or self._pause_next):
            return Pending("verdict", event.role, event=event, grammar=self.roles.get(event.role))
        if isinstance(event, ev.ToolCallEvent) and bp.tools:
            return Pending("tool", event.name, event=event)
        return None

    def _work(self) -> None:
        from .sandbox.admission import cancelled_when

        counts = {"calls": 0, "tokens": 0}
        finished = False
        try:
            # a run's stream is a pattern's generator, typed as the Iterator it is read as: closing it
            # ends the run's HTTP stream
            with cancelled_when(lambda: self._stop or self._owner_gone()), closing(self._start(self)) as stream:  # type: ignore[type-var]
                for event in stream:
                    self._emit(event)
                    if isinstance(event, ev.LlmCall):
                        counts["calls"] += 1
                        counts["tokens"] += event.prompt_tokens + event.completion_tokens
                    finished = isinstance(event, ev.RunFinished)
                    if self._stop or self._owner_gone():
                        break
                    pending = self._pause_after(event)
                    if pending is not None:
                        self._wait(pending)
        except _Stop:
            pass
        except AgentError as exc:  # refused before the first event: a broken template, a bad config
            self._emit(ev.RunFailed(error_type=exc.code, message=str(exc)))
            self._emit(self._closing("error", counts))
            finished = True
        except Exception as exc:  # the core turns its own errors into run_failed; this is a last resort
            self._emit(ev.RunFailed(error_type=type(exc).__name__, message=f"unexpected error: {exc}"))
            self._emit(self._closing("error", counts))
            finished = True
        finally:
            if not finished:
                self._emit(self._closing("stop", counts))
            self.finished.set()
            self.changed.set()

    def _owner_gone(self) -> bool:
        """True (and the run stopping) once the owner is gone; asks at most once every OWNER_CHECK_S."""
        if self.owner_alive is None or time.monotonic() < self._next_check:
            return False
        self._next_check = time.monotonic() + OWNER_CHECK_S
        if self.owner_alive():
            return False
        self._stop = True
        return True

    def _closing(self, reason: ev.EndReason, counts: dict[str, int]) -> ev.RunFinished:
        now = self._now()
        return ev.RunFinished(
            t=now,
            reason=reason,
            llm_calls=counts["calls"],
            total_tokens=counts["tokens"],
            elapsed_ms=round(now * 1000, 1),
        )

    def _now(self) -> float:
        return round(time.perf_counter() - self._clock_base, 4) if self._clock_base is not None else 0.0

    def now(self) -> float:
        """The run's time so far, in seconds on its events' clock: it runs on while the run is paused."""
        return self._now()

    def _emit(self, event: ev.Event) -> None:
        # the clock follows the events' own: a fork's events are on its parent's clock (agent_core.fork)
        base = time.perf_counter() - event.t
        if self._clock_base is None or base < self._clock_base:
            self._clock_base = base
        if event.t == 0.0 and not isinstance(event, ev.RunStarted):
            event = replace(event, t=self._now())
        self.events.put(event)
        if self.on_event is not None:
            self.on_event(event)
        self.changed.set()


def drive(
    handle: RunHandle, on_pause: Callable[[RunHandle, Pending], None], *, poll_s: float = 0.05
) -> Generator[ev.Event, None, None]:
    """Start `handle` and yield its events as they come; whenever it waits for a person, call
    `on_pause(handle, pending)`, which must answer, send, resume or stop it. Closing the generator
    stops the run (so Ctrl-C in the CLI ends it with reason stop)."""
    handle.start()
    try:
        while True:
            try:
                yield handle.events.get(timeout=poll_s)
                continue
            except queue.Empty:
                pass
            pending = handle.pending
            if pending is not None:
                on_pause(handle, pending)
            elif handle.finished.is_set() and handle.events.empty():
                return
    finally:
        handle.stop()
        handle.join(5)
