"""The door to real endpoints: an OpenAI-compatible streaming ChatModel, provider presets, a connection check.

This is the only module that imports `openai`, and only when a model is built, so importing the core
stays light. Requests go through the SDK's generic `client.post` with a plain JSON body: that keeps the
SDK's retries, timeouts and status errors, but skips the per-field transform `chat.completions.create`
runs over the whole history on every call (tens of ms at 200 messages). The SSE body is read here,
as plain dicts and tolerantly, because "compatible" servers bend the protocol in different ways.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import untrusted
from .errors import (
    AuthError,
    BadRequestError,
    EndpointConnectionError,
    EndpointTimeoutError,
    MalformedResponseError,
    ModelError,
    RateLimitError,
    ServerError,
    StreamCutError,
)
from .messages import ChatRequest, Completion, ToolCall, Usage, estimate_prompt_tokens, estimate_tokens, user
from .models import ChatModel
from .redaction import redact

if TYPE_CHECKING:
    from openai import RequestOptions

#: Sent when a server needs no key: the SDK refuses to build a client without one.
PLACEHOLDER_KEY = "not-needed"


@dataclass(frozen=True, slots=True)
class Preset:
    """A provider's endpoint defaults; `key_env` names the environment variable holding its key."""

    id: str
    label: str
    base_url: str
    key_env: str
    default_model: str
    needs_key: bool


