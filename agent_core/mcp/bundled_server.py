"""Our own MCP server: the scenarios' mock tools over stdio, so listing, calling and recording
through MCP run offline (CI, a workshop without the internet).

    python -m agent_core.mcp.bundled_server --lang zh [--tools weather,search]

Each call runs the tool exactly as the in-process registry does (`mock_tools.registry(...).run`)
and sends its output as one text block, with `isError` set from the observation, so a scenario
played through this server records the same events as one played in-process.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

#: the name runs record as the tools' server
LABEL = "mock-tools"


def build_server(lang: str = "en", names: Sequence[str] | None = None) -> Any:
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from .. import mock_tools

    reg = mock_tools.registry(list(names) if names else None, lang)
    listing = types.ListToolsResult(
        tools=[
            types.Tool(
                name=t.name,
                description=(t.description_zh if lang == "zh" and t.description_zh else t.description),
                input_schema=dict(t.parameters),
            )
            for t in reg.tools.values()
        ]
    )

    async def list_tools(_ctx: Any, _params: Any) -> Any:
        return listing

    async def call_tool(_ctx: Any, params: Any) -> Any:
        obs = reg.run(params.name, params.arguments or {})
        return types.CallToolResult(content=[types.TextContent(text=obs.output)], is_error=obs.is_error)

    return Server(LABEL, version="1", on_list_tools=list_tools, on_call_tool=call_tool)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent_core.mcp.bundled_server")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--tools", default="", help="comma-separated mock tools (default: all)")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.tools.split(",") if n.strip()] or None
    server = build_server(args.lang, names)

    import anyio
    from mcp.server.stdio import stdio_server

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
