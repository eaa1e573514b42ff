"""The command line's MCP parts: `tools --mcp SERVER` and `run ... --mcp SERVER` (repeatable).

SERVER is a command line (`"python -m mcp_server_time --local-timezone UTC"`), an http(s):// URL,
or `bundled` (our server of the scenarios' mock tools). The CLI runs on the person's own machine,
so any command they give is theirs to start (the served app's rules are in servers.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from ..tools import ToolRegistry
from .errors import McpError

BUNDLED = "bundled"
HELP = (
    "an MCP server whose tools the run may use (repeatable): a command line in quotes, e.g. "
    "\"python -m mcp_server_time --local-timezone UTC\", an http(s):// URL, or 'bundled' for the mock "
    "tools served over MCP"
)


def add_run_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mcp", action="append", default=[], metavar="SERVER", help=HELP)
    parser.add_argument(
        "--mcp-timeout", type=float, default=None, metavar="S", help="seconds one MCP tool call may take (default 30)"
    )


def add_tools_command(sub: Any) -> None:
    tools = sub.add_parser("tools", help="list the tools of MCP servers (or the mock tools) with their parameters")
    tools.add_argument("--mcp", action="append", default=[], metavar="SERVER", help=HELP)
    tools.add_argument("--lang", choices=("en", "zh"), default="en")
    tools.add_argument("--json", action="store_true", help="print the tools as JSON (name, server, schema)")


def _spec(text: str, lang: str, tools: tuple[str, ...] = ()) -> Any:
    from . import servers
    from .client import parse_server

    return servers.bundled(lang, tools) if text.strip() == BUNDLED else parse_server(text)


def connect(
    texts: Sequence[str], lang: str, call_timeout: float | None = None, tools: tuple[str, ...] = ()
) -> list[Any]:
    """Start the servers; `bundled` serves only `tools` when given (a scenario's)."""
    from .client import CALL_TIMEOUT_S, connect_all

    specs = [_spec(t, lang, tools) for t in texts]
    return connect_all(specs, lang=lang, call_timeout=CALL_TIMEOUT_S if call_timeout is None else call_timeout)


def parameters(schema: Mapping[str, Any]) -> str:
    """`name: type` for each parameter, `?` after the optional ones."""
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        props = {}
    required = set(schema.get("required") or ()) if isinstance(schema.get("required"), list) else set()
    out = []
    for name, spec in props.items():
        kind = spec.get("type", "any") if isinstance(spec, Mapping) else "any"
        out.append(
            f"{name}{'' if name in required else '?'}: {kind if isinstance(kind, str) else '|'.join(map(str, kind))}"
        )
    return ", ".join(out)


def tools_command(args: argparse.Namespace, out: TextIO) -> int:
    import json

    from .. import mock_tools

    if not args.mcp:
        reg = mock_tools.registry(None, args.lang)
        for t in reg.tools.values():
            desc = t.description_zh if args.lang == "zh" and t.description_zh else t.description
            print(f"{t.name}({parameters(t.parameters)})  {desc}", file=out)
        return 0
    conns = connect(args.mcp, args.lang)
    try:
        if args.json:
            print(
                json.dumps(
                    [
                        {"server": c.name, "name": t.name, "description": t.description, "parameters": dict(t.schema)}
                        for c in conns
                        for t in c.tools
                    ],
                    ensure_ascii=False,
                    indent=1,
                ),
                file=out,
            )
            return 0
        for c in conns:
            zh = args.lang == "zh"
            print(
                f"{c.name}  [{c.server_info or 'MCP'}; {c.health(args.lang)}; "
                f"{'启动' if zh else 'started in'} {c.started_s * 1000:.0f} ms]",
                file=out,
            )
            for t in c.tools:
                print(f"  {t.name}({parameters(t.schema)})", file=out)
                if t.description:
                    print(f"      {' '.join(t.description.split())[:300]}", file=out)
            for name, reason in c.skipped:
                print(f"  {'未采用' if zh else 'left out'} {name!r}: {reason}", file=out)
    finally:
        for c in conns:
            c.close()
    return 0


def run_tools(args: argparse.Namespace, config: Any, base: ToolRegistry) -> tuple[ToolRegistry | None, list[Any]]:
    """The run's registry with the --mcp servers' tools (None without --mcp), and the connections to
    close when the run ends. A fork (--from-trace) gets the trace's MCP tools, live where a --mcp
    server of the same name is connected; a note on stderr names the servers that are not."""
    import sys

    from . import recorded
    from .client import registry

    conns = connect(args.mcp, config.lang, args.mcp_timeout, tuple(config.tools)) if args.mcp else []
    try:
        if getattr(args, "from_trace", None):
            reg, missing = recorded.fork_tools(args.parent.events, base, conns, config.lang, args.parent.config)
            if missing:
                print(
                    f"note: not connected: {', '.join(missing)}; the fork serves their recorded results before "
                    "the fork point, and their tools answer with an error after it",
                    file=sys.stderr,
                )
            return (reg if any(t.server for t in reg.tools.values()) else None), conns
        if not conns:
            return None, []
        reg, left = registry(conns, base)
        for server, name, note in left:
            print(f"note: {server}: {name!r} {note}", file=sys.stderr)
        return reg, conns
    except BaseException:
        for c in conns:
            c.close()
        raise


def trace_config(config: Mapping[str, Any], registry: ToolRegistry) -> dict[str, Any]:
    from .recorded import with_tools

    return with_tools(config, registry)


__all__ = ["McpError", "add_run_flags", "add_tools_command", "run_tools", "tools_command"]
