"""An MCP server that misbehaves on request, for the fault tests (stdio, or HTTP with --http PORT).

    python tests/mcp_fault_server.py [--exit-at-start | --silent] [--http PORT]

Tools: echo, hang (never answers), die (the process exits mid-call), big (a 2 MB result), fail (an
isError result), raise (the handler raises); and two it lists that no model may be offered: one
with an invalid input schema, one with a name no chat API accepts. `spawn` starts a grandchild that
sleeps, to show the whole process group goes with the server.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def build():
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    obj = {"type": "object", "properties": {"text": {"type": "string"}}}
    tools = [
        types.Tool(name=n, description=f"{n} tool", input_schema=obj)
        for n in ("echo", "hang", "die", "big", "fail", "raise", "spawn")
    ]
    tools.append(
        types.Tool(
            name="bad_schema",
            description="invalid schema",
            input_schema={"type": "object", "properties": {"x": {"type": "nonsense"}}},
        )
    )
    tools.append(types.Tool(name="bad name!", description="invalid name", input_schema=obj))

    async def list_tools(_ctx, _params):
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx, params):
        name, args = params.name, params.arguments or {}

        def text(t):
            return types.CallToolResult(content=[types.TextContent(text=t)])

        if name == "echo":
            return text(f"echo: {args.get('text', '')}")
        if name == "hang":
            await anyio.sleep(3600)
        if name == "die":
            os._exit(7)
        if name == "big":
            return text("x" * 2_000_000)
        if name == "fail":
            return types.CallToolResult(content=[types.TextContent(text="the backend said no")], is_error=True)
        if name == "spawn":
            # the point: a grandchild in the server's process group
            p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])  # noqa: ASYNC220
            return text(f"spawned {p.pid}")
        raise RuntimeError("the handler broke")

    return Server("fault-server", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit-at-start", action="store_true")
    parser.add_argument("--silent", action="store_true", help="read stdin, never answer")
    parser.add_argument("--http", type=int)
    parser.add_argument("--json", action="store_true", help="HTTP: answer with JSON rather than SSE")
    args = parser.parse_args()
    if args.exit_at_start:
        print("fault server: refusing to start", file=sys.stderr)
        sys.exit(3)
    if args.silent:
        time.sleep(3600)
    server = build()
    import anyio

    if args.http:
        import uvicorn

        app = server.streamable_http_app(json_response=args.json)
        uvicorn.run(app, host="127.0.0.1", port=args.http, log_level="error")
        return
    from mcp.server.stdio import stdio_server

    async def serve():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    main()
