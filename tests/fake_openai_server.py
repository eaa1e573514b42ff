"""A scripted OpenAI-compatible server on 127.0.0.1 for tests: SSE chat completions and faults on demand.

Push behaviours, make calls, read what was sent::

    with FakeOpenAIServer() as server:
        server.push(Fail(429, retry_after=0.01), Reply("Hello there", chunks=3))
        model = OpenAICompatibleModel(server.url, "fake-model")
        ...
        assert server.bodies[-1]["messages"][0]["content"] == "hi"

Each chat request takes the next behaviour from the queue, or `server.default` when the queue is
empty. A queue entry may also be a callable `(RecordedRequest) -> behaviour`, for replies that
depend on what was asked.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

HOST = "127.0.0.1"  # never anything else: the fake must not be reachable from the network
CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
MODELS_PATHS = ("/v1/models", "/models")


@dataclass(frozen=True)
class FakeCall:
    """A tool call the fake model makes; `id=None` lets the server number it."""

    name: str
    arguments: str = "{}"
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """A successful answer, streamed as SSE (or one JSON body when the request has `stream: false`).

    `usage`: True sends counts the server makes up, a (prompt, completion) pair sends those, False
    sends none. Usage goes out only when the request asks for it (`stream_options.include_usage`).
    Faults: `cut_after` closes the socket after that many chunks; `bad_json_at` sends a line of
    non-JSON in place of that chunk; `end_after` ends the body cleanly after that many chunks (a
    proper end of the chunked body, no transport error) with no finish reason and no [DONE], as a
    crashed worker behind a proxy does; `no_done` leaves out [DONE] and `no_finish` the finish
    reason. `delay` waits before the first byte, `chunk_delay` between chunks. Chunks are counted
    from the opening role chunk: `end_after=3` sends the role chunk and two content chunks.
    """

    text: str = ""
    tool_calls: tuple[FakeCall, ...] = ()
    chunks: int = 1
    usage: bool | tuple[int, int] = True
    with_index: bool = True
    with_ids: bool = True
    interleave: bool = False
    finish_reason: str | None = None
    model: str | None = None
    delay: float = 0.0
    chunk_delay: float = 0.0
    cut_after: int | None = None
    bad_json_at: int | None = None
    end_after: int | None = None
    no_done: bool = False
    no_finish: bool = False


@dataclass(frozen=True)
class Fail:
    """An HTTP error status with an OpenAI-style JSON error body (or `body` verbatim)."""

    status: int
    message: str = ""
    retry_after: float | None = None
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None
    delay: float = 0.0


@dataclass(frozen=True)
class Raw:
    """Any bytes with any status: an empty reply, an HTML error page, a broken body."""

    body: bytes = b""
    status: int = 200
    content_type: str = "text/event-stream"
    delay: float = 0.0


Behaviour = Reply | Fail | Raw
Script = Behaviour | Callable[["RecordedRequest"], Behaviour]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


def big_reply(size: int = 1_000_000, chunks: int = 200) -> Reply:
    """A reply of `size` characters (1 MB by default), streamed in `chunks` pieces."""
    return Reply(("All work and no play. " * (size // 22 + 1))[:size], chunks=chunks)


class FakeOpenAIServer:
    """The server: a context manager that binds 127.0.0.1 on a free port and stops cleanly."""

    def __init__(self, default: Script | None = None, *, models: tuple[str, ...] = ("fake-model",)) -> None:
        self.default: Script = default if default is not None else Reply("ok")
        self.models = models
        self.requests: list[RecordedRequest] = []
        #: replies the client abandoned before the server finished writing them
        self.disconnects = 0
        #: TCP connections accepted (tells whether clients reuse keep-alive connections)
        self.connections = 0
        #: exceptions raised by script callables (each also answered with HTTP 500)
        self.errors: list[Exception] = []
        self._queue: deque[Script] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        """Bind and serve in a background thread."""
        self._stopping.clear()
        self._httpd = _HTTPServer(self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cut open connections, and join every handler thread."""
        if self._httpd is None:
            return
        self._stopping.set()  # wakes handlers sleeping in a delay
        self._httpd.shutdown()
        self._httpd.close_connections()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting ---------------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Base URL to give a client, ending in /v1."""
        return f"http://{HOST}:{self.port}/v1"

    def push(self, *behaviours: Script) -> None:
        """Queue behaviours for the next chat requests, in order."""
        with self._lock:
            self._queue.extend(behaviours)

    @property
    def pending(self) -> int:
        """How many queued behaviours are still unused."""
        with self._lock:
            return len(self._queue)

    @property
    def bodies(self) -> list[Any]:
        """JSON bodies of the chat requests received so far."""
        with self._lock:
            return [r.body for r in self.requests if r.path in CHAT_PATHS]

    @property
    def call_count(self) -> int:
        """How many chat requests arrived (retries included)."""
        return len(self.bodies)

    def _next(self, request: RecordedRequest) -> Behaviour:
        with self._lock:
            self.requests.append(request)
            script = self._queue.popleft() if self._queue else self.default
        return script if isinstance(script, (Reply, Fail, Raw)) else script(request)

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A running FakeOpenAIServer, stopped after the test."""
    with FakeOpenAIServer() as server:
        yield server


