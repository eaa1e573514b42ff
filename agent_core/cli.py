"""Command line: list scenarios, run a pattern headless with live readable output, write traces.

python -m agent_core scenarios
python -m agent_core run --pattern react --scenario weather-report --reflection-rounds 2
python -m agent_core run --pattern reflection --task "..." --base-url http://127.0.0.1:11434/v1 --model llama3.1
python -m agent_core eval --tasks bundled --pattern react --pattern reflection+tests --out results.csv
python -m agent_core export --otlp-json trace.json > spans.json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from typing import TextIO

from . import evaluation, event_views, settings
from . import events as ev
from .config import RunConfig
from .errors import AgentError, ConfigError
from .flags import add_option_flags, option_overrides
from .mcp import cli as mcp_cli
from .messages import estimate_tokens
from .models import ModelRouter
from .patterns import registry
from .patterns.registry import PATTERNS, config_from_dict, configure
from .scenarios import SCENARIOS, for_scenario
from .terminal import LiveView


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m agent_core", description="Run LLM agent patterns headless.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("scenarios", help="list the built-in scenario ids")

    run = sub.add_parser("run", help="run a pattern on a scenario or a task")
    run.add_argument("--pattern", choices=PATTERNS, help="defaults to the scenario's pattern")
    what = run.add_mutually_exclusive_group(required=True)
    what.add_argument("--scenario", choices=list(SCENARIOS), metavar="ID")
    what.add_argument("--task", help="a free-text task")
    what.add_argument("--from-trace", metavar="FILE", help="fork a saved trace (with --fork-at)")
    run.add_argument(
        "--fork-at",
        type=int,
        metavar="K",
        help="with --from-trace: serve calls 1..K-1 and their tool results from the trace, "
        "then call K gets --reply-file (or goes live) and the rest runs live",
    )
    run.add_argument(
        "--reply-file",
        metavar="F",
        help='with --fork-at: the reply for call K (text, a verdict\'s JSON, a plan, or {"tool_calls": [...]})',
    )
    run.add_argument(
        "--human",
        action="append",
        default=[],
        metavar="ROLE",
        choices=registry.role_names(),
        help="a person answers this role's calls (repeatable): the pending request is printed and the "
        "reply read from standard input, e.g. 'REVISE: the warning level is missing' or 'PASS'",
    )
    run.add_argument(
        "--prompt",
        action="append",
        default=[],
        metavar="KEY=FILE",
        help="replace a prompt template with a file's text (repeatable), e.g. critic=strict.txt",
    )
    run.add_argument("--lang", choices=("en", "zh"), default="en")
    run.add_argument("--tools", help="comma-separated mock tools for --task (see agent_core.mock_tools)")
    add_option_flags(run)
    run.add_argument(
        "--role-output-tokens",
        action="append",
        default=[],
        metavar="ROLE=N",
        help="a different cap for one role (repeatable), e.g. planner=2048",
    )
    _add_model_flags(run)
    mcp_cli.add_run_flags(run)
    run.add_argument(
        "--show-tokens",
        action="store_true",
        help="print streamed text as it arrives (the default on a terminal, dimmed; otherwise a "
        "counter of tokens and seconds goes to stderr)",
    )
    run.add_argument("--trace-out", help="write the trace JSON here")
    run.add_argument(
        "--otlp-endpoint",
        metavar="URL",
        help="send the run's OpenTelemetry spans live to this OTLP/HTTP collector, e.g. "
        "http://127.0.0.1:4318 (default: OTEL_EXPORTER_OTLP_ENDPOINT; needs requirements-otel.txt)",
    )

    mcp_cli.add_tools_command(sub)

    export = sub.add_parser("export", help="write a saved trace in another format to standard output")
    export.add_argument(
        "--otlp-json",
        required=True,
        metavar="TRACE",
        help="a trace JSON file, written out as OTLP/JSON (OpenTelemetry GenAI spans)",
    )
    export.add_argument(
        "--start-time",
        metavar="ISO|now",
        help="wall-clock start of the run, e.g. 2026-05-01T09:30:00+00:00 (default: a fixed date, "
        "so the same trace always exports to the same bytes)",
    )

    ev_ = sub.add_parser("eval", help="score patterns on a task set: code with unit tests, or questions with answers")
    ev_.add_argument(
        "--tasks",
        required=True,
        metavar="FILE|bundled|PRESET",
        help="a .jsonl(.gz) or .csv task set (HumanEval, MBPP, GSM8K or generic questions), 'bundled' "
        "for the small code set shipped with the package, or a bundled sample by name",
    )
    ev_.add_argument(
        "--pattern",
        action="append",
        dest="patterns",
        choices=evaluation.EVAL_PATTERNS,
        metavar="P",
        help=f"repeat for several; one of {', '.join(evaluation.EVAL_PATTERNS)} (default: all)",
    )
    ev_.add_argument("--limit", type=int, help="only the first N tasks")
    ev_.add_argument(
        "--out",
        help="write one row per task x pattern x repeat as CSV here, as they finish; rerun "
        "with the same file to run only the missing rows",
    )
    ev_.add_argument(
        "--rounds-out",
        metavar="CSV",
        help="write every round's verdict here (a one-call run has one, round 0): task_id, pattern, "
        "repeat, round, passed, changed_from_previous",
    )
    ev_.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the prompts")
    add_option_flags(ev_, switches=False)
    ev_.add_argument(
        "--unsafe-local-sandbox",
        action="store_true",
        help="judge without bubblewrap, in-process guards only: a single-user laptop, never a shared server",
    )
    ev_.add_argument(
        "--concurrency",
        type=int,
        default=evaluation.DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"runs at once (1-{evaluation.MAX_CONCURRENCY}, default {evaluation.DEFAULT_CONCURRENCY}); "
        "results and their order are those of a sequential run",
    )
    from .evaluation import eval_cli  # task sets, scorers, repeats, statistics, backends

    eval_cli.add_arguments(ev_)
    _add_model_flags(ev_)
    return parser


def _add_model_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else offline)")
    parser.add_argument("--model", help="model name at --base-url")
    parser.add_argument("--api-key", help="prefer the environment (OPENAI_API_KEY); never written to traces")
    parser.add_argument("--offline-speed", type=float, default=0.0, help="offline model tokens/s (0 = instant)")


def _config(args: argparse.Namespace) -> tuple[RunConfig, str]:
    overrides = option_overrides(args)
    prompts = _prompt_files(args.prompt)
    if getattr(args, "role_output_tokens", None):
        overrides["max_output_tokens_by_role"] = _role_caps(args.role_output_tokens)
    if args.from_trace:
        return _fork_config(args, overrides, prompts)
    if prompts:
        overrides["prompts"] = prompts
    if args.scenario:
        if args.pattern:
            overrides["pattern"] = args.pattern
        config, task = for_scenario(args.scenario, args.lang, **overrides)
        return config, task
    tools = tuple(t.strip() for t in (args.tools or "").split(",") if t.strip())
    return configure(args.pattern or PATTERNS[0], lang=args.lang, tools=tools, **overrides), args.task


def _role_caps(pairs: list[str]) -> dict[str, int]:
    out = {}
    for pair in pairs:
        role, sep, value = pair.partition("=")
        try:
            out[role.strip()] = int(value)
        except ValueError:
            raise ConfigError(f"--role-output-tokens takes ROLE=N, got {pair!r}") from None
        if not sep or not role.strip():
            raise ConfigError(f"--role-output-tokens takes ROLE=N, got {pair!r}")
    return out


def _prompt_files(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, path = pair.partition("=")
        if not sep or not key or not path:
            raise ConfigError(f"--prompt takes KEY=FILE, got {pair!r}")
        out[key.strip()] = _read(path, "--prompt")
    return out


def _read(path: str, flag: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{flag}: cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


def _fork_config(args: argparse.Namespace, overrides: dict, prompts: dict[str, str]) -> tuple[RunConfig, str]:
    """The parent trace's config with the flags' changes; the task comes from the trace."""
    from . import trace
    from .fork import ForkError

    if args.fork_at is None:
        raise ConfigError("--from-trace needs --fork-at K (the call to fork at)")
    try:
        with open(args.from_trace, "rb") as fh:
            parent = trace.loads(fh.read())
    except OSError as exc:
        raise ConfigError(f"--from-trace: cannot read {args.from_trace}: {exc.strerror or exc}") from None
    args.parent = parent
    data = dict(parent.config)
    if prompts:
        data["prompts"] = {**data.get("prompts", {}), **prompts}
    config = config_from_dict(data).replace(**overrides)
    started = next((e for e in parent.events if isinstance(e, ev.RunStarted)), None)
    if started is None:
        raise ForkError("this trace has no run_started event, so its task is unknown")
    return config, started.task


def _open_stream(args: argparse.Namespace, config: RunConfig, task: str, models: ModelRouter):
    """The run's event stream: a fresh run, or a fork of --from-trace at --fork-at."""
    from . import runner

    if args.human:
        from .stepping import Breakpoints, RunHandle, drive

        if args.from_trace:
            raise ConfigError("--human and --from-trace do not go together (fork first, then answer in the fork)")
        handle = RunHandle.for_run(
            task, config, models, getattr(args, "registry", None), breakpoints=Breakpoints(people=frozenset(args.human))
        )
        return drive(handle, _ask_person(args.out_stream))
    if not args.from_trace:
        if args.fork_at is not None or args.reply_file:
            raise ConfigError("--fork-at and --reply-file go with --from-trace")
        return runner.stream(task, config, models, getattr(args, "registry", None))
    from .fork import ForkError, fork, fork_inputs, reply_from_text, reply_problem

    table, _ = fork_inputs(args.parent.events, args.fork_at)
    reply = None
    if args.reply_file:
        reply = reply_from_text(_read(args.reply_file, "--reply-file"))
        # the next call of a trace that had not finished has no record yet, so no role to check it by
        role = table.calls[args.fork_at - 1].role if args.fork_at <= len(table.calls) else ""
        grammar = registry.get(config.pattern).role(role) if role else None
        problem = None if reply.tool_calls else reply_problem(grammar, reply.text, config.tools)
        if problem:
            raise ForkError(
                f"--reply-file: the {role}'s reply would not parse ({problem}); the pattern would fall back"
            )
    stream, _recorded = fork(
        args.parent.events, args.fork_at, config, models, getattr(args, "registry", None), reply=reply
    )
    args.fork_point = {"run_id": args.parent.run_id, "at": args.fork_at, "edited": reply is not None}
    return stream


