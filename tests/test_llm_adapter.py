"""OpenAICompatibleModel over real HTTP against the fake server: streaming, tool calls, every failure."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import llm
from agent_core.errors import (
    AuthError,
    BadRequestError,
    EndpointConnectionError,
    EndpointTimeoutError,
    MalformedResponseError,
    RateLimitError,
    ServerError,
    StreamCutError,
)
from agent_core.llm import PRESETS, OpenAICompatibleModel
from agent_core.messages import (
    ChatRequest,
    Completion,
    ToolCall,
    Usage,
    assistant,
    estimate_prompt_tokens,
    estimate_tokens,
    system,
    tool_message,
    user,
)
from tests.fake_openai_server import (  # noqa: F401  (fake_openai is a fixture)
    Fail,
    FakeCall,
    FakeOpenAIServer,
    Raw,
    Reply,
    big_reply,
    fake_openai,
)

KEY = "sk-test-0123456789abcdef"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
REQUEST = ChatRequest((system("You are terse."), user("What's the weather in Paris and Rome?")), tools=(WEATHER,))


def make_model(server: FakeOpenAIServer, **kwargs) -> OpenAICompatibleModel:
    kwargs.setdefault("api_key", KEY)
    kwargs.setdefault("max_retries", 0)
    kwargs.setdefault("timeout", 5.0)
    return OpenAICompatibleModel(server.url, "fake-model", **kwargs)


def run(model: OpenAICompatibleModel, request: ChatRequest = REQUEST) -> tuple[list[str], Completion]:
    """Drain a stream into (text deltas, completion), checking the protocol's shape on the way."""
    items = list(model.stream(request))
    *deltas, done = items
    assert all(isinstance(d, str) for d in deltas)
    assert isinstance(done, Completion)
    return deltas, done


# -- streaming -----------------------------------------------------------------------------------


def test_text_deltas_arrive_in_order_and_completion_carries_text_and_usage(fake_openai):
    fake_openai.push(Reply("The quick brown fox jumps", chunks=5, usage=(42, 7)))
    deltas, done = run(make_model(fake_openai))
    assert len(deltas) == 5
    assert "".join(deltas) == done.text == "The quick brown fox jumps"
    assert done.usage == Usage(prompt_tokens=42, completion_tokens=7)
    assert done.finish_reason == "stop"
    assert done.model == "fake-model"
    assert done.tool_calls == ()
    assert done.latency_ms > 0


def test_usage_is_estimated_when_the_server_sends_none(fake_openai):
    fake_openai.push(Reply("Sunny, 21 degrees.", usage=False))
    _, done = run(make_model(fake_openai))
    assert done.usage == Usage(
        estimate_prompt_tokens(REQUEST.messages), estimate_tokens("Sunny, 21 degrees."), estimated=True
    )


def test_two_parallel_tool_calls_split_across_chunks_are_assembled(fake_openai):
    calls = (
        FakeCall("get_weather", '{"city": "Paris"}', id="call_a"),
        FakeCall("get_weather", '{"city": "Rome"}', id="call_b"),
    )
    fake_openai.push(Reply(tool_calls=calls, chunks=4, interleave=True))
    deltas, done = run(make_model(fake_openai))
    assert deltas == []
    assert done.tool_calls == (
        ToolCall("call_a", "get_weather", '{"city": "Paris"}'),
        ToolCall("call_b", "get_weather", '{"city": "Rome"}'),
    )
    assert done.finish_reason == "tool_calls"


def test_tool_calls_without_index_or_id_are_tolerated(fake_openai):
    calls = (FakeCall("get_weather", '{"city": "Paris"}'), FakeCall("get_time", '{"tz": "CET"}'))
    fake_openai.push(Reply("Checking.", tool_calls=calls, chunks=3, with_index=False, with_ids=False))
    _, done = run(make_model(fake_openai))
    assert done.text == "Checking."
    assert [(c.name, c.arguments) for c in done.tool_calls] == [
        ("get_weather", '{"city": "Paris"}'),
        ("get_time", '{"tz": "CET"}'),
    ]
    ids = [c.id for c in done.tool_calls]
    assert all(ids) and len(set(ids)) == 2


