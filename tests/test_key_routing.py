"""A server key goes only to the origin it was configured for; a participant's URL gets the key the
participant typed, or none — by every route a request can take.

Keys are planted where a trainer puts them (the environment; `.streamlit/secrets.toml`, whose root-level
strings Streamlit also copies into `os.environ`; an `[[endpoints]]` table), the sidebar is pointed at
a raw listener on 127.0.0.1 that keeps every byte it is sent (the participant's URL), and the app is
driven through Test connection, a Playground run with a per-role model, a Compare lane with its own
model, and an Eval. The listener shares the host of the configured endpoint and differs only in its
port, so the test also shows that the port is part of where a key may go.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable

import pytest

from agent_core.endpoints import operator_endpoints, origin, server_key_for, server_keys
from agent_core.errors import BadRequestError
from agent_core.llm import OpenAICompatibleModel, test_connection
from tests.app_pages import open_page

HOST = "127.0.0.1"  # never anything else: nothing here may leave the machine


# --- a listener that keeps every byte ---------------------------------------------------------------


def chat_answer(head: bytes, body: bytes) -> bytes:
    """A whole (non-streamed) chat completion that keeps each pattern going: verdicts pass, plans have
    a step, everything else gets a short answer."""
    prompt = body.decode("utf-8", "replace")
    if '\\"steps\\"' in prompt or '"steps"' in prompt:
        text = json.dumps({"steps": [{"id": 1, "description": "Answer", "tool": None, "critical": False}]})
    elif "passed" in prompt:
        text = json.dumps({"passed": True, "feedback": None})
    elif "verdict" in prompt:
        text = json.dumps({"verdict": "PASS", "analysis": "fine", "suggestion": "", "feedback": ""})
    else:
        text = "def solution():\n    return 42\n"
    payload = json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "model": "trap",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
        }
    ).encode()
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (
        len(payload),
        payload,
    )


def redirect_to(location: str, status: int = 307) -> Callable[[bytes, bytes], bytes]:
    def answer(head: bytes, body: bytes) -> bytes:
        return (
            f"HTTP/1.1 {status} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ).encode()

    return answer


class Listener:
    """A raw TCP/HTTP server on 127.0.0.1, one thread, that records every request's bytes."""

    def __init__(self, answer: Callable[[bytes, bytes], bytes] = chat_answer) -> None:
        self.answer = answer
        self.requests: list[bytes] = []
        self._lock = threading.Lock()
        self._sock = socket.create_server((HOST, 0))
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="key-trap", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._sock.getsockname()[1]}/v1"

    @property
    def received(self) -> bytes:
        with self._lock:
            return b"\n".join(self.requests)

    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def authorizations(self) -> list[str]:
        with self._lock:
            heads = [r.split(b"\r\n\r\n", 1)[0].decode("latin-1") for r in self.requests]
        return [
            line.split(":", 1)[1].strip()
            for head in heads
            for line in head.split("\r\n")
            if line.lower().startswith("authorization:")
        ]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sock.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _addr = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                try:
                    self._one(conn)
                except OSError:
                    pass

    def _one(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _sep, body = data.partition(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
        with self._lock:
            self.requests.append(head + b"\r\n\r\n" + body)
        conn.sendall(self.answer(head, body))


@pytest.fixture
def trap():
    listener = Listener()
    yield listener
    listener.close()


@pytest.fixture
def home():
    """The endpoint the trainer configured (same host as the trap, another port)."""
    listener = Listener()
    yield listener
    listener.close()


# --- keys where a trainer puts them -----------------------------------------------------------------

ENV_KEYS = {
    "OPENAI_API_KEY": "sk-env-openai-PLANTED-000001",
    "DASHSCOPE_API_KEY": "sk-env-dashscope-PLANTED-02",
    "DEEPSEEK_API_KEY": "sk-env-deepseek-PLANTED-0003",
}
SECRET_KEY = "sk-secrets-home-PLANTED-00004"
TABLE_KEY = "sk-secrets-table-PLANTED-0005"
SECRET_PROVIDER_KEYS = {
    "OPENAI_API_KEY": "sk-secrets-openai-PLANTED-06",
    "DASHSCOPE_API_KEY": "sk-secrets-dash-PLANTED-007",
}
PLANTED = [*ENV_KEYS.values(), SECRET_KEY, TABLE_KEY, *SECRET_PROVIDER_KEYS.values()]


def plant(source: str, home_url: str, monkeypatch) -> dict:
    """Keys in the environment, or in secrets (root-level strings copied into os.environ, as Streamlit
    does); the configured endpoint is `home_url`. Returns the secrets for AppTest."""
    for name in (*ENV_KEYS, "OPENAI_BASE_URL", "OPENAI_MODEL", "api_key", "base_url", "model"):
        monkeypatch.delenv(name, raising=False)
    if source == "environment":
        for name, key in ENV_KEYS.items():
            monkeypatch.setenv(name, key)
        monkeypatch.setenv("OPENAI_BASE_URL", home_url)
        monkeypatch.setenv("OPENAI_MODEL", "home-model")
        return {}
    secrets = {
        "base_url": home_url,
        "model": "home-model",
        "api_key": SECRET_KEY,
        **SECRET_PROVIDER_KEYS,
        "endpoints": [
            {
                "label": "DeepSeek",
                "base_url": "https://api.deepseek.com/v1",
                "models": ["deepseek-chat"],
                "api_key": TABLE_KEY,
            }
        ],
    }
    for name, value in secrets.items():
        if isinstance(value, str):
            monkeypatch.setenv(name, value)  # what Streamlit does with a root-level string secret
    return secrets


def home_key(source: str) -> str:
    return ENV_KEYS["OPENAI_API_KEY"] if source == "environment" else SECRET_KEY


def app(page: str, secrets: dict, **state):
    at = open_page("pages/home.py", **state) if not secrets else None
    if secrets:
        from streamlit.testing.v1 import AppTest

        from tests.app_pages import APP

        at = AppTest.from_file(APP, default_timeout=60)
        at.secrets.update(secrets)
        at.session_state["sb_offline_speed"] = "instant"
        for key, value in state.items():
            at.session_state[key] = value
        at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def point_at(at, provider_label: str, url: str, model: str = "trap-model") -> None:
    """Pick a provider (its URL fills in), then type another URL over it, as a participant would."""
    at.sidebar.selectbox(key="sb_provider").select(provider_label).run()
    at.sidebar.text_input(key="sb_base_url").input(url).run()
    at.sidebar.text_input(key="sb_model").input(model).run()


def no_planted_key_in(data: bytes) -> None:
    for key in PLANTED:
        assert key.encode() not in data, f"a server key reached the participant's URL: {key}"
        assert key[10:].encode() not in data


SOURCES = ["environment", "secrets"]
PROVIDERS = ["OpenAI", "Qwen (DashScope)", "DeepSeek", "Custom OpenAI-compatible endpoint"]


# --- the class, unit by unit ------------------------------------------------------------------------


def test_a_key_goes_to_its_own_origin_only():
    env = {
        "OPENAI_API_KEY": ENV_KEYS["OPENAI_API_KEY"],
        "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1",
        "DEEPSEEK_API_KEY": ENV_KEYS["DEEPSEEK_API_KEY"],
    }
    assert server_key_for("https://api.openai.com/v1", {}, env) == ENV_KEYS["OPENAI_API_KEY"]
    assert server_key_for("https://API.OpenAI.com:443/other/path", {}, env) == ENV_KEYS["OPENAI_API_KEY"]
    assert server_key_for("http://127.0.0.1:8000/v1", {}, env) == ENV_KEYS["OPENAI_API_KEY"]  # the paired URL
    assert server_key_for("https://api.deepseek.com/v1", {}, env) == ENV_KEYS["DEEPSEEK_API_KEY"]
    for elsewhere in (
        "http://127.0.0.1:8001/v1",  # same host, another port
        "http://api.openai.com/v1",  # same host, another scheme (the key would go in clear)
        "https://api.openai.com:8443/v1",
        "https://api.openai.com.evil.example/v1",
        "https://evil.example/api.openai.com/v1",
        "https://dashscope.aliyuncs.com/v1",
    ):
        assert server_key_for(elsewhere, {}, env) is None, elsewhere


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com@evil.example/v1",
        "https://evil.example\\@api.openai.com/v1",
        "https://evil.example%2F@api.openai.com/v1",
        "https://api.openai.com\t.evil.example/v1",
        "https://api.openai.com:99999/v1",
        "ftp://api.openai.com/v1",
        "//api.openai.com/v1",
        "api.openai.com/v1",
        "https://api.openai.com\n/v1",
        "",
        "   ",
    ],
)
def test_an_ambiguous_url_gets_no_server_key(url):
    """URLs two parsers could read two ways (user info, backslashes, escapes, controls) get no key at all."""
    env = {"OPENAI_API_KEY": ENV_KEYS["OPENAI_API_KEY"]}
    assert server_key_for(url, {}, env) is None
    assert origin(url) is None


