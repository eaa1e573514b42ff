"""Who may connect which MCP server.

A stdio server is a process the app's server starts, so in a served room only the operator names
them, in `.streamlit/secrets.toml` (or `.streamlit/mcp.toml`, same tables):

    [[mcp_servers]]
    label = "time"
    command = ["python", "-m", "mcp_server_time", "--local-timezone", "UTC"]   # or one string
    env = { TZ = "UTC" }          # optional; the server gets only these and PATH, HOME, USER...

    [[mcp_servers]]
    label = "docs"
    url = "https://mcp.example.com/mcp"
    headers_env = { Authorization = "DOCS_MCP_AUTHORIZATION" }   # or headers = { ... }

A participant picks among them by label and cannot type a command. A participant may type an
http(s) URL unless the operator locked the endpoints (`[operator] lock_endpoints`, or
AGENT_PLAYGROUND_LOCK_ENDPOINTS): such a URL is held to the endpoints' host rules (a URL two parsers
read two ways is refused) and gets no header the operator configured — an operator's header goes
only to the URL it was configured with. On a single-user laptop, `AGENT_PLAYGROUND_LOCAL=1` is the
explicit local mode: the person may add any command or URL of their own.
"""

from __future__ import annotations

import os
import shlex
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .client import ServerSpec, parse_server, shown_url
from .errors import McpError

LOCAL_ENV = "AGENT_PLAYGROUND_LOCAL"
#: a second place for the tables, for operators who keep secrets.toml for keys only
MCP_TOML = Path(".streamlit") / "mcp.toml"
ROOT = Path(__file__).resolve().parents[2]


def local_mode(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return str(env.get(LOCAL_ENV, "")).strip().lower() in ("1", "true", "yes", "on")


def _tables(secrets: Mapping[str, Any] | None) -> list[Any]:
    from ..endpoints import _sources

    sec, _env = _sources(secrets, None)
    raw = sec.get("mcp_servers")
    tables = list(raw) if isinstance(raw, list) else []
    if secrets is None:
        path = Path.cwd() / MCP_TOML
        if path.is_file():
            try:
                more = tomllib.loads(path.read_text(encoding="utf-8")).get("mcp_servers")
            except (OSError, ValueError):
                more = None
            if isinstance(more, list):
                tables += more
    return tables


def operator_servers(
    secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> list[ServerSpec]:
    """The operator's servers, each checked; a table that is not usable is left out."""
    env = os.environ if environ is None else environ
    out: list[ServerSpec] = []
    seen: set[str] = set()
    for item in _tables(secrets):
        if not isinstance(item, Mapping):
            continue
        label = str(item.get("label") or "").strip()
        try:
            if item.get("url"):
                spec = parse_server(str(item["url"]), label)
                headers = (
                    {str(k): str(v) for k, v in (item.get("headers") or {}).items()}
                    if isinstance(item.get("headers"), Mapping)
                    else {}
                )
                if isinstance(item.get("headers_env"), Mapping):
                    headers |= {str(k): env[str(v)] for k, v in item["headers_env"].items() if env.get(str(v))}
                spec = ServerSpec(url=spec.url, label=label or shown_url(spec.url), headers=headers)
            else:
                command = item.get("command")
                argv = (
                    shlex.split(command)
                    if isinstance(command, str)
                    else [str(a) for a in command]
                    if isinstance(command, list)
                    else []
                )
                if not argv:
                    continue
                extra = {str(k): str(v) for k, v in item["env"].items()} if isinstance(item.get("env"), Mapping) else {}
                spec = ServerSpec(
                    command=tuple(argv), label=label, env=extra, cwd=str(item["cwd"]) if item.get("cwd") else None
                )
        except (McpError, ValueError):
            continue
        if spec.name in seen:
            continue
        seen.add(spec.name)
        out.append(spec)
    return out


def bundled(lang: str = "en", tools: tuple[str, ...] = ()) -> ServerSpec:
    """Our own server of the scenarios' mock tools (always allowed: it runs only our code)."""
    from .bundled_server import LABEL

    argv = [sys.executable, "-m", "agent_core.mcp.bundled_server", "--lang", lang]
    if tools:
        argv += ["--tools", ",".join(tools)]
    return ServerSpec(command=tuple(argv), label=LABEL, env={"PYTHONPATH": str(ROOT)}, cwd=str(ROOT))


def may_type(kind: str, secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether a person may type a server of this kind ("stdio" or "http") here."""
    from ..endpoints import endpoints_locked

    if local_mode(environ):
        return True
    return kind == "http" and not endpoints_locked(secrets, environ)


def typed_server(
    text: str, secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> ServerSpec:
    """A server a person typed, if they may connect it here; McpError("refused") otherwise. A typed
    server never carries the operator's headers, whatever its URL."""
    spec = parse_server(text)
    if not may_type(spec.kind, secrets, environ):
        if spec.kind == "stdio":
            why = f"a command runs on the server: only the operator configures them ({LOCAL_ENV}=1 on your own laptop)"
        else:
            why = "the operator locked the endpoints: choose one of the configured servers"
        raise McpError("refused", spec.name, why)
    return ServerSpec(command=spec.command, url=spec.url)


def header_values(secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """Every header value the operator configured: exports and messages must never contain one."""
    return [v for s in operator_servers(secrets, environ) for v in s.headers.values() if v]
