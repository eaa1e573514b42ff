"""MCP tools on the record: replays and exact forks of a run whose tools came from MCP servers.

Replay reads the trace only, so it needs no server. An exact fork (fork.py) serves the prefix's
tool results from the trace; for the calls after the fork point it needs the tools themselves:
`fork_tools` gives every MCP tool the trace used, run by the connected server of the same name
when there is one, and otherwise by a stand-in whose every call is an error observation that says
the server is not connected — so the fork runs, and says so, instead of failing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import events as ev
from ..tools import Observation, Tool, ToolRegistry
from .client import MAX_DESCRIPTION_CHARS, Connection, check_tool


def recorded_servers(events: Sequence[ev.Event]) -> dict[str, str]:
    """tool name -> MCP server, for every MCP tool the trace called."""
    out: dict[str, str] = {}
    for e in events:
        if isinstance(e, (ev.ToolCallEvent, ev.ToolResult)) and e.server:
            out.setdefault(e.name, e.server)
    return out


#: the key of a trace's config that keeps the MCP tools as the model saw them
CONFIG_KEY = "mcp_tools"


def tool_specs(registry: ToolRegistry) -> list[dict[str, Any]]:
    """The run's MCP tools as the model saw them (name, server, description, parameters), for the
    trace's config: a fork without the server offers the model the same tools, so its prefix is exact."""
    return [
        {"name": t.name, "server": t.server, "description": t.description, "parameters": dict(t.parameters)}
        for t in registry.tools.values()
        if t.server
    ]


def with_tools(config: Mapping[str, Any], registry: ToolRegistry) -> dict[str, Any]:
    """A trace's config dict with the run's MCP tools in it (unchanged when there are none)."""
    specs = tool_specs(registry)
    return {**config, CONFIG_KEY: specs} if specs else dict(config)


def not_connected(server: str, name: str, lang: str) -> str:
    if lang == "zh":
        return f"error: MCP 服务器 {server} 未连接：这次分叉在分叉点之后无法调用 {name}（之前的结果取自记录）"
    return (
        f"error: the MCP server {server} is not connected: this fork cannot call {name} after the fork point "
        "(the results before it came from the record)"
    )


def _stand_in(server: str, name: str, lang: str, spec: Mapping[str, Any] | None) -> Tool:
    def call(**_arguments: Any) -> Observation:
        return Observation(not_connected(server, name, lang), True)

    description, parameters = f"{name} (from the MCP server {server})", {"type": "object", "properties": {}}
    if spec is not None and check_tool(name, spec.get("parameters")) is None:
        description = str(spec.get("description") or name)[: MAX_DESCRIPTION_CHARS + 20]
        parameters = dict(spec["parameters"])
    return Tool(name, description, parameters, call, server=server)


def fork_tools(
    events: Sequence[ev.Event],
    base: ToolRegistry,
    connections: Sequence[Connection] = (),
    lang: str = "en",
    config: Mapping[str, Any] | None = None,
) -> tuple[ToolRegistry, list[str]]:
    """`base` plus the trace's MCP tools, live where their server is connected; returns the registry
    and the servers that are not connected (a page or the CLI says so). `config` is the trace's: its
    recorded tool specs give a stand-in the description and parameters the model saw."""
    tools = dict(base.tools)
    live = {c.name: c for c in connections if c.alive}
    missing: list[str] = []
    raw = (config or {}).get(CONFIG_KEY)
    specs = {str(s.get("name")): s for s in raw if isinstance(s, Mapping)} if isinstance(raw, list) else {}
    # the tools in the order the run offered them (the prompts list them in that order), then any
    # the trace called that its config does not name (a trace written without the specs)
    used = {
        str(spec["name"]): spec["server"]
        for spec in specs.values()
        if isinstance(spec.get("server"), str) and spec["server"]
    }
    for name, server in recorded_servers(events).items():
        used.setdefault(name, server)
    for name, server in used.items():
        conn = live.get(server)
        found = next((t for t in conn.as_tools([name])), None) if conn is not None else None
        if found is None:
            if server not in missing:
                missing.append(server)
            found = _stand_in(server, name, lang, specs.get(name))
        tools[name] = found
    return ToolRegistry(tools), missing
