"""The one sidebar every page shares: run language, which model answers, and how fast the offline one
streams. `model_router()` is the only place a page gets its models from.

The API key comes from secrets or the environment (agent_core.settings), or from a password field
typed for this session only: it lives in this session's state, is never written anywhere, never
shown, and is passed to exporters so it is redacted should it ever appear in a trace.
"""

from __future__ import annotations

import hashlib
import streamlit as st

from agent_core import ModelRouter, OfflineModel
from agent_core.errors import ModelError
from agent_core.llm import PRESETS, OpenAICompatibleModel, test_connection
from agent_core.models import ROLES, ChatModel
from agent_core.settings import load_settings

from . import costs

OFFLINE = "offline"
LANGS = {"en": "English", "zh": "中文"}
#: Offline pacing: (tokens per second, seconds to the first token, label). "instant" is for tests.
SPEEDS = {
    "instant": (0.0, 0.0, "Instant"),
    "fast": (200.0, 0.05, "Fast · 200 tok/s"),
    "watchable": (60.0, 0.15, "Watchable · 60 tok/s"),
    "slow": (20.0, 0.3, "Slow · 20 tok/s"),
}
DEFAULT_SPEED = "watchable"
#: A connection test should answer fast or say why not; runs use the adapter's longer defaults.
TEST_TIMEOUT_S = 15.0

K_LANG, K_PROVIDER, K_URL, K_MODEL = "sb_lang", "sb_provider", "sb_base_url", "sb_model"
K_KEY, K_TEMP, K_SPEED, K_TEST = "sb_api_key", "sb_temperature", "sb_offline_speed", "sb_test_result"
#: where a typed key is held once entered; the password box is emptied so the browser never holds it again
K_KEY_HELD = "sb_api_key_held"


def role_key(role: str) -> str:
    return f"sb_role_{role}"


def _state() -> dict:
    return st.session_state  # type: ignore[return-value]


def _init() -> None:
    """Seed the sidebar's widgets from secrets and the environment, once per session."""
    configured = load_settings()
    state = _state()
    state.setdefault(K_LANG, "en")
    state.setdefault(K_PROVIDER, OFFLINE if configured.is_offline else configured.provider)
    state.setdefault(K_URL, configured.base_url)
    state.setdefault(K_MODEL, configured.model)
    state.setdefault(K_KEY, "")
    state.setdefault(K_TEMP, None)
    state.setdefault(K_SPEED, DEFAULT_SPEED)
    for role in ROLES:
        state.setdefault(role_key(role), "")


def _provider_changed() -> None:
    state = _state()
    provider = state[K_PROVIDER]
    configured = load_settings()
    if provider == configured.provider and not configured.is_offline:
        state[K_URL], state[K_MODEL] = configured.base_url, configured.model
    elif provider in PRESETS:
        preset = PRESETS[provider]
        state[K_URL] = preset.base_url or state.get(K_URL, "")
        state[K_MODEL] = preset.default_model or state.get(K_MODEL, "")
    state.pop(K_TEST, None)


def _clear_test() -> None:
    _state().pop(K_TEST, None)


def _take_key() -> None:
    """Hold a typed key in this session's server-side state and empty the box, so the key is not
    sent back to the page on the next rerun (it would sit in the page source as the input's value)."""
    state = _state()
    typed = (state.get(K_KEY) or "").strip()
    if typed:
        state[K_KEY_HELD] = typed
    state[K_KEY] = ""
    _clear_test()


def _forget_key() -> None:
    _state().pop(K_KEY_HELD, None)
    _clear_test()


# --- what pages read ------------------------------------------------------------------------------

def current_lang() -> str:
    """The run language chosen in the sidebar: "en" or "zh"."""
    return _state().get(K_LANG) or "en"


def is_offline() -> bool:
    return _state().get(K_PROVIDER, OFFLINE) == OFFLINE


def temperature() -> float | None:
    """The sampling temperature for real endpoints (None = the server's default)."""
    value = _state().get(K_TEMP)
    return None if is_offline() or value is None else float(value)


def api_key() -> str | None:
    """The key a real endpoint gets: typed for this session, else from secrets or the environment."""
    state = _state()
    held = state.get(K_KEY_HELD)
    if held:
        return held
    return _configured_key(state.get(K_PROVIDER, OFFLINE), state.get(K_URL, ""))


def secrets_to_redact() -> list[str]:
    """Every key exports must never contain."""
    return [k for k in {api_key(), load_settings().api_key} if k]


def model_problem() -> str | None:
    """Why the sidebar's settings cannot make a model call, or None."""
    if is_offline():
        return None
    state = _state()
    if not (state.get(K_URL) or "").strip():
        return "Set a base URL in the sidebar (it usually ends in /v1)."
    if not (state.get(K_MODEL) or "").strip():
        return "Set a model name in the sidebar."
    preset = PRESETS.get(state.get(K_PROVIDER, ""))
    if preset is not None and preset.needs_key and not api_key():
        env = f" or set {preset.key_env}" if preset.key_env else ""
        return f"{preset.label} needs an API key: type it in the sidebar{env}."
    return None