def _ask_person(out: TextIO):
    """The CLI's person in a role: print the pending request, read the reply from standard input."""

    def ask(handle, pending) -> None:  # noqa: ANN001 - a RunHandle and its Pending
        if not pending.human:
            handle.resume()
            return
        last = pending.messages[-1].content if pending.messages else ""
        shown = last if len(last) <= 1500 else last[:1500] + f"… ({len(last) - 1500} more characters)"
        choices = pending.grammar.verdicts if pending.grammar is not None else ()
        how = " | ".join(f"{c}: feedback" if c != "PASS" else c for c in choices) if choices else "your reply, one line"
        print(
            f"  ── call {pending.call} is yours ({pending.role}). It was about to be sent:\n{shown}\n"
            f"  ── your {pending.role} reply ({how}):",
            file=out,
            flush=True,
        )
        line = sys.stdin.readline()
        if not line:
            print("  (no more input: the run stops here)", file=out, flush=True)
            handle.stop()
            return
        handle.answer(pending.grammar.verdict_reply(line) if choices else line.rstrip("\n"))

    return ask


def _models(args: argparse.Namespace) -> tuple[ModelRouter, list[str]]:
    """The model to run on, and the secrets that must never be printed."""
    from .settings import load_settings

    settings = load_settings()
    base_url = args.base_url or settings.base_url
    if not base_url:
        from .offline import OfflineModel

        return ModelRouter(OfflineModel(tokens_per_second=args.offline_speed)), []
    # A key from secrets or the environment goes only to the origin it was configured for, so a
    # --base-url elsewhere gets --api-key or nothing.
    from .endpoints import server_key_for
    from .llm import OpenAICompatibleModel

    key = args.api_key or (server_key_for(base_url) if args.base_url else settings.api_key)
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
            mark = (
                "  [cut at max_output_tokens]"
                if event.cut_at_cap
                else f"  [unfinished: {len(event.partial_text)} characters kept]"
                if event.partial_text
                else ""
            )
            return (
                f"  llm  {event.role:<11} {event.model}  {est}{event.prompt_tokens}→{event.completion_tokens} "
                f"tokens  {event.latency_ms:.0f} ms{mark}"
            )
        case ev.Thought():
            return f"  thought  {short(event.text)}"
        case ev.ToolCallEvent():
            return f"  tool  {event.name}({short(json.dumps(event.arguments, ensure_ascii=False), 100)})"
        case ev.ToolResult():
            return f"  {'ERROR' if event.is_error else 'result'}  {event.name}: {short(event.output)}"
        case ev.PlanEvent():
            head = "plan" if event.revision == 0 else f"re-plan #{event.revision}"
            lines = [f"  {head}:"] + [
                f"    [{s.get('status', 'pending')}] {s.get('id')}. {short(s.get('description', ''), 100)}"
                for s in event.steps
            ]
            return "\n".join(lines)
        case ev.StepStarted():
            again = f" (attempt {event.attempt})" if event.attempt > 1 else ""
            return f"  step {event.step_id}{again}: {short(event.description, 100)}"
        case ev.StepFinished():
            return f"  step {event.step_id} {event.status}"
        case ev.VerdictEvent():
            note = "" if event.parsed else " (fallback: reply not parsed)"
            detail = event.analysis or event.feedback
            extra = (
                f" | suggestion: {short(event.suggestion, 100)}"
                if event.suggestion and event.suggestion != detail
                else ""
            )
            return f"  verdict {event.role} {event.verdict}{note}: {short(detail)}{extra}"
        case ev.Draft():
            return f"  draft v{event.version} ({len(event.text)} chars)"
        case ev.LimitReached():
            return f"  limit {event.limit}={event.value}: {event.message}"
        case ev.FinalAnswer():
            return f"final answer:\n{event.text}"
        case ev.RunFailed():
            return f"run failed [{event.error_type}]: {event.message}"
        case ev.Paused():
            where = {"call": f"before call {event.call}", "verdict": "at a verdict", "tool": "before a tool call"}
            return f"  paused {where.get(event.at, event.at)} ({event.role}{', a person' if event.reason == 'person' else ''})"
        case ev.Resumed():
            return None if event.action in ("answer", "send") else f"  resumed ({event.action})"
        case ev.Edited():
            return f"  edited call {event.call} ({event.role}): {event.what}" + (
                f" {event.template}" if event.template else ""
            )
        case ev.HumanReply():
            return f"  person as {event.role}: {short(event.text)}"
        case ev.RunFinished():
            return f"finished ({event.reason}): {event.llm_calls} LLM calls, {event.total_tokens} tokens, {event.elapsed_ms / 1000:.2f} s"
    own = event_views.line(event)  # a kind a pattern added, in the words of its own view
    return f"  {short(own, 200)}" if own else None


