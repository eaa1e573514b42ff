"""Connect to one MCP server and give the synchronous pattern loop its tools.

The `mcp` SDK is async. Each `Connection` runs one asyncio event loop in a daemon thread: a main
task enters the SDK's `Client` (stdio: the SDK starts the server in a process group of its own;
HTTP: streamable HTTP), lists the tools, and waits until the connection is closed; each tool call
is a coroutine submitted to that loop, and the caller blocks on it with a timeout.

Every fault becomes something the run can go on with:

- a server that does not start or does not finish the handshake: `McpError` at the edge, with the
  last lines it wrote to stderr;
- a tool whose name is unusable or whose input schema is not a valid JSON Schema object: left out,
  with the reason (`Connection.skipped`);
- a call that times out, a server that died, a protocol error, an `isError` result: an error
  observation naming the server and the tool, in the run's language;
- a result larger than the tool output bound: cut, with a note saying how much.

Server processes do not outlive their connection: `close()` lets the SDK close stdin and kill the
process group, and kills the group itself if that did not finish in time; an `atexit` hook closes
every connection still open when the interpreter ends.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..tools import MAX_OUTPUT_CHARS, Observation, Tool, ToolRegistry
from .errors import McpError

#: seconds a server has to start and list its tools
CONNECT_TIMEOUT_S = 20.0
#: seconds a tool call may take before it becomes an error observation
CALL_TIMEOUT_S = 30.0
#: seconds `close()` waits for the SDK's own shutdown before it kills the process group
CLOSE_GRACE_S = 5.0
#: most tools taken from one server, and most characters of a description the model reads
MAX_TOOLS = 128
MAX_DESCRIPTION_CHARS = 1024
#: a name the chat APIs accept as a function name
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: the longest label a server is shown and recorded under
MAX_LABEL_CHARS = 80


@dataclass(frozen=True)
class ServerSpec:
    """One MCP server: a stdio command line (`command`) or a streamable-HTTP `url`. `headers` go to
    that URL only (the operator's config; never to another origin). `label` names it in the trace."""

    command: tuple[str, ...] = ()
    url: str = ""
    label: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def kind(self) -> str:
        return "http" if self.url else "stdio"

    @property
    def name(self) -> str:
        if self.label:
            return self.label[:MAX_LABEL_CHARS]
        if self.url:
            return shown_url(self.url)[:MAX_LABEL_CHARS]
        return " ".join([os.path.basename(self.command[0]), *self.command[1:]])[:MAX_LABEL_CHARS]


def shown_url(url: str) -> str:
    """A URL as shown and recorded: no user info, query or fragment (where a token would hide)."""
    try:
        p = urlsplit(url)
        host = p.hostname or ""
        netloc = f"[{host}]" if ":" in host else host
        if p.port:
            netloc += f":{p.port}"
        return urlunsplit((p.scheme, netloc, p.path, "", ""))
    except ValueError:
        return "(invalid URL)"


def parse_server(text: str, label: str = "") -> ServerSpec:
    """`SERVER` as the CLI and the local-mode box take it: an http(s):// URL, or a command line."""
    from ..endpoints import origin

    text = (text or "").strip()
    if not text:
        raise McpError("bad_spec", detail="empty")
    if re.match(r"(?i)https?://", text):
        if origin(text) is None:
            raise McpError(
                "bad_spec",
                shown_url(text),
                "a URL with user info, a backslash, a percent sign, spaces or an unreadable host is refused",
            )
        return ServerSpec(url=text, label=label)
    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise McpError("bad_spec", text[:MAX_LABEL_CHARS], str(exc)) from None
    if not argv or "\x00" in text:
        raise McpError("bad_spec", text[:MAX_LABEL_CHARS], "no command")
    return ServerSpec(command=argv, label=label)


@dataclass(frozen=True)
class McpTool:
    """A tool as the server listed it (the description already bounded)."""

    name: str
    description: str
    schema: Mapping[str, Any]


def check_tool(name: Any, schema: Any) -> str | None:
    """Why a listed tool cannot be offered to a model, or None when it can."""
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        return "its name is not 1-64 letters, digits, _ or -"
    if not isinstance(schema, Mapping):
        return "its input schema is not a JSON object"
    if schema.get("type", "object") != "object":
        return f"its input schema's type is {schema.get('type')!r}, not 'object'"
    try:
        import jsonschema

        jsonschema.validators.validator_for(schema).check_schema(schema)
    except ImportError:  # pragma: no cover - jsonschema comes with the mcp SDK
        pass
    except Exception as exc:  # noqa: BLE001 - SchemaError, and a hostile schema's RecursionError or TypeError
        msg = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        return f"its input schema is not a valid JSON Schema: {str(msg)[:200]}"
    try:
        json.dumps(schema)
    except (TypeError, ValueError) as exc:
        return f"its input schema cannot be sent to a model: {exc}"
    return None


def result_text(result: Any) -> str:
    """A CallToolResult's content as the text a model reads: text blocks as they are, anything else
    named (an image's bytes are not sent to a text model), structured content when there is no text.
    Stops collecting past the output bound; the registry cuts the rest with its note."""
    parts: list[str] = []
    size = 0
    for block in getattr(result, "content", None) or ():
        if size > MAX_OUTPUT_CHARS:
            parts.append("[further content blocks not read]")
            break
        kind = getattr(block, "type", "")
        if kind == "text":
            piece = str(block.text)
        elif kind in ("image", "audio"):
            piece = f"[{kind} {getattr(block, 'mime_type', '')}, {len(getattr(block, 'data', '') or '')} base64 characters, not shown]"
        elif kind == "resource_link":
            piece = f"[resource link {getattr(block, 'uri', '')}]"
        elif kind == "resource":
            res = getattr(block, "resource", None)
            text = getattr(res, "text", None)
            piece = str(text) if isinstance(text, str) else f"[resource {getattr(res, 'uri', '')}, not shown]"
        else:
            piece = f"[{kind or 'unknown'} content, not shown]"
        parts.append(piece)
        size += len(piece) + 1
    if not parts and getattr(result, "structured_content", None) is not None:
        try:
            return json.dumps(result.structured_content, ensure_ascii=False)
        except (TypeError, ValueError):
            return str(result.structured_content)
    return "\n".join(parts)


def _say(lang: str, en: str, zh: str) -> str:
    return zh if lang == "zh" else en


#: the most bytes one HTTP response from a server may carry: the SDK bounds an SSE event (1 MiB) but
#: reads a JSON response whole, and a URL a participant typed may answer with anything
MAX_HTTP_RESPONSE_BYTES = 16 * 1024 * 1024


def _http_client(headers: dict[str, str], on_oversize: Any = None) -> Any:
    """The SDK's HTTP client settings (30 s, 300 s to read a stream, no redirects followed by the
    client) with every response body bounded at MAX_HTTP_RESPONSE_BYTES."""
    import httpx2

    class Bounded(httpx2.AsyncByteStream):
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        async def __aiter__(self) -> Any:
            seen = 0
            async for chunk in self.inner:
                seen += len(chunk)
                if seen > MAX_HTTP_RESPONSE_BYTES:
                    if on_oversize is not None:
                        on_oversize()
                    raise httpx2.ReadError(f"the server's response is over {MAX_HTTP_RESPONSE_BYTES:,} bytes; cut")
                yield chunk

        async def aclose(self) -> None:
            await self.inner.aclose()

    class Transport(httpx2.AsyncHTTPTransport):
        async def handle_async_request(self, request: Any) -> Any:
            response = await super().handle_async_request(request)
            response.stream = Bounded(response.stream)
            return response

    return httpx2.AsyncClient(
        headers=headers or None, timeout=httpx2.Timeout(30.0, read=300.0), transport=Transport(), follow_redirects=False
    )


_OPEN: weakref.WeakSet[Connection] = weakref.WeakSet()
#: held while a stdio server is being spawned, so the new child process is known to be this connection's
_SPAWN = threading.Lock()


def _children() -> set[int]:
    """This process's child pids (Linux: /proc/self/task/*/children); empty elsewhere."""
    out: set[int] = set()
    try:
        for tid in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError), open(f"/proc/self/task/{tid}/children") as f:
                out.update(int(p) for p in f.read().split())
    except OSError:
        pass
    return out


