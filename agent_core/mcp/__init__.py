"""Tools from Model Context Protocol servers, as ordinary `Tool`s in a `ToolRegistry`.

`client` connects to a server (a stdio command line or a streamable-HTTP URL) with the official
`mcp` SDK, on an event loop of its own in a background thread, and gives the synchronous pattern
loop a blocking call with a timeout. `servers` says who may connect what (the operator's config,
local mode, the host rules for URLs). `recorded` serves a trace's tool results when no server runs
(replay, exact forks). `bundled_server` serves the scenarios' mock tools over stdio.

Importing this package does not import the SDK: `import agent_core` never pays for it, and the
SDK is an optional extra (requirements-mcp.txt).
"""

from __future__ import annotations

from .errors import McpError

__all__ = ["McpError"]