def run_command(args: argparse.Namespace, out: TextIO) -> int:
    from . import trace

    config, task = _config(args)
    models, secrets = _models(args)
    args.out_stream = out
    from .runner import default_tools

    args.registry, connections = mcp_cli.run_tools(args, config, default_tools(config))
    events: list[ev.Event] = []
    live = LiveView(out, sys.stderr, show_text=True if args.show_tokens else None)
    started = time.monotonic()
    stopped_by: int | None = None
    restore = _trap_sigterm()
    telemetry = _telemetry(args, config, secrets)
    try:
        with closing(_open_stream(args, config, task, models)) as stream:
            for event in stream:
                events.append(event)
                if telemetry is not None:
                    telemetry.add(event)
                if isinstance(event, ev.Token):
                    live.token(event.role, event.text)
                    continue
                live.end_call()
                line = describe(event)
                if line:
                    print(line, file=out, flush=True)
    except (KeyboardInterrupt, Terminated) as exc:
        # closing() has already closed the run's generator, and with it the HTTP stream
        restore()
        stopped_by = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
        role, partial = live.role, live.end_call()
        events += _stop_events(events, role, partial, models, time.monotonic() - started)
        print(f"stopped by {signal.Signals(stopped_by).name}", file=out, flush=True)
    finally:
        restore()
        for connection in connections:  # no MCP server outlives its run
            connection.close()
        if telemetry is not None:
            for event in events[telemetry.seen :]:
                telemetry.add(event)  # the closing events a signal's stop added after the loop
            _send_spans(args, telemetry)
        if args.trace_out and events:
            cfg = config.to_dict() if args.registry is None else mcp_cli.trace_config(config.to_dict(), args.registry)
            text = trace.Trace.of(
                cfg,
                events,
                models.names(),
                run_id=getattr(args, "otlp_run_id", None),
                fork=getattr(args, "fork_point", None),
            ).dumps(secrets=secrets)
            with open(args.trace_out, "w", encoding="utf-8") as fh:
                fh.write(text)
    if stopped_by is not None:
        return 128 + stopped_by  # the shell's convention: 130 for SIGINT, 143 for SIGTERM
    failed = next((e for e in events if isinstance(e, ev.RunFailed)), None)
    if failed is not None or not events or not isinstance(events[-1], ev.RunFinished):
        reason = failed.message if failed else "the run did not finish"
        print(f"error: {reason}", file=sys.stderr)
        return 1
    return 0


