"""The Playground's Tools section: MCP servers to connect, their tools (name, description, schema),
which of them the next run may use, and each server's health.

Who may connect what (agent_core/mcp/servers.py): in a served room a participant picks among the
operator's servers (`[[mcp_servers]]` in .streamlit/secrets.toml or .streamlit/mcp.toml) and our
bundled one; they may type an http(s) URL unless the endpoints are locked, and such a URL gets no
header the operator configured. Only `AGENT_PLAYGROUND_LOCAL=1` (a single-user laptop) lets a
person add a command line.

Connections belong to the browser session that made them: they live in this module (a server
process is not something to pickle into session state), and every script run closes those of
sessions that are gone. A run takes the servers' tools through the same ToolRegistry as the mock
tools, so its tool calls are drawn like theirs (escaped, bounded, folded by pages/ui/render.py).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

import streamlit as st

from agent_core.mcp import McpError
from agent_core.tools import ToolRegistry

from . import text
from .i18n import t

#: servers one session may hold at once, and server-wide
PER_SESSION = 4
SERVER_WIDE = 64
#: characters of a schema drawn (the whole schema goes to the model; this is only the view)
SCHEMA_CHARS = 4000

_LOCK = threading.Lock()
#: session id -> {server name: Connection}
_SESSIONS: dict[str, dict[str, Any]] = {}


def _sdk() -> bool:
    """Whether the SDK is installed, without importing it (that takes ~0.8 s: only a connection pays it)."""
    import importlib.util

    return importlib.util.find_spec("mcp") is not None


def _session_id() -> str:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "no-session"


def connections(session: str | None = None) -> dict[str, Any]:
    """This session's connections by server name."""
    with _LOCK:
        return _SESSIONS.setdefault(session or _session_id(), {})


def sweep() -> None:
    """Close the servers of sessions that are gone (their tab closed), and the connections that died."""
    try:
        from streamlit.runtime import Runtime

        runtime = Runtime.instance() if Runtime.exists() else None
    except Exception:  # noqa: BLE001 # pragma: no cover - no runtime (a bare script)
        runtime = None
    with _LOCK:
        gone = [
            sid
            for sid in _SESSIONS
            if runtime is not None and sid != "no-session" and not runtime.is_active_session(sid)
        ]
        closing = [c for sid in gone for c in _SESSIONS.pop(sid).values()]
    for conn in closing:
        conn.close()


def close_session(session: str | None = None) -> None:
    with _LOCK:
        held = _SESSIONS.pop(session or _session_id(), {})
    for conn in held.values():
        conn.close()


def _state(prefix: str) -> dict[str, Any]:
    return st.session_state.setdefault(f"{prefix}_mcp", {"enabled": {}, "error": None})


def _connect(prefix: str, spec: Any, lang: str) -> None:
    from agent_core.mcp.client import Connection

    state = _state(prefix)
    state["error"] = None
    held = connections()
    if spec.name in held:
        return
    with _LOCK:
        total = sum(len(v) for v in _SESSIONS.values())
    if len(held) >= PER_SESSION or total >= SERVER_WIDE:
        state["error"] = t("tools_mcp.too_many", lang, n=PER_SESSION if len(held) >= PER_SESSION else SERVER_WIDE)
        return
    try:
        conn = Connection(spec, lang=lang).start()
    except McpError as exc:
        state["error"] = exc.message(lang)
        return
    held[spec.name] = conn
    state["enabled"][spec.name] = [tool.name for tool in conn.tools]


def _disconnect(prefix: str, name: str) -> None:
    conn = connections().pop(name, None)
    _state(prefix)["enabled"].pop(name, None)
    if conn is not None:
        conn.close()


def _typed(prefix: str, lang: str) -> None:
    from agent_core.mcp import servers

    raw = st.session_state.get(f"{prefix}_mcp_typed_text") or st.session_state.get(f"{prefix}_mcp_typed", "")
    try:
        spec = servers.typed_server(raw)
    except McpError as exc:
        _state(prefix)["error"] = exc.message(lang)
        return
    _connect(prefix, spec, lang)


def _keep_typed(prefix: str) -> None:
    # kept under a plain key as well: a widget's value is dropped by a script run that stops before
    # the widget is drawn (the page reruns itself at times), a plain key's is not
    st.session_state[f"{prefix}_mcp_typed_text"] = st.session_state.get(f"{prefix}_mcp_typed", "")


def _toggle(prefix: str, server: str, tool: str, key: str) -> None:
    enabled = _state(prefix)["enabled"].setdefault(server, [])
    if st.session_state.get(key):
        if tool not in enabled:
            enabled.append(tool)
    elif tool in enabled:
        enabled.remove(tool)