def _argv_of(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode("utf-8", "replace") for a in f.read().split(b"\0")[:-1]]
    except OSError:
        return None


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Connection:
    """One live MCP server. `tools` are the usable ones, `skipped` the (name, reason) of the rest."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        lang: str = "en",
        connect_timeout: float = CONNECT_TIMEOUT_S,
        call_timeout: float = CALL_TIMEOUT_S,
    ) -> None:
        self.spec, self.lang = spec, lang
        self.connect_timeout, self.call_timeout = connect_timeout, call_timeout
        self.tools: list[McpTool] = []
        self.skipped: list[tuple[str, str]] = []
        self.server_info = ""
        #: why the connection is no longer usable ("" while it is)
        self.dead = ""
        #: an HTTP response went over MAX_HTTP_RESPONSE_BYTES (the connection is then closed)
        self.oversized = False
        self.started_s = 0.0
        self.pid: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._client: Any = None
        self._thread: threading.Thread | None = None
        self._ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._errlog: Any = None
        self._closed = False

    # -- life ------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def alive(self) -> bool:
        if self.dead or self._closed:
            return False
        if self.pid is not None and not _group_alive(self.pid):
            self.dead = "the server process exited"
            return False
        return True

    def health(self, lang: str | None = None) -> str:
        lang = lang or self.lang
        if self._closed:
            return _say(lang, "closed", "已关闭")
        if not self.alive:
            return _say(lang, f"not running: {self.dead}", f"未运行：{self.dead}")
        return _say(lang, f"connected, {len(self.tools)} tools", f"已连接，{len(self.tools)} 个工具")

    def start(self) -> Connection:
        """Start (or reach) the server and list its tools; McpError when it cannot."""
        try:
            import mcp  # noqa: F401
        except ImportError:
            raise McpError("no_sdk", self.name) from None
        t0 = time.perf_counter()
        # open for the connection's life (the server writes its stderr there); closed by close()
        self._errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        spawning = self.spec.kind == "stdio"
        before = set()
        if spawning:
            _SPAWN.acquire()
            before = _children()
        try:
            self._thread = threading.Thread(target=self._thread_main, name=f"mcp {self.name}", daemon=True)
            self._thread.start()
            try:
                self._ready.result(timeout=self.connect_timeout)
            except concurrent.futures.TimeoutError:
                self._find_pid(before)
                tail = self.stderr_tail()
                self.close()
                raise McpError(
                    "handshake",
                    self.name,
                    f"no answer within {self.connect_timeout:g} s" + (f"; stderr: {tail}" if tail else ""),
                ) from None
            except McpError:
                self._find_pid(before)
                self.close()
                raise
            except BaseException as exc:  # noqa: BLE001 - any start failure becomes McpError("start")
                self._find_pid(before)
                why = self._why(exc)
                self.close()
                raise McpError("start", self.name, why) from None
            self._find_pid(before)
        finally:
            if spawning:
                _SPAWN.release()
        self.started_s = time.perf_counter() - t0
        _OPEN.add(self)
        return self

    def _find_pid(self, before: set[int]) -> None:
        if self.spec.kind != "stdio" or self.pid is not None:
            return
        for pid in _children() - before:
            argv = _argv_of(pid)
            if (
                argv
                and argv[1:] == list(self.spec.command[1:])
                and os.path.basename(argv[0]) == os.path.basename(self.spec.command[0])
            ):
                with contextlib.suppress(OSError):
                    if os.getpgid(pid) == pid:
                        self.pid = pid
                        return

    def _why(self, exc: BaseException) -> str:
        """A start failure's cause: the exception, and the last lines the server wrote to stderr."""
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        text = f"{type(exc).__name__}: {exc}"[:300]
        tail = self.stderr_tail()
        return f"{text}; stderr: {tail}" if tail else text

    def stderr_tail(self, chars: int = 400) -> str:
        f = self._errlog
        if f is None or f.closed:
            return ""
        try:
            f.flush()
            f.seek(0, os.SEEK_END)
            end = f.tell()
            f.seek(max(0, end - chars * 4))
            return " | ".join(line.strip() for line in f.read().splitlines()[-4:] if line.strip())[-chars:]
        except (OSError, ValueError):
            return ""

    def _thread_main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as exc:  # noqa: BLE001 - the SDK's task group ending badly: the connection is dead
            if not self._ready.done():
                self._ready.set_exception(exc)
            self.dead = self.dead or self._why(exc)
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def _target(self) -> Any:
        from mcp import StdioServerParameters

        if self.spec.url:
            from mcp.client.streamable_http import streamable_http_client

            http = _http_client(dict(self.spec.headers), self._oversized)
            return streamable_http_client(self.spec.url, http_client=http), http
        command, args = self.spec.command[0], list(self.spec.command[1:])
        setpriv = shutil.which("setpriv") if sys.platform == "linux" else None
        if setpriv:
            # the kernel kills the server if this process dies without closing it (SIGKILL, a crash):
            # setpriv sets the parent-death signal and then execs the server in the same process
            command, args = setpriv, ["--pdeathsig", "KILL", "--", command, *args]
        params = StdioServerParameters(command=command, args=args, env=dict(self.spec.env) or None, cwd=self.spec.cwd)
        return params, None

    async def _main(self) -> None:
        from mcp import Client

        self._stop = asyncio.Event()
        self._task = asyncio.current_task()
        try:
            target, http = self._target()
            async with contextlib.AsyncExitStack() as stack:
                if http is not None:
                    await stack.enter_async_context(http)
                if self.spec.kind == "stdio":
                    from mcp.client.stdio import stdio_client

                    target = stdio_client(target, errlog=self._errlog)
                client = await stack.enter_async_context(Client(target, cache=None))
                self._client = client
                info = client.server_info
                self.server_info = f"{info.name} {info.version}".strip() if info is not None else ""
                await self._list(client)
                self._ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)
            elif not self._closed:
                self.dead = self.dead or self._why(exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            self._client = None

    async def _list(self, client: Any) -> None:
        cursor, seen, pages = None, set(), 0
        while True:
            page = await client.list_tools(cursor=cursor)
            for t in page.tools:
                if len(self.tools) >= MAX_TOOLS:
                    self.skipped.append((str(t.name)[:64], f"over the {MAX_TOOLS}-tool limit per server"))
                    continue
                problem = check_tool(t.name, t.input_schema)
                if problem is None and t.name in seen:
                    problem = "listed twice"
                if problem is not None:
                    self.skipped.append((str(t.name)[:64], problem))
                    continue
                seen.add(t.name)
                desc = (t.description or "").strip()
                if len(desc) > MAX_DESCRIPTION_CHARS:
                    desc = desc[:MAX_DESCRIPTION_CHARS] + " [description cut]"
                self.tools.append(McpTool(t.name, desc, dict(t.input_schema)))
            pages += 1
            cursor = page.next_cursor
            if not cursor or pages >= 20:
                return

    def close(self) -> None:
        """Stop the server (stdio) or end the session (HTTP); never leaves a server process behind."""
        if self._closed:
            return
        self._closed = True
        loop, stop, task = self._loop, self._stop, self._task
        if loop is not None and not loop.is_closed():
            # a connection that is up ends its session in order; one still starting is cancelled
            # (the SDK's transport then stops the process group on its way out)
            ready = self._ready.done() and self._ready.exception() is None
            with contextlib.suppress(RuntimeError):
                if ready and stop is not None:
                    loop.call_soon_threadsafe(stop.set)
                elif task is not None:
                    loop.call_soon_threadsafe(task.cancel)
        if self._thread is not None:
            self._thread.join(CLOSE_GRACE_S)
        if self.pid is not None and _group_alive(self.pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(self.pid, os.WNOHANG)
        if self._errlog is not None:
            with contextlib.suppress(OSError):
                self._errlog.close()
        _OPEN.discard(self)

    def __enter__(self) -> Connection:  # noqa: PYI034
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ping(self, timeout: float = 1.0) -> float | None:
        """Milliseconds the server took to answer a tools/list (the protocol's ping is gone as of
        2026-07-28), or None when it did not answer within `timeout`."""
        if not self.alive or self._client is None or self._loop is None:
            return None

        async def ping() -> None:
            import anyio

            with anyio.fail_after(timeout):
                await self._client.list_tools()

        t0 = time.perf_counter()
        future = asyncio.run_coroutine_threadsafe(ping(), self._loop)
        try:
            future.result(timeout + 0.5)
        except BaseException:  # noqa: BLE001 - no answer, whatever the reason, is "not answering"
            future.cancel()
            return None
        return (time.perf_counter() - t0) * 1000

    # -- calls -----------------------------------------------------------------------------------
    def call(self, name: str, arguments: Mapping[str, Any], timeout: float | None = None) -> Observation:
        """Call a tool and wait at most `timeout` seconds; every fault is an error observation."""
        lang, s = self.lang, self.name
        timeout = self.call_timeout if timeout is None else timeout
        if not self.alive or self._client is None or self._loop is None:
            why = self.dead or _say(lang, "closed", "已关闭")
            return Observation(
                _say(
                    lang,
                    f"error: the MCP server {s} is not running ({why}); {name} was not called",
                    f"error: MCP 服务器 {s} 未运行（{why}），没有调用 {name}",
                ),
                True,
            )
        future = asyncio.run_coroutine_threadsafe(self._call(name, dict(arguments), timeout), self._loop)
        try:
            result = future.result(timeout + 1.0)
        except (TimeoutError, concurrent.futures.TimeoutError):
            future.cancel()
            return self._timed_out(name, timeout)
        except concurrent.futures.CancelledError:
            return self._timed_out(name, timeout)
        except BaseException as exc:  # noqa: BLE001 - every call fault is an error observation
            return self._failed(name, exc)
        text = result_text(result)
        return Observation(text, bool(getattr(result, "is_error", False)))

    async def _call(self, name: str, arguments: dict[str, Any], timeout: float) -> Any:
        import anyio

        with anyio.fail_after(timeout):
            return await self._client.call_tool(name, arguments)

    def _oversized(self) -> None:
        self.dead = f"a response over {MAX_HTTP_RESPONSE_BYTES:,} bytes; the connection was closed"
        self.oversized = True

    def _timed_out(self, name: str, timeout: float) -> Observation:
        lang, s = self.lang, self.name
        return Observation(
            _say(
                lang,
                f"error: the MCP server {s} did not answer {name} within {timeout:g} s",
                f"error: MCP 服务器 {s} 在 {timeout:g} 秒内没有返回 {name} 的结果",
            ),
            True,
        )

    def _failed(self, name: str, exc: BaseException) -> Observation:
        lang, s = self.lang, self.name
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        detail = f"{type(exc).__name__}: {exc}"[:500]
        if self.oversized:
            n = f"{MAX_HTTP_RESPONSE_BYTES:,}"
            return Observation(
                _say(
                    lang,
                    f"error: the MCP server {s} answered {name} with over {n} bytes; "
                    "the answer was refused and the connection closed",
                    f"error: MCP 服务器 {s} 对 {name} 的回答超过 {n} 字节，已拒收并断开连接",
                ),
                True,
            )
        if not self.alive or "closed" in detail.lower() or isinstance(exc, (OSError, EOFError)):
            self.dead = self.dead or detail
            return Observation(
                _say(
                    lang,
                    f"error: the MCP server {s} stopped during {name} ({detail})",
                    f"error: MCP 服务器 {s} 在执行 {name} 时停止了（{detail}）",
                ),
                True,
            )
        return Observation(
            _say(
                lang,
                f"error: {name} failed on the MCP server {s}: {detail}",
                f"error: {name} 在 MCP 服务器 {s} 上执行失败：{detail}",
            ),
            True,
        )

    # -- as tools --------------------------------------------------------------------------------
    def as_tools(self, enabled: Sequence[str] | None = None) -> list[Tool]:
        """The server's tools as `Tool`s the patterns run like any other (`enabled`: a subset by name)."""
        by_name = {t.name: t for t in self.tools}
        chosen = self.tools if enabled is None else [by_name[n] for n in dict.fromkeys(enabled) if n in by_name]
        return [Tool(t.name, t.description or t.name, t.schema, self._caller(t.name), server=self.name) for t in chosen]

    def _caller(self, name: str) -> Any:
        def call(**arguments: Any) -> Observation:
            return self.call(name, arguments)

        call.__name__ = name
        return call


def registry(
    connections: Sequence[Connection],
    base: ToolRegistry | None = None,
    enabled: Mapping[str, Sequence[str]] | None = None,
) -> tuple[ToolRegistry, list[tuple[str, str, str]]]:
    """`base`'s tools plus every connection's (those `enabled[server]` names, when given). A server's
    tool takes the place of a built-in tool of the same name (it was asked for); a name another server
    already gave is left out. Returns the registry and (server, tool, note) for each."""
    tools = dict(base.tools) if base is not None else {}
    left: list[tuple[str, str, str]] = []
    for conn in connections:
        for tool in conn.as_tools(None if enabled is None else enabled.get(conn.name, ())):
            taken = tools.get(tool.name)
            if taken is not None and taken.server:
                left.append((conn.name, tool.name, f"left out: the name is already taken by {taken.server}"))
                continue
            if taken is not None:
                left.append((conn.name, tool.name, "replaces the built-in tool of that name"))
            tools[tool.name] = tool
    return ToolRegistry(tools), left


def connect_all(specs: Sequence[ServerSpec], lang: str = "en", **kwargs: Any) -> list[Connection]:
    """Start every server; if one fails, the ones already started are closed and its McpError raised."""
    out: list[Connection] = []
    try:
        for spec in specs:
            out.append(Connection(spec, lang=lang, **kwargs).start())
    except BaseException:
        close_all(out)
        raise
    return out


def close_all(connections: Sequence[Connection]) -> None:
    for conn in connections:
        conn.close()


@atexit.register
def _close_open() -> None:
    for conn in list(_OPEN):
        with contextlib.suppress(Exception):
            conn.close()
