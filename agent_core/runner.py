"""One entry point for every pattern: `stream()` yields events, `run()` consumes them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

from . import events as ev
from .config import RunConfig
from .models import ChatModel, ModelRouter
from .patterns import registry
from .tools import ToolRegistry


def call_bound(config: RunConfig) -> int:
    """The most LLM calls a run with this config can make (the budget may lower it)."""
    bound = registry.get(config.pattern).call_bound(config)
    return min(bound, config.max_llm_calls) if config.max_llm_calls else bound


def default_tools(config: RunConfig) -> ToolRegistry:
    from . import mock_tools

    return mock_tools.registry(list(config.tools), config.lang)


def stream(
    task: str, config: RunConfig, models: ModelRouter | ChatModel, tools: ToolRegistry | None = None
) -> Iterator[ev.Event]:
    """Run `config.pattern` on `task`, yielding events as they happen.

    The config is validated first (registry.validate: templates, the pattern's own checks); a broken one
    raises TemplateError or ConfigError before any model is called. Template checks are cached, so the
    run's own PromptSet does not pay for them a second time.
    """
    spec = registry.get(config.pattern)
    registry.validate(config, spec)
    router = models if isinstance(models, ModelRouter) else ModelRouter(models)
    tools = tools if tools is not None else default_tools(config)
    events = spec.stream(task, config, router, tools)
    servers = {name: t.server for name, t in tools.tools.items() if t.server}
    return _with_servers(events, servers) if servers else events


def _with_servers(events: Iterator[ev.Event], servers: dict[str, str]) -> Iterator[ev.Event]:
    """The run's events with each tool call and result naming the MCP server its tool came from."""
    try:
        for e in events:
            if isinstance(e, (ev.ToolCallEvent, ev.ToolResult)) and e.name in servers:
                e = replace(e, server=servers[e.name])
            yield e
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()


@dataclass
class RunResult:
    """A finished run: its answer, why it ended, and every event."""

    final_answer: str
    reason: str
    events: list[ev.Event] = field(default_factory=list)

    @property
    def failed(self) -> ev.RunFailed | None:
        return next((e for e in self.events if isinstance(e, ev.RunFailed)), None)

    @property
    def llm_calls(self) -> int:
        return sum(1 for e in self.events if isinstance(e, ev.LlmCall))


def result_of(events: Iterable[ev.Event]) -> RunResult:
    """Summarise a list of events (a finished or stopped run) as a RunResult."""
    events = list(events)
    answer = next((e.text for e in reversed(events) if isinstance(e, ev.FinalAnswer)), "")
    finished = next((e for e in reversed(events) if isinstance(e, ev.RunFinished)), None)
    return RunResult(answer, finished.reason if finished else "stop", events)


def run(task: str, config: RunConfig, models: ModelRouter | ChatModel, tools: ToolRegistry | None = None) -> RunResult:
    """Run to the end and return the result."""
    return result_of(stream(task, config, models, tools))