# -- HTTP plumbing -------------------------------------------------------------------------------


class _HTTPServer(ThreadingHTTPServer):
    # Handler threads are joined on close (not daemons) so a test never leaks a writer thread.
    daemon_threads = False
    block_on_close = True
    allow_reuse_address = False

    def __init__(self, fake: FakeOpenAIServer) -> None:
        self.fake = fake
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        super().__init__((HOST, 0), _Handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = super().get_request()
        with self._conns_lock:
            self._conns.add(sock)
            self.fake.connections += 1
        return sock, addr

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # clients hang up (timeouts, early close, dropped keep-alive): expected here
        super().handle_error(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._conns_lock:
            self._conns.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Unblock handlers waiting on idle keep-alive connections."""
        with self._conns_lock:
            conns = list(self._conns)
        for sock in conns:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle on, delayed ACKs add ~40 ms to a reply.
    disable_nagle_algorithm = True
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # keep test output clean

    def do_GET(self) -> None:  # noqa: N802
        self._record(None)
        if self.path.split("?")[0] in MODELS_PATHS:
            models = [{"id": m, "object": "model", "owned_by": "fake"} for m in self.server.fake.models]
            self._send_json(200, {"object": "list", "data": models})
        else:
            self._send_json(404, _error_body(f"no route {self.path}", 404))

    def do_POST(self) -> None:  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        if self.path.split("?")[0] not in CHAT_PATHS:
            self._record(body)
            self._send_json(404, _error_body(f"no route {self.path}", 404))
            return
        try:
            behaviour = self.server.fake._next(self._recorded(body))
        except Exception as exc:  # a test's script callable failed: answer, and keep it for the test
            self.server.fake.errors.append(exc)
            self._send_json(500, _error_body(f"fake server script failed: {exc!r}", 500))
            return
        try:
            if isinstance(behaviour, Reply):
                self._reply(behaviour, body if isinstance(body, dict) else {})
            elif isinstance(behaviour, Fail):
                self._fail(behaviour)
            else:
                self._raw(behaviour)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away (timeout, early close)
            with self.server.fake._lock:
                self.server.fake.disconnects += 1

    # -- behaviours --------------------------------------------------------------------------
    def _reply(self, reply: Reply, request: dict[str, Any]) -> None:
        fake = self.server.fake
        fake._sleep(reply.delay)
        model = reply.model or request.get("model") or "fake-model"
        usage = _usage(reply, request)
        if not request.get("stream"):
            self._send_json(200, _whole_completion(reply, model, usage))
            return
        self._start_chunked(200, "text/event-stream")
        want_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        events = list(_sse_chunks(reply, model, usage if want_usage else None))
        for n, event in enumerate(events):
            if reply.cut_after is not None and n >= reply.cut_after:
                self._cut()
                return
            if reply.end_after is not None and n >= reply.end_after:
                self._write_chunk(b"")  # the body ends here, cleanly: only the missing end tells
                self.close_connection = True
                return
            if n:
                fake._sleep(reply.chunk_delay)
            # Raw UTF-8 like most servers send (not \u escapes): CJK text and U+2028 travel unescaped.
            data = "{not json" if n == reply.bad_json_at else json.dumps(event, ensure_ascii=False)
            self._write_chunk(f"data: {data}\n\n".encode())
        if not reply.no_done:
            self._write_chunk(b"data: [DONE]\n\n")
        self._write_chunk(b"")

    def _fail(self, fail: Fail) -> None:
        self.server.fake._sleep(fail.delay)
        headers = list(fail.headers)
        if fail.retry_after is not None:
            # Sub-second waits only exist as retry-after-ms; keep both so either parser works.
            headers += [("retry-after-ms", str(int(fail.retry_after * 1000))), ("retry-after", f"{fail.retry_after:g}")]
        body = fail.body if fail.body is not None else json.dumps(_error_body(fail.message, fail.status)).encode()
        self._send_bytes(fail.status, body, "application/json", headers)

    def _raw(self, raw: Raw) -> None:
        self.server.fake._sleep(raw.delay)
        self._send_bytes(raw.status, raw.body, raw.content_type)

    # -- wire --------------------------------------------------------------------------------
    def _recorded(self, body: Any) -> RecordedRequest:
        return RecordedRequest(self.command, self.path, dict(self.headers.items()), body)

    def _record(self, body: Any) -> None:
        with self.server.fake._lock:
            self.server.fake.requests.append(self._recorded(body))

    def _send_json(self, status: int, payload: Any) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), "application/json")

    def _send_bytes(self, status: int, body: bytes, content_type: str, headers: Sequence[tuple[str, str]] = ()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _start_chunked(self, status: int, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))

    def _cut(self) -> None:
        """Drop the connection mid-body, as a crashed server or a broken proxy would."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


# -- payloads ------------------------------------------------------------------------------------


def _error_body(message: str, status: int) -> dict[str, Any]:
    kinds = {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        429: "rate_limit_error",
    }
    default = {401: "Incorrect API key provided.", 429: "Rate limit reached.", 404: "Not found."}
    return {
        "error": {
            "message": message or default.get(status, f"HTTP {status}"),
            "type": kinds.get(status, "server_error"),
            "code": None,
        }
    }


def _usage(reply: Reply, request: dict[str, Any]) -> dict[str, int] | None:
    if reply.usage is False:
        return None
    if isinstance(reply.usage, tuple):
        prompt, completion = reply.usage
    else:
        words = sum(len(str(m.get("content") or "").split()) for m in request.get("messages") or [])
        prompt, completion = words + 1, max(1, reply.chunks)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _split(text: str, parts: int) -> list[str]:
    parts = max(1, min(parts, len(text))) if text else 0
    size, extra = divmod(len(text), parts) if parts else (0, 0)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(text[start:end])
        start = end
    return out


def _call_ids(reply: Reply) -> list[str | None]:
    return [(c.id or f"call_fake_{i}") if reply.with_ids else None for i, c in enumerate(reply.tool_calls)]


def _tool_deltas(reply: Reply) -> list[dict[str, Any]]:
    """Tool-call deltas: a head (id, name) per call, then argument fragments, as real servers send."""
    per_call: list[list[dict[str, Any]]] = []
    for i, (call, call_id) in enumerate(zip(reply.tool_calls, _call_ids(reply), strict=True)):
        head: dict[str, Any] = {"type": "function", "function": {"name": call.name, "arguments": ""}}
        if call_id:
            head["id"] = call_id
        parts = [head] + [{"function": {"arguments": a}} for a in _split(call.arguments, reply.chunks)]
        if reply.with_index:
            parts = [{"index": i, **p} for p in parts]
        per_call.append(parts)
    if not reply.interleave:
        return [d for parts in per_call for d in parts]
    longest = max((len(p) for p in per_call), default=0)
    return [parts[k] for k in range(longest) for parts in per_call if k < len(parts)]


def _sse_chunks(reply: Reply, model: str, usage: dict[str, int] | None) -> Iterator[dict[str, Any]]:
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    yield chunk({"role": "assistant", "content": ""})
    for piece in _split(reply.text, reply.chunks):
        yield chunk({"content": piece})
    for delta in _tool_deltas(reply):
        yield chunk({"tool_calls": [delta]})
    if not reply.no_finish:
        yield chunk({}, reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"))
    if usage is not None:
        yield {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [],
            "usage": usage,
        }


def _whole_completion(reply: Reply, model: str, usage: dict[str, int] | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call_id or f"call_fake_{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for i, (c, call_id) in enumerate(zip(reply.tool_calls, _call_ids(reply), strict=True))
        ]
    out = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"),
            }
        ],
    }
    if usage is not None:
        out["usage"] = usage
    return out