PRESETS: dict[str, Preset] = {
    p.id: p
    for p in (
        Preset("openai", "OpenAI", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4o-mini", True),
        Preset(
            "dashscope",
            "Qwen (DashScope)",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
            "DASHSCOPE_API_KEY",
            "qwen-plus",
            True,
        ),
        Preset("deepseek", "DeepSeek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", "deepseek-chat", True),
        Preset("ollama", "Ollama (local)", "http://127.0.0.1:11434/v1", "", "llama3.1", False),
        # vLLM answers only to the name it serves, so there is no sensible default model.
        Preset("vllm", "vLLM (local)", "http://127.0.0.1:8000/v1", "", "", False),
        # llama.cpp's server ignores the model name.
        Preset("llamacpp", "llama.cpp server (local)", "http://127.0.0.1:8080/v1", "", "local", False),
        Preset("custom", "Custom OpenAI-compatible endpoint", "", "", "", False),
    )
}


class OpenAICompatibleModel:
    """A ChatModel for any server speaking OpenAI's chat-completions protocol."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float | None = 60.0,
        max_retries: int = 2,
        temperature: float | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        from openai import OpenAI

        self.name = model
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.temperature = temperature
        self._api_key = api_key
        self._client = OpenAI(
            base_url=self.base_url,
            api_key=api_key or PLACEHOLDER_KEY,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=dict(extra_headers or {}),
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel({self.name!r}, base_url={self.base_url!r})"

    def stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        """Yield text deltas as they arrive, then one Completion; raise a ModelError on failure."""
        yield from self._stream(request, {})

    def close(self) -> None:
        """Release the HTTP connection pool."""
        self._client.close()

    # -- one call ------------------------------------------------------------------------------
    def _stream(self, request: ChatRequest, extra: Mapping[str, Any]) -> Iterator[str | Completion]:
        import httpx2

        started = time.perf_counter()
        body = self._body(request, extra)
        try:
            response = self._open(body, self._call_timeout(request))
        except BadRequestError as err:
            # OpenAI's reasoning models refuse `max_tokens` and name its successor: ask once more with it.
            if "max_tokens" not in body or "max_completion_tokens" not in str(err):
                raise
            body["max_completion_tokens"] = body.pop("max_tokens")
            response = self._open(body, self._call_timeout(request))
        chunks = _Assembler()
        try:
            if response.headers.get("content-type", "").lower().startswith("application/json"):
                # Some servers ignore `stream: true` and answer with one JSON completion.
                text = chunks.feed(self._whole_body(_read_capped(response)))
                if text:
                    yield text
            else:
                for data in _sse_data(response.iter_bytes()):
                    if data.strip() == "[DONE]":
                        # Read on to the end of the body, which servers end right after [DONE]: a
                        # fully read response returns its connection to the pool, so the next call
                        # skips a TCP and TLS handshake. (The SDK's Stream closes here instead.)
                        chunks.done = True
                    elif not chunks.done:
                        text = chunks.feed(self._event(untrusted.loads(data, max_depth=None), chunks))
                        if text:
                            yield text
                if chunks.count:
                    self._check_complete(chunks)
        except (httpx2.HTTPError, ValueError) as err:
            if not chunks.done:  # a bad tail after [DONE] costs the connection, not the answer
                raise self._midstream_error(err, chunks) from None
        finally:
            response.close()  # also runs when the consumer stops early (GeneratorExit)
        if not chunks.count:
            kind = response.headers.get("content-type") or "no content type"
            raise self._error(
                MalformedResponseError,
                f"{self.base_url} answered with no chat completion chunks "
                f"({kind}); is it an OpenAI-compatible endpoint (base URL ending in /v1)?",
            )
        latency_ms = (time.perf_counter() - started) * 1000
        yield chunks.completion(request, self.name, latency_ms)

    def _body(self, request: ChatRequest, extra: Mapping[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.name,
            "messages": [m.to_openai() for m in request.messages],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            body["tools"] = list(request.tools)
        temperature = request.temperature if request.temperature is not None else self.temperature
        if temperature is not None:
            body["temperature"] = temperature
        if request.max_tokens:
            # `max_tokens` rather than the newer `max_completion_tokens`: every compatible server
            # (llama.cpp, Ollama, vLLM, DashScope, DeepSeek) reads this one.
            body["max_tokens"] = request.max_tokens
        body.update(extra)
        return body

    def _call_timeout(self, request: ChatRequest) -> float | None:
        """The read timeout of one call: the model's own, never more than the run's time left."""
        if request.timeout is None:
            return self.timeout
        left = max(request.timeout, 0.05)  # 0 would mean "no timeout" to some transports
        return left if self.timeout is None else min(self.timeout, left)

    def _check_complete(self, chunks: _Assembler) -> None:
        """A stream is whole only with a finish reason, or [DONE] after complete tool calls.

        A server or proxy that closes the connection cleanly part-way raises no transport error:
        only the missing end tells, so a reply like that is a cut stream, never an answer.
        """
        if chunks.finish is not None or (chunks.done and chunks.calls_complete()):
            return
        where, partial = self.base_url, chunks.text
        kept = f"{len(partial)} characters kept" if partial else "no text received"
        if not chunks.calls_complete():
            raise self._error(
                StreamCutError,
                f"the stream from {where} ended in the middle of a tool call (its "
                f"arguments are not complete JSON, and no finish reason came; {kept}); try again.",
                partial,
            )
        raise self._error(
            StreamCutError,
            f"the stream from {where} ended without a finish reason or [DONE] "
            f"({kept}): the server or a proxy closed it part-way; try again.",
            partial,
        )

    def _open(self, body: dict[str, Any], timeout: float | None = None) -> Any:
        """POST the request through the SDK (retries, timeouts, status errors); return the open response."""
        import httpx2
        import openai

        # No redirects: the key goes to this base URL's origin only, never to wherever a 30x points
        # (a redirect is reported instead, naming where it pointed, so the person can set that URL).
        options: RequestOptions = {"security": {"bearer_auth": True}, "follow_redirects": False}
        if timeout != self.timeout:
            # The run's time left is shorter than our own timeout: an attempt that times out ends at
            # the run's limit, so a retry could only start after it. (This gives up the SDK's quick
            # 429/5xx retries for that last stretch of a time-limited run; the run then fails with the
            # typed error instead of overrunning its limit.)
            options["timeout"] = timeout
            options["max_retries"] = 0
        try:
            # cast_to=httpx2.Response: the SDK hands back the raw streaming response once the
            # status is known, and we read the SSE ourselves.
            return self._client.post(
                "/chat/completions", body=body, cast_to=httpx2.Response, stream=True, options=options
            )
        except openai.APIStatusError as err:
            raise self._status_error(err) from None
        except openai.APITimeoutError:
            raise self._error(
                EndpointTimeoutError,
                f"{self.base_url} did not answer within {self._timeout_text}; "
                "is the model still loading? Raise the timeout or try a smaller model.",
            ) from None
        except openai.APIConnectionError as err:
            raise self._error(
                EndpointConnectionError, f"cannot reach {self.base_url} ({_root_cause(err)}); is the server running?"
            ) from None
        except openai.OpenAIError as err:
            raise self._error(ModelError, f"{self.base_url}: {err}") from None

    def _whole_body(self, raw: bytes) -> Any:
        return self._event(untrusted.loads(raw, max_depth=None), None)

    def _event(self, event: Any, chunks: _Assembler | None) -> Any:
        """Raise the server's own error when an event (or a whole body) carries one."""
        if isinstance(event, dict) and event.get("error"):
            message = f"{self.base_url} reported an error: {_server_message(event)}"
            partial = chunks.text if chunks else ""
            if partial:
                raise self._error(StreamCutError, f"{message} ({len(partial)} characters kept)", partial)
            raise self._error(ServerError, message)
        return event

    # -- errors --------------------------------------------------------------------------------
    # Every message names the endpoint and what to do; none carries the key, and exceptions are
    # raised `from None` because the SDK's own (unredacted) messages would show up in tracebacks.
    def _status_error(self, err: Any) -> ModelError:
        status, where, detail = err.status_code, self.base_url, _server_message(err.body)
        retries = self._client.max_retries
        if 300 <= status < 400:
            to = _server_message(err.response.headers.get("location", "")) or "no location given"
            return self._error(
                BadRequestError,
                f"{where} answered with a redirect (HTTP {status} to {to}); "
                "redirects are not followed, so the key stays with this host: set the base URL "
                "to where it points, if you trust it.",
            )
        if status in (401, 403):
            return self._error(
                AuthError,
                f"{where} refused the request (HTTP {status}{_colon(detail)}); check the API key for {where}.",
            )
        if status == 429:
            wait = err.response.headers.get("retry-after")
            hint = f"the server asks to wait {wait} s" if wait else "wait a little"
            return self._error(
                RateLimitError,
                f"{where} is rate-limiting requests (HTTP 429, still after "
                f"{retries} retries{_colon(detail)}); {hint} and try again.",
                _retry_after(err.response.headers),
            )
        if status >= 500:
            return self._error(
                ServerError,
                f"{where} failed with HTTP {status} after {retries} retries{_colon(detail)}; try again later.",
            )
        if status == 404 and "model" not in detail.lower():  # a wrong path, not an unknown model
            return self._error(
                BadRequestError,
                f"{where}/chat/completions was not found (HTTP 404"
                f"{_colon(detail)}); check the base URL (it usually ends in /v1).",
            )
        return self._error(
            BadRequestError,
            f"{where} rejected the request (HTTP {status}{_colon(detail)}); "
            f"check the model name {self.name!r} and the request.",
        )

    def _midstream_error(self, err: Exception, chunks: _Assembler) -> ModelError:
        import httpx2

        where, partial = self.base_url, chunks.text
        kept = f"{len(partial)} characters kept" if partial else "nothing received yet"
        if isinstance(err, httpx2.TimeoutException):
            if not partial:
                return self._error(
                    EndpointTimeoutError,
                    f"{where} sent no answer within {self._timeout_text}; "
                    "is the model still loading? Raise the timeout or try a smaller model.",
                )
            return self._error(
                StreamCutError,
                f"the stream from {where} stalled for {self._timeout_text} ({kept}); try again.",
                partial,
            )
        if isinstance(err, httpx2.HTTPError):
            return self._error(
                StreamCutError, f"the connection to {where} dropped mid-stream ({kept}); try again.", partial
            )
        if not chunks.count:
            return self._error(
                MalformedResponseError,
                f"{where} sent a reply that is not valid JSON chat chunks; is it an OpenAI-compatible endpoint?",
            )
        return self._error(StreamCutError, f"{where} sent a chunk that is not valid JSON ({kept}); try again.", partial)

    def _error(self, cls: type[ModelError], message: str, *args: Any) -> ModelError:

        return cls(redact(message, [self._api_key]), *args)

    @property
    def _timeout_text(self) -> str:
        return "no time limit" if self.timeout is None else f"{self.timeout:g} s"


def test_connection(model: ChatModel) -> str:
    """Make one tiny call and return a one-line summary, or raise the typed ModelError."""
    request = ChatRequest((user("Reply with the single word: pong"),), role="connection_test")
    if isinstance(model, OpenAICompatibleModel):
        items = model._stream(request, {"max_tokens": 16})
    else:
        items = model.stream(request)
    done = [item for item in items if isinstance(item, Completion)]
    if not done:
        raise MalformedResponseError(f"model {model.name!r} ended its stream without a completion")
    answer = done[-1]
    text = answer.text.strip()
    reply = repr(text[:40]) if text else f"an empty reply (finish reason: {answer.finish_reason})"
    tokens = f"{answer.usage.total_tokens} tokens{' (estimated)' if answer.usage.estimated else ''}"
    return f"{answer.model or model.name} answered in {answer.latency_ms:.0f} ms with {reply}; {tokens}."


test_connection.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, despite its name


# -- reading chunks ----------------------------------------------------------------------------


@dataclass
class _PartialCall:
    id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)