def _telemetry(args: argparse.Namespace, config: RunConfig, secrets: list[str]):
    """The live span exporter of --otlp-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT), if one is set and usable."""
    import uuid

    from .otel import live

    args.otlp_endpoint = args.otlp_endpoint or settings.otlp_endpoint()
    # the trace written by --trace-out gets the same run id, so its spans and its file match
    exporter, why_not = live.exporter_for(args.otlp_endpoint, uuid.uuid4().hex[:12], config.to_dict(), secrets)
    if why_not:
        print(f"note: {why_not}; the run goes on without it", file=sys.stderr)
    if exporter is not None:
        args.otlp_run_id = exporter.builder.run_id
    return exporter


def _send_spans(args: argparse.Namespace, telemetry) -> None:  # noqa: ANN001 - a live.RunExporter
    """Close the run's spans and wait a bounded time for the collector; a dead one only gets a note."""
    from .otel import live

    telemetry.close()
    if live.flush(args.otlp_endpoint):
        print(f"spans sent to {live.traces_url(args.otlp_endpoint)}", file=sys.stderr)
    else:
        problem = live.problem(args.otlp_endpoint) or "the collector did not answer in time"
        print(f"note: OpenTelemetry export failed ({problem}); the run itself is unaffected", file=sys.stderr)