def test_every_held_key_is_known_for_redaction_and_endpoints_carry_their_own():
    secrets = {
        "base_url": "http://127.0.0.1:9/v1",
        "api_key": SECRET_KEY,
        **SECRET_PROVIDER_KEYS,
        "endpoints": [
            {"base_url": "https://api.deepseek.com/v1", "models": ["deepseek-chat"], "api_key_env": "ROOM_KEY"}
        ],
    }
    env = {**ENV_KEYS, "ROOM_KEY": TABLE_KEY}
    assert set(server_keys(secrets, env)) >= {
        SECRET_KEY,
        TABLE_KEY,
        *SECRET_PROVIDER_KEYS.values(),
        ENV_KEYS["DEEPSEEK_API_KEY"],
    }
    (room,) = operator_endpoints(secrets, env)
    assert (room.base_url, room.models, room.api_key) == ("https://api.deepseek.com/v1", ("deepseek-chat",), TABLE_KEY)
    assert TABLE_KEY not in repr(room)
    assert server_key_for("https://api.deepseek.com/v1", secrets, env) == TABLE_KEY  # the table's key comes first


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_from_the_configured_host_is_not_followed(status, trap):
    """The configured host answers 30x to the participant's listener: the key stays at home."""
    home = Listener(redirect_to(trap.url + "/chat/completions", status))
    try:
        model = OpenAICompatibleModel(home.url, "m", api_key=SECRET_KEY, max_retries=0, timeout=5)
        with pytest.raises(BadRequestError) as err:
            test_connection(model)
    finally:
        home.close()
    assert home.authorizations() == [f"Bearer {SECRET_KEY}"]
    assert trap.count() == 0, "the redirect was followed"
    assert f"HTTP {status}" in str(err.value) and "redirect" in str(err.value) and trap.url in str(err.value)
    assert SECRET_KEY not in str(err.value)