def test_tool_call_assembly_holds_for_any_split():
    names = st.from_regex(r"[a-z_]{1,12}", fullmatch=True)
    calls = st.lists(st.tuples(names, st.text(max_size=30)), min_size=1, max_size=3)

    with FakeOpenAIServer() as server:
        model = make_model(server)

        @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(calls=calls, chunks=st.integers(1, 6), with_index=st.booleans(), interleave=st.booleans())
        def check(calls, chunks, with_index, interleave):
            fakes = tuple(FakeCall(name, args) for name, args in calls)
            # servers that send no index cannot interleave calls either
            server.push(
                Reply(tool_calls=fakes, chunks=chunks, with_index=with_index, interleave=interleave and with_index)
            )
            _, done = run(model)
            assert [(c.name, c.arguments) for c in done.tool_calls] == [(n, a or "{}") for n, a in calls]

        check()


def test_unicode_survives_chunking_and_line_splitting(fake_openai):
    text = "巴黎今天晴，21°C。\u2028Line separator inside JSON; emoji 🌤️ too."
    fake_openai.push(Reply(text, chunks=7))
    _, done = run(make_model(fake_openai))
    assert done.text == text


def test_connections_are_reused_across_calls(fake_openai):
    model = make_model(fake_openai)
    for _ in range(3):
        run(model)
    assert fake_openai.connections == 1  # a fully read stream goes back to the pool


def test_a_server_that_ignores_stream_true_still_works(fake_openai):
    whole = {
        "model": "fake-model",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "All at once."}}],
    }
    fake_openai.push(Raw(json.dumps(whole).encode(), content_type="application/json"))
    deltas, done = run(make_model(fake_openai))
    assert deltas == ["All at once."]
    assert done.text == "All at once." and done.usage.estimated


def test_a_one_megabyte_reply_streams_whole(fake_openai):
    reply = big_reply()
    fake_openai.push(reply)
    deltas, done = run(make_model(fake_openai))
    assert len(deltas) == 200
    assert done.text == reply.text and len(done.text) == 1_000_000


# -- what is sent --------------------------------------------------------------------------------


def test_request_body_carries_messages_tools_and_stream_options(fake_openai):
    call = ToolCall("call_1", "get_weather", '{"city": "Paris"}')
    history = (*REQUEST.messages, assistant("", (call,)), tool_message(call, "Sunny"))
    model = make_model(fake_openai, temperature=0.7, extra_headers={"X-Workshop": "agents"})
    run(model, ChatRequest(history, tools=(WEATHER,), temperature=0.1))

    body = fake_openai.bodies[-1]
    assert body["model"] == "fake-model"
    assert body["messages"] == [m.to_openai() for m in history]
    assert body["messages"][2]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    assert body["tools"] == [WEATHER]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0.1  # the request's temperature wins over the model's
    headers = {k.lower(): v for k, v in fake_openai.requests[-1].headers.items()}
    assert headers["authorization"] == f"Bearer {KEY}"
    assert headers["x-workshop"] == "agents"


def test_no_tools_and_no_temperature_are_left_out(fake_openai):
    run(make_model(fake_openai), ChatRequest((user("hi"),)))
    body = fake_openai.bodies[-1]
    assert "tools" not in body and "temperature" not in body


def test_a_keyless_local_server_gets_a_placeholder_key(fake_openai):
    run(make_model(fake_openai, api_key=None))
    headers = {k.lower(): v for k, v in fake_openai.requests[-1].headers.items()}
    assert headers["authorization"] == f"Bearer {llm.PLACEHOLDER_KEY}"


# -- retries and status errors -------------------------------------------------------------------


def test_rate_limit_is_retried_then_succeeds(fake_openai):
    fake_openai.push(Fail(429, retry_after=0.01), Reply("Made it."))
    _, done = run(make_model(fake_openai, max_retries=2))
    assert done.text == "Made it."
    assert fake_openai.call_count == 2


def test_rate_limit_after_retries_says_when_to_retry(fake_openai):
    fake_openai.push(Fail(429, retry_after=0.01), Fail(429, retry_after=0.01))
    with pytest.raises(RateLimitError, match="wait 0.01 s"):
        run(make_model(fake_openai, max_retries=1))
    assert fake_openai.call_count == 2


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_are_retried_then_raised(fake_openai, status):
    # retry_after keeps the SDK's backoff short; without it the wait is ~0.5 s per retry
    fake_openai.push(Fail(status, "overloaded", retry_after=0.01), Fail(status, "overloaded", retry_after=0.01))
    with pytest.raises(ServerError, match=f"HTTP {status} after 1 retries: overloaded"):
        run(make_model(fake_openai, max_retries=1))
    assert fake_openai.call_count == 2