def section(prefix: str, lang: str, *, disabled: bool = False) -> None:
    """The Tools expander of a page's setup column."""
    sweep()
    held = connections()
    with st.expander(t("tools_mcp.head"), icon=":material/build:", expanded=bool(held)):
        if not _sdk():
            st.caption(McpError("no_sdk").message(lang))
            return
        from agent_core.mcp import servers

        state = _state(prefix)
        st.caption(t("tools_mcp.intro"))
        offered = [servers.bundled(lang), *servers.operator_servers()]
        for i, spec in enumerate(offered):
            row = st.container(horizontal=True, vertical_alignment="center")
            label = t("tools_mcp.bundled") if i == 0 else text.inline(spec.name, 60)
            row.markdown(label)
            if spec.name in held:
                row.button(
                    t("tools_mcp.disconnect"),
                    key=f"{prefix}_mcp_off_{i}",
                    on_click=_disconnect,
                    args=(prefix, spec.name),
                    disabled=disabled,
                )
            else:
                row.button(
                    t("tools_mcp.connect"),
                    key=f"{prefix}_mcp_on_{i}",
                    on_click=_connect,
                    args=(prefix, spec, lang),
                    disabled=disabled,
                )
        local = servers.local_mode()
        if servers.may_type("http"):
            st.text_input(
                t("tools_mcp.typed_local" if local else "tools_mcp.typed"),
                key=f"{prefix}_mcp_typed",
                placeholder=t("tools_mcp.placeholder_local" if local else "tools_mcp.placeholder"),
                disabled=disabled,
                on_change=_keep_typed,
                args=(prefix,),
            )
            st.button(
                t("tools_mcp.add"), key=f"{prefix}_mcp_add", on_click=_typed, args=(prefix, lang), disabled=disabled
            )
            st.caption(t("tools_mcp.local_note" if local else "tools_mcp.room_note"))
        else:
            st.caption(t("tools_mcp.locked_note"))
        if state.get("error"):
            st.error(state["error"], icon=":material/error:")
        for name, conn in list(held.items()):
            _server(prefix, name, conn, lang, disabled)


def _server(prefix: str, name: str, conn: Any, lang: str, disabled: bool) -> None:
    ms = conn.ping() if conn.alive else None
    pinged = t("tools_mcp.ping", lang, ms=f"{ms:.0f}") if ms is not None else t("tools_mcp.no_ping", lang)
    st.markdown(f"**{text.inline(name, 80)}** · {text.inline(conn.health(lang), 200)} · {pinged}")
    enabled = _state(prefix)["enabled"].setdefault(name, [])
    for tool in conn.tools:
        key = f"{prefix}_mcp_tool_{abs(hash((name, tool.name)))}"
        st.session_state.setdefault(key, tool.name in enabled)
        st.checkbox(
            text.code_span(tool.name),
            key=key,
            on_change=_toggle,
            args=(prefix, name, tool.name, key),
            disabled=disabled or not conn.alive,
        )
        if tool.description:
            st.caption(text.inline(tool.description, 300))
        shown = json.dumps(dict(tool.schema), ensure_ascii=False, indent=1)
        st.code(text.clip(shown, SCHEMA_CHARS), language="json")
    for tool_name, reason in conn.skipped:
        st.caption(t("tools_mcp.left_out", name=text.inline(tool_name, 64), reason=text.inline(reason, 200)))


def chosen(prefix: str) -> dict[str, list[str]]:
    """server -> the tools the next run may use (connected servers only)."""
    held = connections()
    return {s: list(names) for s, names in _state(prefix)["enabled"].items() if s in held and names}


def with_tools(prefix: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """A run's config with the MCP tools it may use (recorded in its trace: a fork offers the same)."""
    picks = chosen(prefix)
    if not picks:
        return dict(config)
    from agent_core.mcp import client as mc
    from agent_core.mcp import recorded
    from agent_core.patterns.registry import config_from_dict
    from agent_core.runner import default_tools

    held = connections()
    reg, _left = mc.registry([held[s] for s in picks], default_tools(config_from_dict(dict(config))), picks)
    return recorded.with_tools(config, reg)


def registry_for(
    config: Mapping[str, Any], parent: list[Any] | None = None, parent_config: Mapping[str, Any] | None = None
) -> ToolRegistry | None:
    """The tools of a run whose config (or, for a fork, whose parent) names MCP tools; None when none
    does. Live where this session holds their server, a stand-in that says "not connected" where not."""
    from agent_core.mcp.recorded import CONFIG_KEY

    events = parent or []
    if not config.get(CONFIG_KEY) and isinstance(parent_config, Mapping) and parent_config.get(CONFIG_KEY):
        config = {**config, CONFIG_KEY: parent_config[CONFIG_KEY]}
    if not config.get(CONFIG_KEY) and not any(getattr(e, "server", "") for e in events):
        return None
    from agent_core.mcp import recorded
    from agent_core.patterns.registry import config_from_dict
    from agent_core.runner import default_tools

    cfg = config_from_dict(dict(config))
    reg, _missing = recorded.fork_tools(events, default_tools(cfg), list(connections().values()), cfg.lang, config)
    return reg


def missing_servers(
    config: Mapping[str, Any], parent: list[Any] | None = None, parent_config: Mapping[str, Any] | None = None
) -> list[str]:
    """The MCP servers a run (or a fork's parent) used that this session has not connected."""
    from agent_core.mcp.recorded import CONFIG_KEY, recorded_servers

    names: list[str] = []
    for cfg in (config, parent_config or {}):
        raw = cfg.get(CONFIG_KEY)
        if isinstance(raw, list):
            names += [str(s.get("server")) for s in raw if isinstance(s, Mapping) and s.get("server")]
    names += list(recorded_servers(parent or []).values())
    held = connections()
    return [n for n in dict.fromkeys(names) if n not in held or not held[n].alive]


def fork_note(record: Any, lang: str) -> None:
    """Under a fork's banner: which of its MCP servers are not connected here, and what that means."""
    if not getattr(record, "fork", None):
        return
    parent = record.parent or []
    missing = missing_servers(record.config, parent, record.fork.get("parent_config"))
    if missing:
        st.caption(t("tools_mcp.fork_missing", lang, servers=", ".join(text.inline(m, 60) for m in missing)))
