"""The one typed error of the MCP edge, with its message in English and Chinese."""

from __future__ import annotations

from ..errors import AgentError

#: why a server could not be used, as `McpError.reason`
REASONS = ("no_sdk", "bad_spec", "refused", "start", "handshake", "not_connected")


class McpError(AgentError):
    """An MCP server that cannot be used: `reason` is one of REASONS, `server` names it, `detail`
    is the technical cause (never a key: URLs are shown without user info or query)."""

    code = "mcp_error"

    def __init__(self, reason: str, server: str = "", detail: str = "") -> None:
        self.reason = reason if reason in REASONS else "start"
        self.server, self.detail = server, detail
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        s, d = self.server or "?", f" ({self.detail})" if self.detail else ""
        zd = f"（{self.detail}）" if self.detail else ""
        en = {
            "no_sdk": "MCP tools need the mcp package: pip install -r requirements-mcp.txt",
            "bad_spec": f"not an MCP server: give a command line or an http(s):// URL{d}",
            "refused": f"this server may not be connected here: {s}{d}",
            "start": f"the MCP server {s} did not start{d}",
            "handshake": f"the MCP server {s} started but did not answer the MCP handshake in time{d}",
            "not_connected": f"the MCP server {s} is not connected{d}",
        }
        zh = {
            "no_sdk": "使用 MCP 工具需要安装 mcp 包：pip install -r requirements-mcp.txt",
            "bad_spec": f"不是有效的 MCP 服务器：请填写命令行或 http(s):// 地址{zd}",
            "refused": f"此处不允许连接这个服务器：{s}{zd}",
            "start": f"MCP 服务器 {s} 没有启动{zd}",
            "handshake": f"MCP 服务器 {s} 已启动，但没有及时完成 MCP 握手{zd}",
            "not_connected": f"MCP 服务器 {s} 未连接{zd}",
        }
        return (zh if lang == "zh" else en)[self.reason]