@pytest.mark.parametrize("status", [401, 403])
def test_auth_error_names_the_endpoint_and_never_the_key(fake_openai, status):
    fake_openai.push(Fail(status, f"Incorrect API key provided: {KEY}"))
    with pytest.raises(AuthError) as caught:
        run(make_model(fake_openai, max_retries=2))
    message = str(caught.value)
    assert f"check the API key for {fake_openai.url}" in message
    assert KEY not in message and "redacted" in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__  # no SDK text in tracebacks
    assert fake_openai.call_count == 1  # auth errors are not retried


@pytest.mark.parametrize("status", [400, 404, 422])
def test_bad_request_carries_the_servers_message(fake_openai, status):
    fake_openai.push(Fail(status, "The model `gpt-9` does not exist"))
    with pytest.raises(BadRequestError, match="The model `gpt-9` does not exist"):
        run(make_model(fake_openai, max_retries=2))
    assert fake_openai.call_count == 1


def test_wrong_path_404_points_at_the_base_url(fake_openai):
    model = OpenAICompatibleModel(fake_openai.url.removesuffix("/v1") + "/api", "fake-model", max_retries=0)
    with pytest.raises(BadRequestError, match="check the base URL"):
        run(model)


# -- transport failures --------------------------------------------------------------------------


def test_timeout_is_reported_quickly_with_its_value(fake_openai):
    fake_openai.push(Reply("too late", delay=3))
    started = time.perf_counter()
    with pytest.raises(EndpointTimeoutError, match=r"within 0\.3 s"):
        run(make_model(fake_openai, timeout=0.3))
    assert time.perf_counter() - started < 1.5


def test_refused_connection_asks_whether_the_server_runs():
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAICompatibleModel(f"http://127.0.0.1:{port}/v1", "m", max_retries=0)
    with pytest.raises(EndpointConnectionError, match=rf"cannot reach {model.base_url} .*is the server running"):
        run(model)


def test_stream_cut_midway_keeps_the_partial_text(fake_openai):
    fake_openai.push(Reply("abcdefghij", chunks=5, cut_after=3))  # role chunk, "ab", "cd", then the cut
    seen: list[str] = []
    with pytest.raises(StreamCutError) as caught:
        for item in make_model(fake_openai).stream(REQUEST):
            seen.append(item)
    assert caught.value.partial_text == "abcd" == "".join(seen)
    assert "dropped mid-stream" in str(caught.value)


def test_invalid_json_chunk_midway_is_a_stream_cut(fake_openai):
    fake_openai.push(Reply("abcdefghij", chunks=5, bad_json_at=3))
    with pytest.raises(StreamCutError) as caught:
        run(make_model(fake_openai))
    assert caught.value.partial_text == "abcd"


def test_error_event_inside_the_stream_is_a_server_error(fake_openai):
    fake_openai.push(Raw(b'data: {"error": {"message": "context length exceeded"}}\n\n'))
    with pytest.raises(ServerError, match="context length exceeded"):
        run(make_model(fake_openai))


@pytest.mark.parametrize(
    "behaviour",
    [
        Raw(b""),
        Raw(b"<html><body>Welcome to nginx!</body></html>", content_type="text/html"),
        Reply("abc", bad_json_at=0),
        Raw(b"data: [1, 2, 3]\n\n"),
        Raw(b'data: {"type": "message_start"}\n\ndata: [DONE]\n\n'),
        Raw(b'{"status": "ok"}', content_type="application/json"),
    ],
    ids=["empty", "html", "bad-json-first", "not-an-object", "another-api", "json-not-a-completion"],
)
def test_malformed_bodies_are_typed_errors(fake_openai, behaviour):
    fake_openai.push(behaviour)
    with pytest.raises(MalformedResponseError, match="OpenAI-compatible"):
        run(make_model(fake_openai))


def test_closing_the_generator_early_closes_the_response(fake_openai):
    fake_openai.push(Reply("x" * 400, chunks=200, chunk_delay=0.005))
    stream = make_model(fake_openai).stream(REQUEST)
    assert next(stream) == "xx"
    stream.close()
    deadline = time.monotonic() + 3
    while fake_openai.disconnects == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert fake_openai.disconnects == 1  # the server saw the client hang up mid-reply


# -- helpers -------------------------------------------------------------------------------------


def test_test_connection_makes_one_tiny_call(fake_openai):
    fake_openai.push(Reply("pong", usage=(9, 1)))
    summary = llm.test_connection(make_model(fake_openai))
    assert summary.startswith("fake-model answered in") and "'pong'" in summary and "10 tokens" in summary
    assert fake_openai.bodies[-1]["max_tokens"] == 16