class _Assembler:
    """Builds one Completion from streamed chunk dicts."""

    def __init__(self) -> None:
        self.count = 0
        self.done = False  # the server sent [DONE]
        self._text: list[str] = []
        self._calls: list[_PartialCall] = []
        self._by_index: dict[int, _PartialCall] = {}
        self._usage: dict[str, Any] | None = None
        self._finish: str | None = None
        self._model = ""

    @property
    def text(self) -> str:
        return "".join(self._text)

    @property
    def finish(self) -> str | None:
        return self._finish

    def calls_complete(self) -> bool:
        """Every tool call streamed so far has a name and arguments that parse as JSON."""
        for call in self._calls:
            if not call.name and not call.arguments:
                continue
            try:
                untrusted.loads("".join(call.arguments) or "{}", max_depth=None)
            except ValueError:
                return False
            if not call.name:
                return False
        return True

    def feed(self, chunk: Any) -> str:
        """Take one chunk (or a whole non-streamed completion); return its new text."""
        if not isinstance(chunk, dict):
            raise ValueError("chunk is not a JSON object")
        if not isinstance(chunk.get("choices"), list) and not isinstance(chunk.get("usage"), dict):
            return ""  # a vendor's extra event (ping, metadata): skipped, and not counted as a chunk
        self.count += 1
        if isinstance(chunk.get("model"), str) and chunk["model"]:
            self._model = chunk["model"]
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        text = ""
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) not in (0, None):
                continue  # n > 1 is never asked for; ignore extra choices
            delta = choice.get("delta") or choice.get("message") or {}
            if isinstance(delta.get("content"), str):
                text += delta["content"]
            for call in delta.get("tool_calls") or ():
                if isinstance(call, dict):
                    self._add_call_delta(call)
            self._finish = choice.get("finish_reason") or self._finish
        if text:
            self._text.append(text)
        return text

    def _add_call_delta(self, delta: dict[str, Any]) -> None:
        fn = delta.get("function")
        if not isinstance(fn, dict):
            fn = {}
        call_id, name, arguments = delta.get("id") or None, fn.get("name") or None, fn.get("arguments")
        call = self._slot(delta.get("index"), call_id, name)
        call.id = call.id or call_id
        call.name = call.name or name
        if isinstance(arguments, str):
            call.arguments.append(arguments)
        elif arguments is not None:  # some servers send the arguments as an object
            call.arguments.append(json.dumps(arguments))

    def _slot(self, index: Any, call_id: str | None, name: str | None) -> _PartialCall:
        """The call a delta belongs to: by `index`, or, when a server sends none, the last one."""
        if isinstance(index, int):
            call = self._by_index.get(index)
            # A new id at a used index comes from servers that number every call 0.
            if call is not None and not (call_id and call.id and call_id != call.id):
                return call
        elif self._calls:
            last = self._calls[-1]
            if call_id:
                starts_new = call_id != last.id and bool(last.id or last.name)
            else:
                starts_new = bool(name and last.name)
            if not starts_new:
                return last
        call = _PartialCall()
        self._calls.append(call)
        if isinstance(index, int):
            self._by_index[index] = call
        return call

    def completion(self, request: ChatRequest, model: str, latency_ms: float) -> Completion:
        """The finished Completion; usage is estimated when the server sent none."""
        text = self.text
        calls = tuple(
            ToolCall(c.id or f"call_{uuid.uuid4().hex[:16]}", c.name or "", "".join(c.arguments) or "{}")
            for c in self._calls
            if c.name or c.arguments
        )
        return Completion(
            text, calls, self._usage_for(request, text, calls), self._model or model, latency_ms, self._finish
        )

    def _usage_for(self, request: ChatRequest, text: str, calls: tuple[ToolCall, ...]) -> Usage:
        usage = self._usage or {}
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if isinstance(prompt, int) or isinstance(completion, int):
            return Usage(prompt or 0, completion or 0)
        return Usage(
            estimate_prompt_tokens(request.messages),
            estimate_tokens(text) + sum(estimate_tokens(c.arguments) for c in calls),
            estimated=True,
        )


