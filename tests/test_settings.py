"""Settings: secrets > environment > defaults, offline by default, keys never shown."""

from __future__ import annotations

import sys
import types

import pytest

from agent_core.settings import REDACTED, Settings, load_settings, mask_key, provider_for_url, redact

OPENAI_KEY = "sk-openai-aaaaaaaaaaaaaaaa"
DEEPSEEK_KEY = "sk-deepseek-bbbbbbbbbbbbbb"


def test_nothing_configured_means_offline():
    settings = load_settings(secrets={}, environ={})
    assert settings == Settings()
    assert settings.is_offline and settings.provider == "offline"


def test_a_key_alone_does_not_take_the_app_online():
    assert load_settings(secrets={}, environ={"OPENAI_API_KEY": OPENAI_KEY}).is_offline


def test_environment_configures_an_endpoint():
    env = {"OPENAI_BASE_URL": "http://gpu-box:9000/v1/", "OPENAI_MODEL": "qwen2.5-7b", "OPENAI_API_KEY": OPENAI_KEY}
    assert load_settings(secrets={}, environ=env) == Settings(
        base_url="http://gpu-box:9000/v1", model="qwen2.5-7b", api_key=OPENAI_KEY, provider="custom"
    )


def test_secrets_win_over_the_environment():
    secrets = {"base_url": "http://127.0.0.1:8000/v1", "model": "served-model", "api_key": "secret-from-toml"}
    env = {"OPENAI_BASE_URL": "https://api.openai.com/v1", "OPENAI_MODEL": "gpt-4o", "OPENAI_API_KEY": OPENAI_KEY}
    assert load_settings(secrets=secrets, environ=env) == Settings(
        base_url="http://127.0.0.1:8000/v1", model="served-model", api_key="secret-from-toml", provider="vllm"
    )


def test_env_style_names_in_secrets_work_too():
    secrets = {"OPENAI_BASE_URL": "https://api.openai.com/v1", "OPENAI_API_KEY": OPENAI_KEY}
    settings = load_settings(secrets=secrets, environ={})
    assert (settings.provider, settings.model, settings.api_key) == ("openai", "gpt-4o-mini", OPENAI_KEY)


def test_a_preset_in_secrets_takes_its_url_default_model_and_key_env():
    env = {"DASHSCOPE_API_KEY": "sk-dashscope-cccccccccc", "OPENAI_BASE_URL": "http://elsewhere/v1"}
    assert load_settings(secrets={"provider": "dashscope"}, environ=env) == Settings(
        base_url="https://dashscope.aliyuncs.com/compatible-mode/v1",
        model="qwen-plus",
        api_key="sk-dashscope-cccccccccc",
        provider="dashscope",
    )


def test_an_llm_table_in_secrets_overrides_top_level_values():
    secrets = {"model": "top", "llm": {"provider": "deepseek", "model": "deepseek-reasoner"}}
    settings = load_settings(secrets=secrets, environ={"DEEPSEEK_API_KEY": DEEPSEEK_KEY})
    assert (settings.provider, settings.model, settings.api_key) == ("deepseek", "deepseek-reasoner", DEEPSEEK_KEY)


def test_provider_key_is_found_from_the_base_url():
    env = {
        "OPENAI_BASE_URL": "https://api.deepseek.com/v1",
        "DEEPSEEK_API_KEY": DEEPSEEK_KEY,
        "OPENAI_API_KEY": OPENAI_KEY,
    }
    settings = load_settings(secrets={}, environ=env)
    assert (settings.provider, settings.model, settings.api_key) == ("deepseek", "deepseek-chat", DEEPSEEK_KEY)


def test_a_stray_openai_key_is_never_sent_to_another_provider():
    env = {"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_MODEL": "gpt-4o"}
    settings = load_settings(secrets={"provider": "deepseek"}, environ=env)
    assert settings.api_key is None and settings.model == "deepseek-chat"


def test_local_presets_need_no_key():
    settings = load_settings(secrets={}, environ={"OPENAI_BASE_URL": "http://localhost:11434/v1"})
    assert (settings.provider, settings.model, settings.api_key) == ("ollama", "llama3.1", None)


def test_offline_can_be_forced_from_secrets():
    env = {"OPENAI_BASE_URL": "https://api.openai.com/v1", "OPENAI_API_KEY": OPENAI_KEY}
    assert load_settings(secrets={"provider": "offline"}, environ=env).is_offline