def test_test_connection_raises_the_typed_error(fake_openai):
    fake_openai.push(Fail(401))
    with pytest.raises(AuthError):
        llm.test_connection(make_model(fake_openai))


def test_presets_are_complete():
    assert {"openai", "dashscope", "deepseek", "ollama", "vllm", "llamacpp", "custom"} <= set(PRESETS)
    for preset_id, preset in PRESETS.items():
        assert preset.id == preset_id
        assert preset.needs_key == bool(preset.key_env)
        assert preset.base_url.endswith("/v1") or preset_id == "custom"


def test_importing_the_core_loads_neither_the_sdk_nor_streamlit():
    code = (
        "import sys, agent_core.llm, agent_core.settings; "
        "assert 'openai' not in sys.modules and 'streamlit' not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(llm.__file__).rsplit("/agent_core/", 1)[0])


# -- bounded calls and honest stream ends --------------------------------------------------------


def test_the_output_cap_goes_out_as_max_tokens_and_no_cap_sends_none(fake_openai):
    model = make_model(fake_openai)
    run(model, ChatRequest((user("hi"),), max_tokens=64))
    assert fake_openai.bodies[-1]["max_tokens"] == 64
    run(model, ChatRequest((user("hi"),)))
    assert "max_tokens" not in fake_openai.bodies[-1]


def test_a_reply_cut_at_the_cap_says_so_in_its_finish_reason(fake_openai):
    fake_openai.push(Reply("The first half of a long", chunks=3, finish_reason="length"))
    _, done = run(make_model(fake_openai), ChatRequest((user("hi"),), max_tokens=6))
    assert done.finish_reason == "length" and done.text == "The first half of a long"


def test_a_stream_closed_cleanly_after_two_chunks_is_a_stream_cut_not_an_answer(fake_openai):
    # role chunk + two content chunks, then a clean end of the body: no finish reason, no [DONE]
    fake_openai.push(Reply("Partial answer that never reaches its final word.", chunks=4, end_after=3))
    seen: list[str] = []
    with pytest.raises(StreamCutError, match="without a finish reason or \\[DONE\\]") as caught:
        for item in make_model(fake_openai).stream(REQUEST):
            seen.append(item)
    assert caught.value.partial_text == "".join(seen) == "Partial answer that never"
    assert caught.value.code == "stream_cut"


def test_a_finish_reason_without_done_or_done_without_a_finish_reason_is_a_whole_reply(fake_openai):
    fake_openai.push(Reply("ok then", no_done=True), Reply("ok again", no_finish=True))
    model = make_model(fake_openai)
    assert run(model)[1].text == "ok then"
    assert run(model)[1].text == "ok again"


def test_a_stream_that_ends_in_the_middle_of_a_tool_call_is_a_stream_cut(fake_openai):
    # role chunk, the call's head, two of four argument fragments; then the body ends cleanly
    fake_openai.push(Reply("", (FakeCall("get_weather", '{"city": "Paris"}'),), chunks=4, end_after=4))
    with pytest.raises(StreamCutError, match="middle of a tool call"):
        run(make_model(fake_openai))


def test_done_after_half_a_tool_call_with_no_finish_reason_is_a_stream_cut(fake_openai):
    head = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"ci'}}
    chunk = {
        "id": "x",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"tool_calls": [head]}, "finish_reason": None}],
    }
    fake_openai.push(Raw(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()))
    with pytest.raises(StreamCutError, match="middle of a tool call"):
        run(make_model(fake_openai))


def test_the_runs_time_left_lowers_the_read_timeout(fake_openai):
    fake_openai.push(Reply("too late", delay=3))
    started = time.perf_counter()
    with pytest.raises(EndpointTimeoutError):
        run(make_model(fake_openai, timeout=30), ChatRequest((user("hi"),), timeout=0.3))
    assert time.perf_counter() - started < 1.5


def test_a_model_that_refuses_max_tokens_is_asked_again_with_max_completion_tokens(fake_openai):
    refusal = Fail(
        400,
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    )
    fake_openai.default = lambda request: refusal if "max_tokens" in request.body else Reply("ok")
    _, done = run(make_model(fake_openai), ChatRequest((user("hi"),), max_tokens=32))
    assert done.text == "ok"
    assert [("max_tokens" in b, b.get("max_completion_tokens")) for b in fake_openai.bodies] == [
        (True, None),
        (False, 32),
    ]