def _sse_data(blocks: Iterator[bytes]) -> Iterator[str]:
    """The data of each server-sent event; other fields and comments are ignored."""
    data: list[str] = []
    for line in _lines(blocks):
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith(b"data:"):
            data.append(line[5:].removeprefix(b" ").decode("utf-8", "replace"))
    if data:
        yield "\n".join(data)


#: The longest line of a server-sent stream, and the largest whole (non-streamed) body, read from an
#: endpoint: a participant may point the app at a server of their own, which could send gigabytes.
MAX_LINE_BYTES = 8 << 20
MAX_BODY_BYTES = 32 << 20


def _lines(blocks: Iterator[bytes]) -> Iterator[bytes]:
    # Split on LF (and CRLF) only: str.splitlines() would also split on U+2028 and friends, which
    # may appear raw inside a JSON string. Each byte is searched once: a long line arriving in many
    # blocks was searched again from its start with every block (quadratic), and is now bounded.
    pending = bytearray()
    for block in blocks:
        searched = len(pending)  # no line break in what was pending
        pending += block
        start = 0
        while (end := pending.find(b"\n", max(start, searched))) != -1:
            yield bytes(pending[start:end]).removesuffix(b"\r")
            start = end + 1
        del pending[:start]
        if len(pending) > MAX_LINE_BYTES:
            raise ValueError(f"the endpoint sent a line of more than {MAX_LINE_BYTES >> 20} MB")
    if pending:
        yield bytes(pending).removesuffix(b"\r")


def _read_capped(response: Any, cap: int = MAX_BODY_BYTES) -> bytes:
    """A whole response body, refused past `cap` bytes (ValueError) instead of held in memory."""
    out = bytearray()
    for block in response.iter_bytes():
        out += block
        if len(out) > cap:
            raise ValueError(f"the endpoint's answer is over {cap >> 20} MB")
    return bytes(out)


def _retry_after(headers: Any) -> float | None:
    """The wait a 429 asks for, in seconds: `retry-after-ms`, else `retry-after` in seconds (an HTTP
    date is rare on APIs and is ignored)."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            value = float(headers.get(name, ""))
        except (TypeError, ValueError):
            continue
        if value >= 0:
            return value / scale
    return None


def _server_message(body: Any) -> str:
    """The server's own explanation from an error body, short."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        body = message if isinstance(message, str) else ""
    text = " ".join(str(body or "").split())
    return text[:300] + ("…" if len(text) > 300 else "")


def _root_cause(err: BaseException) -> str:
    while err.__cause__ is not None or err.__context__ is not None:
        err = err.__cause__ or err.__context__  # type: ignore[assignment]
    return str(err) or type(err).__name__


def _colon(detail: str) -> str:
    return f": {detail}" if detail else ""