class Terminated(BaseException):
    """SIGTERM during a run: a BaseException, like KeyboardInterrupt, so no `except Exception` swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _trap_sigterm() -> Callable[[], None]:
    """Turn SIGTERM into `Terminated` for the run; returns the function that puts the old handler back."""

    def handler(signum: int, _frame: object) -> None:
        raise Terminated(signum)

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread (a test calling main() from a worker): leave signals alone
        return lambda: None

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


def _stop_events(
    events: list[ev.Event], role: str, partial: str, models: ModelRouter, elapsed_s: float
) -> list[ev.Event]:
    """The closing events of a run stopped by a signal: the call in flight (with its text so far), then
    `run_finished` with reason stop, so the partial trace reads like any other."""
    if events and isinstance(events[-1], ev.RunFinished):
        return []
    t = round(max(elapsed_s, events[-1].t if events else 0.0), 4)
    added: list[ev.Event] = []
    if partial:
        added.append(
            ev.LlmCall(
                t=t,
                role=role,
                model=models.for_role(role).name,
                completion_tokens=estimate_tokens(partial),
                usage_estimated=True,
                partial_text=partial,
            )
        )
    calls = [e for e in [*events, *added] if isinstance(e, ev.LlmCall)]
    tokens = sum(c.prompt_tokens + c.completion_tokens for c in calls)
    added.append(
        ev.RunFinished(t=t, reason="stop", llm_calls=len(calls), total_tokens=tokens, elapsed_ms=round(t * 1000, 1))
    )
    return added


def eval_command(args: argparse.Namespace, out: TextIO) -> int:
    """Run the eval harness: one line per pattern and task as it finishes, then the pass rates."""
    if args.unsafe_local_sandbox:
        os.environ[settings.UNSAFE_SANDBOX_ENV] = "1"  # read by the sandbox at every run, as the app's setting is
        print("warning: --unsafe-local-sandbox: judged code runs without kernel isolation", file=sys.stderr)
    from .evaluation import eval_cli

    return eval_cli.run(args, out, _models)


def export_command(args: argparse.Namespace, out: TextIO) -> int:
    """`export --otlp-json t.json`: the trace as an OTLP/JSON ExportTraceServiceRequest on standard output."""
    from . import otel, trace

    try:
        with open(args.otlp_json, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ConfigError(f"--otlp-json: cannot read {args.otlp_json}: {exc.strerror or exc}") from None
    loaded = trace.loads(data)
    keys = [k for k in (settings.load_settings().api_key,) if k]
    print(otel.dumps(loaded, secrets=keys, start_ns=_start_ns(args.start_time)), file=out)
    return 0


def _start_ns(value: str | None) -> int | None:
    """--start-time as nanoseconds since the epoch (None: the mapping's fixed default)."""
    from datetime import UTC, datetime

    if not value:
        return None
    if value == "now":
        return time.time_ns()
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ConfigError(f"--start-time takes an ISO 8601 time or 'now', got {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1e9)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        if args.command == "scenarios":
            widths = [
                max(len(x) for x in column)
                for column in zip(*((s.id, s.pattern) for s in SCENARIOS.values()), strict=True)
            ]
            for s in SCENARIOS.values():
                print(f"{s.id:<{widths[0]}}  {s.pattern:<{widths[1]}}  {s.title.en}", file=out)
            return 0
        if args.command == "eval":
            return eval_command(args, out)
        if args.command == "export":
            return export_command(args, out)
        if args.command == "tools":
            return mcp_cli.tools_command(args, out)
        return run_command(args, out)
    except AgentError as exc:  # a bad flag value, a broken template, an unreachable endpoint...
        print(f"error: {exc}", file=sys.stderr)
        return 2