@pytest.mark.parametrize(
    "url, provider",
    [
        ("https://api.openai.com/v1", "openai"),
        ("http://127.0.0.1:8080/v1", "llamacpp"),
        ("http://LOCALHOST:8000/v1", "vllm"),
        ("https://my-proxy.example.com/v1", "custom"),
    ],
)
def test_provider_for_url(url, provider):
    assert provider_for_url(url) == provider


# -- Streamlit secrets -------------------------------------------------------------------------------


class _Secrets:
    def __init__(self, data=None, error=None):
        self._data, self._error = data, error

    def to_dict(self):
        if self._error:
            raise self._error
        return dict(self._data)


def test_streamlit_secrets_are_read_only_when_streamlit_is_loaded(monkeypatch):
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}
    monkeypatch.delitem(sys.modules, "streamlit", raising=False)
    assert load_settings(environ=env).provider == "llamacpp"

    fake = types.SimpleNamespace(secrets=_Secrets({"base_url": "http://127.0.0.1:8000/v1", "model": "m"}))
    monkeypatch.setitem(sys.modules, "streamlit", fake)
    assert load_settings(environ=env).provider == "vllm"


def test_a_missing_secrets_file_falls_back_to_the_environment(monkeypatch):
    class StreamlitSecretNotFoundError(FileNotFoundError):
        pass

    fake = types.SimpleNamespace(secrets=_Secrets(error=StreamlitSecretNotFoundError("no secrets.toml")))
    monkeypatch.setitem(sys.modules, "streamlit", fake)
    assert load_settings(environ={"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}).provider == "llamacpp"


# -- keys never shown --------------------------------------------------------------------------------


def test_repr_masks_the_key():
    settings = Settings("https://api.openai.com/v1", "gpt-4o-mini", OPENAI_KEY, "openai")
    for text in (repr(settings), str(settings), f"{settings}", repr([settings])):
        assert OPENAI_KEY not in text and REDACTED in text
    assert "api_key=None" in repr(Settings())


def test_redact_replaces_every_key_everywhere():
    text = f"Bearer {OPENAI_KEY}; retry with {DEEPSEEK_KEY} or {OPENAI_KEY}"
    expected = f"Bearer {REDACTED}; retry with {REDACTED} or {REDACTED}"
    assert redact(text, [OPENAI_KEY, DEEPSEEK_KEY, None, ""]) == expected
    assert mask_key(f"key={OPENAI_KEY}", OPENAI_KEY) == f"key={REDACTED}"
    assert mask_key("no key here", None) == "no key here"


def test_redact_replaces_a_longer_key_whole_before_a_shorter_one():
    short, long = "abcdefgh1234", "abcdefgh1234-and-more"
    assert redact(f"[{long}]", [short, long]) == f"[{REDACTED}]"


def test_placeholder_keys_are_too_short_to_redact():
    assert redact("x marks the spot", ["x"]) == "x marks the spot"


def test_a_server_without_secrets_asks_streamlit_again_only_after_a_while(monkeypatch):
    """Without a secrets file Streamlit looks for one at every read, and a page reads the secrets a
    dozen times a script run: "none" is believed for NO_SECRETS_S, then asked again, so a file written
    while the server runs is seen within that time. Another st.secrets (AppTest's, a test's) is asked at once."""
    from agent_core import settings

    class StreamlitSecretNotFoundError(FileNotFoundError):
        pass

    clock = [1000.0]
    monkeypatch.setattr(settings.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(settings, "_no_secrets", None)
    reads = []

    class Counting(_Secrets):
        def to_dict(self):
            reads.append(self)
            return super().to_dict()

    none = Counting(error=StreamlitSecretNotFoundError("no secrets.toml"))
    monkeypatch.setitem(sys.modules, "streamlit", types.SimpleNamespace(secrets=none))
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}
    for _ in range(12):
        assert load_settings(environ=env).provider == "llamacpp"
    assert len(reads) == 1
    none._error, none._data = None, {"base_url": "http://127.0.0.1:8000/v1", "model": "m"}  # the file is written
    assert load_settings(environ=env).provider == "llamacpp"  # not yet looked for
    clock[0] += settings.NO_SECRETS_S
    assert load_settings(environ=env).provider == "vllm" and len(reads) == 2
    other = Counting(error=StreamlitSecretNotFoundError("no secrets.toml"))
    monkeypatch.setitem(sys.modules, "streamlit", types.SimpleNamespace(secrets=other))
    load_settings(environ=env)
    assert reads[-1] is other
