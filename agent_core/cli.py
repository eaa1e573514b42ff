"""Command line: list scenarios, run a pattern headless with live readable output, write traces.

    python -m agent_core scenarios
    python -m agent_core run --pattern react --scenario weather-report --reflection-rounds 2
    python -m agent_core run --pattern reflection --task "..." --base-url http://127.0.0.1:11434/v1 --model llama3.1
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from contextlib import closing
from typing import TextIO

from . import events as ev
from .config import PATTERNS, RunConfig, for_scenario
from .errors import AgentError
from .models import ModelRouter
from .scenarios import SCENARIOS

_FLAGS = {  # flag -> RunConfig field, for the limits every pattern exposes
    "max_rounds": "max_rounds", "reflection_rounds": "max_reflection_rounds",
    "max_step_retries": "max_step_retries", "max_replans": "max_replans",
    "max_iterations": "max_iterations", "max_calls": "max_llm_calls", "max_tokens": "max_total_tokens",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m agent_core", description="Run LLM agent patterns headless.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("scenarios", help="list the built-in scenario ids")

    run = sub.add_parser("run", help="run a pattern on a scenario or a task")
    run.add_argument("--pattern", choices=PATTERNS, help="defaults to the scenario's pattern")
    what = run.add_mutually_exclusive_group(required=True)
    what.add_argument("--scenario", choices=list(SCENARIOS), metavar="ID")
    what.add_argument("--task", help="a free-text task")
    run.add_argument("--lang", choices=("en", "zh"), default="en")
    run.add_argument("--tools", help="comma-separated mock tools for --task (see agent_core.mock_tools)")
    run.add_argument("--max-rounds", type=int)
    run.add_argument("--reflection-rounds", type=int)
    run.add_argument("--max-step-retries", type=int)
    run.add_argument("--max-replans", type=int)
    run.add_argument("--max-iterations", type=int)
    run.add_argument("--max-calls", type=int, help="run-wide budget of LLM calls")
    run.add_argument("--max-tokens", type=int, help="run-wide budget of tokens")
    run.add_argument("--text-protocol", action="store_true", help="ReAct: Thought/Action text protocol")
    run.add_argument("--no-reflector", action="store_true", help="Plan-and-Execute without the step Reflector")
    run.add_argument("--reflector", action="store_true", help="Plan-and-Execute with the step Reflector")
    run.add_argument("--goal-aware-executor", action="store_true")
    run.add_argument("--rule-precheck", action="store_true")
    run.add_argument("--selective-reflection", action="store_true")
    run.add_argument("--test-evaluator", action="store_true", help="Reflection: run drafts against unit tests")
    run.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else offline)")
    run.add_argument("--model", help="model name at --base-url")
    run.add_argument("--api-key", help="prefer the environment (OPENAI_API_KEY); never written to traces")
    run.add_argument("--offline-speed", type=float, default=0.0, help="offline model tokens/s (0 = instant)")
    run.add_argument("--show-tokens", action="store_true", help="print streamed text as it arrives")
    run.add_argument("--trace-out", help="write the trace JSON here")
    return parser


def _config(args: argparse.Namespace) -> tuple[RunConfig, str]:
    overrides = {field: getattr(args, flag) for flag, field in _FLAGS.items() if getattr(args, flag) is not None}
    for toggle in ("text_protocol", "goal_aware_executor", "rule_precheck", "selective_reflection", "test_evaluator"):
        if getattr(args, toggle):
            overrides[toggle] = True
    if args.no_reflector:
        overrides["reflector"] = False
    elif args.reflector:
        overrides["reflector"] = True
    if args.scenario:
        if args.pattern:
            overrides["pattern"] = args.pattern
        config, task = for_scenario(args.scenario, args.lang, **overrides)
        return config, task
    tools = tuple(t.strip() for t in (args.tools or "").split(",") if t.strip())
    return RunConfig(pattern=args.pattern or "react", lang=args.lang, tools=tools, **overrides), args.task


def _models(args: argparse.Namespace) -> tuple[ModelRouter, list[str]]:
    """The model to run on, and the secrets that must never be printed."""
    from .settings import load_settings

    settings = load_settings()
    base_url = args.base_url or settings.base_url
    if not base_url:
        from .offline import OfflineModel

        return ModelRouter(OfflineModel(tokens_per_second=args.offline_speed)), []
    from .llm import OpenAICompatibleModel

    key = args.api_key or settings.api_key
    model = OpenAICompatibleModel(base_url, args.model or settings.model or "gpt-4o-mini", api_key=key)
    return ModelRouter(model), [key] if key else []


def describe(event: ev.Event) -> str | None:
    """One readable line for an event, or None for events shown otherwise (tokens)."""
    def short(text: str, n: int = 160) -> str:
        text = " ".join(str(text).split())
        return text if len(text) <= n else text[: n - 1] + "…"

    match event:
        case ev.RunStarted():
            return f"run {event.pattern}: {short(event.task)} (at most {event.max_llm_calls} LLM calls)"
        case ev.LlmCall():
            est = "~" if event.usage_estimated else ""
            return (f"  llm  {event.role:<11} {event.model}  {est}{event.prompt_tokens}→{event.completion_tokens} "
                    f"tokens  {event.latency_ms:.0f} ms")
        case ev.Thought():
            return f"  thought  {short(event.text)}"
        case ev.ToolCallEvent():
            return f"  tool  {event.name}({short(json.dumps(event.arguments, ensure_ascii=False), 100)})"
        case ev.ToolResult():
            return f"  {'ERROR' if event.is_error else 'result'}  {event.name}: {short(event.output)}"
        case ev.PlanEvent():
            head = "plan" if event.revision == 0 else f"re-plan #{event.revision}"
            lines = [f"  {head}:"] + [f"    [{s.get('status', 'pending')}] {s.get('id')}. {short(s.get('description', ''), 100)}"
                                      for s in event.steps]
            return "\n".join(lines)
        case ev.StepStarted():
            again = f" (attempt {event.attempt + 1})" if event.attempt else ""
            return f"  step {event.step_id}{again}: {short(event.description, 100)}"
        case ev.StepFinished():
            return f"  step {event.step_id} {event.status}"
        case ev.VerdictEvent():
            note = "" if event.parsed else " (fallback: reply not parsed)"
            detail = event.feedback or event.analysis
            extra = f" | suggestion: {short(event.suggestion, 100)}" if event.suggestion and event.suggestion != detail else ""
            return f"  verdict {event.role} {event.verdict}{note}: {short(detail)}{extra}"
        case ev.Draft():
            return f"  draft v{event.version} ({len(event.text)} chars)"
        case ev.LimitReached():
            return f"  limit {event.limit}={event.value}: {event.message}"
        case ev.FinalAnswer():
            return f"final answer:\n{event.text}"
        case ev.RunFailed():
            return f"run failed [{event.error_type}]: {event.message}"
        case ev.RunFinished():
            return f"finished ({event.reason}): {event.llm_calls} LLM calls, {event.total_tokens} tokens, {event.elapsed_ms / 1000:.2f} s"
    return None


def run_command(args: argparse.Namespace, out: TextIO) -> int:
    from . import runner, trace

    config, task = _config(args)
    models, secrets = _models(args)
    events: list[ev.Event] = []
    streaming = False
    try:
        with closing(runner.stream(task, config, models)) as stream:
            for event in stream:
                events.append(event)
                if isinstance(event, ev.Token):
                    if args.show_tokens:
                        out.write(event.text)
                        out.flush()
                        streaming = True
                    continue
                if streaming:
                    out.write("\n")
                    streaming = False
                line = describe(event)
                if line:
                    print(line, file=out, flush=True)
    except KeyboardInterrupt:
        print("stopped by the user", file=out)
    finally:
        if args.trace_out and events:
            text = trace.Trace.of(config.to_dict(), events, models.names()).dumps(secrets=secrets)
            with open(args.trace_out, "w", encoding="utf-8") as fh:
                fh.write(text)
    failed = next((e for e in events if isinstance(e, ev.RunFailed)), None)
    if failed is not None or not events or not isinstance(events[-1], ev.RunFinished):
        reason = failed.message if failed else "the run did not finish"
        print(f"error: {reason}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        if args.command == "scenarios":
            for s in SCENARIOS.values():
                print(f"{s.id:<22} {s.pattern:<13} {s.title['en']}", file=out)
            return 0
        return run_command(args, out)
    except AgentError as exc:  # a bad flag value, a broken template, an unreachable endpoint...
        print(f"error: {exc}", file=sys.stderr)
        return 2