def model_router(model: str | None = None) -> ModelRouter:
    """The models the sidebar describes: the scripted offline model, or an endpoint per role.

    `model` names another model on the same endpoint to answer every role (a Compare lane's
    override); the offline model ignores it.
    """
    state = _state()
    if is_offline():
        tps, first, _ = SPEEDS.get(state.get(K_SPEED, DEFAULT_SPEED), SPEEDS[DEFAULT_SPEED])
        return ModelRouter(OfflineModel(tps, first))
    url, key = state[K_URL].strip(), api_key()
    if model and model.strip():
        return ModelRouter(_client(url, model.strip(), _digest(key), key))
    model = state[K_MODEL].strip()
    default = _client(url, model, _digest(key), key)
    by_role: dict[str, ChatModel] = {}
    for role in ROLES:
        name = (state.get(role_key(role)) or "").strip()
        if name and name != model:
            by_role[role] = _client(url, name, _digest(key), key)
    return ModelRouter(default, by_role)


@st.cache_resource(max_entries=32, show_spinner=False)
def _client(base_url: str, model: str, key_digest: str, _api_key: str | None) -> OpenAICompatibleModel:
    # Clients (HTTP pools) are shared across reruns and sessions; the key is not hashed into the
    # cache key in clear — `key_digest` stands for it, and `_api_key` is excluded from hashing.
    return OpenAICompatibleModel(base_url, model, api_key=_api_key)


def _digest(key: str | None) -> str:
    return hashlib.sha256(key.encode()).hexdigest() if key else ""


def _configured_key(provider: str, base_url: str) -> str | None:
    if provider == OFFLINE or not base_url:
        return None
    configured = load_settings()
    if not configured.is_offline and configured.base_url.rstrip("/") == base_url.rstrip("/"):
        return configured.api_key
    # Another endpoint than the configured one gets only its own provider's key variable, so a
    # key is never sent to a provider it was not meant for.
    return load_settings(secrets={"provider": provider, "base_url": base_url}).api_key


def _run_test() -> None:
    state = _state()
    problem = model_problem()
    if problem:
        state[K_TEST] = ("error", problem)
        return
    try:
        if is_offline():
            model: ChatModel = OfflineModel()
        else:
            model = OpenAICompatibleModel(state[K_URL].strip(), state[K_MODEL].strip(), api_key=api_key(),
                                          timeout=TEST_TIMEOUT_S, max_retries=0)
        state[K_TEST] = ("ok", test_connection(model))
    except ModelError as exc:
        state[K_TEST] = ("error", str(exc))


# --- drawing --------------------------------------------------------------------------------------

def render(*, locked: bool = False) -> None:
    """Draw the sidebar; `locked` disables it while a run is going (a change would cut the run)."""
    _init()
    with st.sidebar:
        st.segmented_control("Language of tasks, prompts and offline replies", list(LANGS), format_func=LANGS.get,
                             key=K_LANG, required=True, disabled=locked, persist_state="session")
        st.subheader("Model", divider="gray")
        providers = [OFFLINE, *PRESETS]
        st.selectbox("Provider", providers, format_func=_provider_label, key=K_PROVIDER, disabled=locked,
                     on_change=_provider_changed, persist_state="session")
        if is_offline():
            _offline_settings(locked)
        else:
            _endpoint_settings(locked)
        st.button("Test connection", key="sb_test", icon=":material/network_check:", on_click=_run_test,
                  disabled=locked, use_container_width=True)
        result = _state().get(K_TEST)
        if result:
            (st.success if result[0] == "ok" else st.error)(result[1])
        costs.price_editor(current_lang(), disabled=locked)


def _provider_label(provider: str) -> str:
    return "Offline · scripted demo" if provider == OFFLINE else PRESETS[provider].label


def _offline_settings(locked: bool) -> None:
    st.badge("Scripted offline model", icon=":material/smart_toy:", color="violet")
    st.caption("No language model is called: the replies are scripted to replay the documented runs of "
               "the articles. Pick a provider to use a real model.")
    st.select_slider("Offline speed", list(SPEEDS), format_func=lambda s: SPEEDS[s][2], key=K_SPEED,
                     disabled=locked, help="How fast the scripted model streams, so a run can be watched.",
                     persist_state="session")


def _endpoint_settings(locked: bool) -> None:
    state = _state()
    st.text_input("Base URL", key=K_URL, disabled=locked, on_change=_clear_test, persist_state="session",
                  placeholder="http://127.0.0.1:11434/v1")
    st.text_input("Model", key=K_MODEL, disabled=locked, on_change=_clear_test, persist_state="session",
                  help="One model answers every role, unless bound below.")
    preset = PRESETS.get(state[K_PROVIDER])
    if _configured_key(state[K_PROVIDER], state[K_URL]):
        hint = "using the key from secrets / environment"
    else:
        hint = f"required by {preset.label}" if preset is not None and preset.needs_key else "not needed for local servers"
    held = _state().get(K_KEY_HELD)
    st.text_input("API key", key=K_KEY, type="password", disabled=locked, on_change=_take_key,
                  persist_state="session", placeholder="a key is set for this session" if held else hint,
                  help="Kept in this browser session only; never saved, shown or exported.")
    if held:
        row = st.container(horizontal=True, vertical_alignment="center")
        row.caption(f":material/key: key set for this session (…{held[-4:]})")
        row.button("Forget", key="sb_forget_key", on_click=_forget_key, disabled=locked, type="tertiary")
    st.number_input("Temperature", min_value=0.0, max_value=2.0, step=0.1, key=K_TEMP, disabled=locked,
                    placeholder="server default", persist_state="session")
    with st.expander("Models per role"):
        st.caption("Bind a role to another model on the same endpoint (e.g. a strong planner and a fast "
                   "executor). Empty = the model above.")
        for role in ROLES:
            st.text_input(role, key=role_key(role), disabled=locked, placeholder=_state()[K_MODEL],
                          persist_state="session")
    problem = model_problem()
    if problem:
        st.warning(problem)