def test_the_cli_sends_a_configured_key_only_to_its_own_host(trap, monkeypatch, capsys):
    from agent_core.cli import main

    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEYS["OPENAI_API_KEY"])
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    main(["run", "--task", "hi", "--base-url", trap.url, "--model", "m", "--pattern", "react"])
    capsys.readouterr()
    assert trap.count() >= 1
    no_planted_key_in(trap.received)


# --- every route of the app -------------------------------------------------------------------------


@pytest.mark.parametrize("source", SOURCES)
def test_test_connection_sends_no_server_key_to_a_typed_url_whatever_the_provider(source, trap, home, monkeypatch):
    secrets = plant(source, home.url, monkeypatch)
    at = app("pages/playground.py", secrets)
    # the configured endpoint itself still gets its key
    at.sidebar.button(key="sb_test").click().run()
    assert home.authorizations() == [f"Bearer {home_key(source)}"]
    assert at.sidebar.success, [e.value for e in at.sidebar.error]
    for provider in PROVIDERS:
        before = trap.count()
        point_at(at, provider, trap.url)
        at.sidebar.button(key="sb_test").click().run()
        assert trap.count() == before + 1, provider
        assert any("type your own key" in c.value for c in at.sidebar.caption), "the sidebar says why"
    # user info naming the provider's host, before the listener's address
    point_at(at, "OpenAI", trap.url.replace("127.0.0.1", "api.openai.com@127.0.0.1"))
    at.sidebar.button(key="sb_test").click().run()
    assert trap.count() == len(PROVIDERS) + 1
    no_planted_key_in(trap.received)
    assert not at.exception


@pytest.mark.parametrize("source", SOURCES)
def test_runs_compare_lanes_and_eval_send_no_server_key_to_a_typed_url(source, trap, home, monkeypatch):
    secrets = plant(source, home.url, monkeypatch)
    # Playground: the OpenAI preset's name over the participant's URL, a per-role model for the critic
    at = app("pages/playground.py", secrets)
    point_at(at, "OpenAI", trap.url)
    at.sidebar.text_input(key="sb_role_critic").input("critic-model").run()
    at.selectbox(key="pg_variant").select("reflection").run()
    at.button(key="pg_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    playground = trap.count()
    assert playground >= 2 and b'"critic-model"' in trap.received, "the run and its critic reached the listener"
    # Compare: a lane asking its own model
    at.switch_page("pages/compare.py").run()
    at.segmented_control(key="cmp_count").set_value(2).run()
    at.text_input(key="cmp1_model").input("lane-model").run()
    at.button(key="cmp_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    compare = trap.count()
    assert compare > playground and b'"lane-model"' in trap.received
    # Eval: one task on a pattern that calls the model
    at.switch_page("pages/eval.py").run()
    at.multiselect(key="ev_patterns").set_value(["react"]).run()
    at.number_input(key="ev_limit").set_value(1).run()
    at.button(key="ev_run").click().run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    assert trap.count() > compare, ("the evaluation reached the listener", at.session_state["ev_rows"])
    no_planted_key_in(trap.received)
    assert home.count() == 0


def test_a_typed_key_goes_with_a_typed_url_and_a_cached_client_never_lends_it_to_another_session(
    trap, home, monkeypatch
):
    typed = "sk-typed-by-participant-A-0123"
    plant("environment", home.url, monkeypatch)
    first = app("pages/playground.py", {})
    point_at(first, "OpenAI", trap.url)
    first.sidebar.text_input(key="sb_api_key").input(typed).run()
    first.sidebar.button(key="sb_test").click().run()
    first.button(key="pg_run").click().run()
    assert trap.authorizations() and set(trap.authorizations()) == {f"Bearer {typed}"}
    seen = trap.count()
    # another session, same URL and model, no key: the client cached for the first is not its client
    second = app("pages/playground.py", {})
    point_at(second, "Custom OpenAI-compatible endpoint", trap.url)
    second.button(key="pg_run").click().run()
    assert not second.exception, [e.message for e in second.exception]
    later = trap.authorizations()[seen:]
    assert later and all(typed not in a for a in later)
    no_planted_key_in(trap.received)


# --- a locked room ----------------------------------------------------------------------------------

ROOM_KEY = "sk-room-endpoint-PLANTED-0008"


def locked_secrets(home_url: str) -> dict:
    return {
        "operator": {"lock_endpoints": True},
        "endpoints": [
            {"label": "Room model", "base_url": home_url, "models": ["m-small", "m-big"], "api_key": ROOM_KEY}
        ],
    }


@pytest.mark.parametrize(
    "lang, endpoint_label, note", [("en", "Endpoint", "The trainer chose"), ("zh", "接口", "由讲师指定")]
)
def test_a_locked_room_offers_the_operators_endpoints_and_models_and_no_url_box(
    lang, endpoint_label, note, home, monkeypatch
):
    monkeypatch.delenv("AGENT_PLAYGROUND_LOCK_ENDPOINTS", raising=False)
    at = app("pages/playground.py", locked_secrets(home.url), sb_lang=lang)
    box = at.sidebar.selectbox(key="sb_endpoint")
    assert box.label == endpoint_label and box.options[1:] == ["Room model"]
    assert box.value == "endpoint-0"  # the operator's first endpoint, not offline
    assert at.sidebar.selectbox(key="sb_endpoint_model").options == ["m-small", "m-big"]
    keys = {w.key for w in at.sidebar.text_input}
    assert "sb_base_url" not in keys and "sb_api_key" not in keys and "sb_model" not in keys
    assert any(note in c.value for c in at.sidebar.caption)
    assert "sb_provider" not in {s.key for s in at.sidebar.selectbox}
    at.sidebar.button(key="sb_test").click().run()
    assert home.authorizations() == [f"Bearer {ROOM_KEY}"]


def test_a_locked_room_sends_nothing_elsewhere_even_with_forged_session_state(trap, home, monkeypatch):
    """A participant cannot type a URL in a locked room; state set behind the widgets' back (the old URL
    box's key, a model the operator does not offer) changes nothing."""
    at = app(
        "pages/playground.py",
        locked_secrets(home.url),
        sb_base_url=trap.url,
        sb_provider="openai",
        sb_api_key_held="sk-forged-participant-key-0000",
        sb_endpoint_model="gpt-very-expensive",
        sb_role_critic="another-expensive-one",
    )
    at.session_state["sb_base_url"] = trap.url  # not a widget in a locked room: any script run may find it
    at.run()
    at.selectbox(key="pg_variant").select("reflection").run()
    at.button(key="pg_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert trap.count() == 0
    assert home.count() >= 2 and set(home.authorizations()) == {f"Bearer {ROOM_KEY}"}
    models = {json.loads(r.split(b"\r\n\r\n", 1)[1])["model"] for r in home.requests}
    assert models <= {"m-small", "m-big"}
    # Compare: a lane picks among the operator's models, never types one
    at.switch_page("pages/compare.py").run()
    lane = at.selectbox(key="cmp1_model")
    assert lane.options[1:] == ["m-small", "m-big"]


def test_the_environment_alone_can_lock_a_room(home, trap, monkeypatch):
    monkeypatch.setenv("AGENT_PLAYGROUND_LOCK_ENDPOINTS", "1")
    plant("environment", home.url, monkeypatch)
    at = app("pages/playground.py", {})
    box = at.sidebar.selectbox(key="sb_endpoint")
    assert len(box.options) >= 2 and "sb_base_url" not in {w.key for w in at.sidebar.text_input}
    at.sidebar.button(key="sb_test").click().run()
    assert home.authorizations() == [f"Bearer {ENV_KEYS['OPENAI_API_KEY']}"]
    assert trap.count() == 0
