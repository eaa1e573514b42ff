"""The one sidebar every page shares: run language, which model answers, and how fast the offline one
streams. `model_router()` is the only place a page gets its models from.

The API key comes from secrets or the environment, or from a password field typed for this session
only: it lives in this session's state, is never written anywhere, never shown, and is passed to
exporters so it is redacted should it ever appear in a trace. A server key goes only to the origin it
was configured for (agent_core.endpoints): a URL typed here gets the key typed here, or none.

When the operator locks the endpoints (a served room), the provider box and the URL and key fields
give way to a choice among the operator's endpoints and their models.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets as _random

import streamlit as st

from agent_core import ModelRouter, OfflineModel, endpoints
from agent_core.errors import ModelError
from agent_core.llm import PRESETS, OpenAICompatibleModel, test_connection
from agent_core.models import ChatModel
from agent_core.patterns import registry
from agent_core.settings import load_settings

from . import costs
from .i18n import t, words

OFFLINE = "offline"
LANGS = {"en": "English", "zh": "中文"}
#: Offline pacing: (tokens per second, seconds to the first token); labels are `sidebar.speeds.<id>`.
#: "instant" is for tests.
SPEEDS = {
    "instant": (0.0, 0.0),
    "fast": (200.0, 0.05),
    "watchable": (60.0, 0.15),
    "slow": (20.0, 0.3),
}
DEFAULT_SPEED = "watchable"
#: A connection test should answer fast or say why not; runs use the adapter's longer defaults.
TEST_TIMEOUT_S = 15.0

K_LANG, K_PROVIDER, K_URL, K_MODEL = "sb_lang", "sb_provider", "sb_base_url", "sb_model"
K_KEY, K_TEMP, K_SPEED, K_TEST = "sb_api_key", "sb_temperature", "sb_offline_speed", "sb_test_result"
#: where a typed key is held once entered; the password box is emptied so the browser never holds it again
K_KEY_HELD = "sb_api_key_held"
#: a locked room's choices: one of the operator's endpoints (or offline) and one of its models
K_ENDPOINT, K_ENDPOINT_MODEL = "sb_endpoint", "sb_endpoint_model"
#: Clients are cached across sessions, keyed by a digest of their key: an HMAC under a secret of this
#: process, so the cache's keys are no stand-in for the API key outside it. A client (and the key it
#: holds) leaves the cache an hour after it was made at the latest.
_DIGEST_SALT = _random.token_bytes(32)
CLIENT_TTL_S = 3600


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
    if endpoints_locked():
        offered = endpoints.operator_endpoints()
        state.setdefault(K_ENDPOINT, offered[0].id if offered else OFFLINE)
        state.setdefault(K_ENDPOINT_MODEL, "")
    state.setdefault(K_TEMP, None)
    state.setdefault(K_SPEED, DEFAULT_SPEED)
    for role in registry.role_names():
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


#: Select boxes whose labels are in the page's language, on any page: the provider and the offline
#: speed here (left alone, a switch to 中文 reset the speed slider to "instant"), the pattern
#: and scenario boxes (Playground, Compare lanes), Eval's patterns, Replay's examples, step mode's picks.
_RELABELLED = re.compile(
    r"sb_provider|sb_endpoint|sb_offline_speed|(pg|cmp\d?)_(variant|scenario)|ev_patterns|rp_example|"
    r"pg_step_(breaks|people)"
)


def _lang_changed() -> None:
    # Set again from a callback, a select box is sent its value and shows it in the new language; left
    # alone, the browser keeps showing the old language's label for the run that switched.
    state = _state()
    for key in [k for k in list(state.keys()) if isinstance(k, str) and _RELABELLED.fullmatch(k)]:
        state[key] = state[key]


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


def _role_label(name: str) -> str:
    """A role as the sidebar names it: its pattern's label for it, in the page's language."""
    found = registry.role(name)
    return found.label(current_lang()) if found is not None else name


def current_lang() -> str:
    """The run language chosen in the sidebar: "en" or "zh"."""
    return _state().get(K_LANG) or "en"


def endpoints_locked() -> bool:
    """True when the operator locks the endpoints: participants pick one of theirs, never type a URL."""
    return endpoints.endpoints_locked()


def is_offline() -> bool:
    if endpoints_locked():
        return _endpoint() is None
    return _state().get(K_PROVIDER, OFFLINE) == OFFLINE


def model_choices() -> list[str] | None:
    """The models a locked room's endpoint offers (a Compare lane picks among them); None when unlocked."""
    if not endpoints_locked():
        return None
    chosen = _endpoint()
    return list(chosen.models) if chosen is not None else []


def _endpoint() -> endpoints.Endpoint | None:
    """The operator's endpoint this session chose in a locked room; None for offline (or one gone)."""
    wanted = _state().get(K_ENDPOINT, OFFLINE)
    return next((e for e in endpoints.operator_endpoints() if e.id == wanted), None)


def _target() -> tuple[str, str, str | None] | None:
    """(base URL, model, key) the sidebar's settings send requests to; None for the offline model."""
    state = _state()
    if endpoints_locked():
        chosen = _endpoint()
        if chosen is None:
            return None
        return chosen.base_url, _offered(state.get(K_ENDPOINT_MODEL), chosen) or chosen.models[0], chosen.api_key
    if state.get(K_PROVIDER, OFFLINE) == OFFLINE:
        return None
    return (state.get(K_URL) or "").strip(), (state.get(K_MODEL) or "").strip(), api_key()


def _offered(name: object, chosen: endpoints.Endpoint) -> str:
    """`name` when the endpoint offers that model, else "" (a locked room sends no other model name)."""
    return name.strip() if isinstance(name, str) and name.strip() in chosen.models else ""


def temperature() -> float | None:
    """The sampling temperature for real endpoints (None = the server's default)."""
    value = _state().get(K_TEMP)
    return None if is_offline() or value is None else float(value)


def api_key() -> str | None:
    """The key a real endpoint gets: typed for this session, else the server's key for that URL's
    origin (none for a URL the server's keys were not configured for). A locked room's endpoint
    brings its own."""
    state = _state()
    if endpoints_locked():
        chosen = _endpoint()
        return chosen.api_key if chosen is not None else None
    held = state.get(K_KEY_HELD)
    if held:
        return held
    return _configured_key(state.get(K_PROVIDER, OFFLINE), state.get(K_URL, ""))


def secrets_to_redact() -> list[str]:
    """Every key exports must never contain: this session's and every key the server holds."""
    # and the operator's MCP server headers (bearer tokens)
    from agent_core.mcp.servers import header_values

    return list(
        dict.fromkeys(k for k in [_state().get(K_KEY_HELD), api_key(), *endpoints.server_keys(), *header_values()] if k)
    )


def model_problem() -> str | None:
    """Why the sidebar's settings cannot make a model call, or None."""
    if is_offline() or endpoints_locked():
        return None  # a locked room's endpoints come whole from the operator
    state = _state()
    url = (state.get(K_URL) or "").strip()
    if not url:
        return t("sidebar.need_url")
    if not (state.get(K_MODEL) or "").strip():
        return t("sidebar.need_model")
    preset = PRESETS.get(state.get(K_PROVIDER, ""))
    # A provider's key is needed at that provider's own host; another URL may need none (a local server).
    if (
        preset is not None
        and preset.needs_key
        and not api_key()
        and endpoints.origin(url) == endpoints.origin(preset.base_url)
    ):
        if preset.key_env:
            return t("sidebar.need_key_env", provider=provider_label(preset.id), env=preset.key_env)
        return t("sidebar.need_key", provider=provider_label(preset.id))
    return None


def model_router(model: str | None = None) -> ModelRouter:
    """The models the sidebar describes: the scripted offline model, or an endpoint per role.

    `model` names another model on the same endpoint to answer every role (a Compare lane's
    override); the offline model ignores it.
    """
    state = _state()
    target = _target()
    if target is None:
        tps, first = SPEEDS.get(state.get(K_SPEED, DEFAULT_SPEED), SPEEDS[DEFAULT_SPEED])
        return ModelRouter(OfflineModel(tps, first))
    url, default_name, key = target
    offered = model_choices()

    def allowed(name: object) -> str:  # in a locked room, only a model the operator offers
        text = name.strip() if isinstance(name, str) else ""
        return text if offered is None or text in offered else ""

    if model and allowed(model):
        return ModelRouter(_client(url, allowed(model), _digest(key), key))
    default = _client(url, default_name, _digest(key), key)
    by_role: dict[str, ChatModel] = {}
    for role in registry.role_names():
        name = allowed(state.get(role_key(role)))
        if name and name != default_name:
            by_role[role] = _client(url, name, _digest(key), key)
    return ModelRouter(default, by_role)


@st.cache_resource(max_entries=32, ttl=CLIENT_TTL_S, show_spinner=False)
def _client(base_url: str, model: str, key_digest: str, _api_key: str | None) -> OpenAICompatibleModel:
    # Clients (HTTP pools) are shared across reruns and sessions; the key is not hashed into the
    # cache key in clear — `key_digest` stands for it, and `_api_key` is excluded from hashing.
    return OpenAICompatibleModel(base_url, model, api_key=_api_key)


def _digest(key: str | None) -> str:
    return hmac.new(_DIGEST_SALT, key.encode(), hashlib.sha256).hexdigest() if key else ""


def _configured_key(provider: str, base_url: str) -> str | None:
    """The server's key for `base_url`: only one configured for that URL's scheme, host and port —
    whichever provider the box names (a preset's name never carries its key to another host)."""
    if provider == OFFLINE or not base_url:
        return None
    return endpoints.server_key_for(base_url)


def _run_test() -> None:
    state = _state()
    problem = model_problem()
    if problem:
        state[K_TEST] = ("problem", "")  # said at drawing time, in the language the page speaks then
        return
    target = _target()
    try:
        if target is None:
            model: ChatModel = OfflineModel()
        else:
            url, name, key = target
            model = OpenAICompatibleModel(url, name, api_key=key, timeout=TEST_TIMEOUT_S, max_retries=0)
        state[K_TEST] = ("ok", test_connection(model))
    except ModelError as exc:
        state[K_TEST] = ("error", str(exc))  # the technical detail, in English, under a translated headline


# --- drawing --------------------------------------------------------------------------------------


def render(*, locked: bool = False) -> None:
    """Draw the sidebar; `locked` disables it while a run is going (a change would cut the run)."""
    _init()
    with st.sidebar:
        st.segmented_control(
            t("sidebar.lang"),
            list(LANGS),
            format_func=LANGS.get,
            key=K_LANG,
            required=True,
            disabled=locked,
            persist_state="session",
            on_change=_lang_changed,
        )
        st.subheader(t("sidebar.model_head"), divider="gray")
        if endpoints_locked():
            _operator_settings(locked)
        else:
            providers = [OFFLINE, *PRESETS]
            # the labels are bound now: AppTest calls format_func again outside the script run
            labels = {p: provider_label(p) for p in providers}
            st.selectbox(
                t("sidebar.provider"),
                providers,
                format_func=labels.__getitem__,
                key=K_PROVIDER,
                disabled=locked,
                on_change=_provider_changed,
                persist_state="session",
            )
            if is_offline():
                _offline_settings(locked)
            else:
                _endpoint_settings(locked)
        st.button(
            t("sidebar.test"),
            key="sb_test",
            icon=":material/network_check:",
            on_click=_run_test,
            disabled=locked,
            use_container_width=True,
        )
        result = _state().get(K_TEST)
        if result:
            kind, detail = result
            if kind == "ok":
                st.success(t("sidebar.test_ok", detail=detail))
            elif kind == "problem":
                st.error(model_problem() or t("sidebar.test_settings_changed"))
            else:
                st.error(t("sidebar.test_failed", detail=detail))
        costs.price_editor(current_lang(), disabled=locked)


def provider_label(provider: str) -> str:
    """A provider's name in the page's language (a provider the catalogue lacks keeps its own label)."""
    if provider == OFFLINE:
        return t("sidebar.offline")
    return words("sidebar.providers").get(provider) or PRESETS[provider].label


def _offline_settings(locked: bool) -> None:
    st.badge(t("sidebar.offline_badge"), icon=":material/smart_toy:", color="violet")
    st.caption(t("sidebar.offline_caption"))
    speeds = words("sidebar.speeds")
    st.select_slider(
        t("sidebar.speed"),
        list(SPEEDS),
        format_func=speeds.__getitem__,
        key=K_SPEED,
        disabled=locked,
        help=t("sidebar.speed_help"),
        persist_state="session",
    )


def _endpoint_settings(locked: bool) -> None:
    state = _state()
    st.text_input(
        t("sidebar.base_url"),
        key=K_URL,
        disabled=locked,
        on_change=_clear_test,
        persist_state="session",
        placeholder="http://127.0.0.1:11434/v1",
    )
    st.text_input(
        t("sidebar.model"),
        key=K_MODEL,
        disabled=locked,
        on_change=_clear_test,
        persist_state="session",
        help=t("sidebar.model_help"),
    )
    preset = PRESETS.get(state[K_PROVIDER])
    at_preset = preset is not None and endpoints.origin(state[K_URL]) == endpoints.origin(preset.base_url)
    server_key = _configured_key(state[K_PROVIDER], state[K_URL])
    if server_key:
        hint = t("sidebar.key_configured")
    elif preset is not None and preset.needs_key and at_preset:
        hint = t("sidebar.key_required", provider=provider_label(preset.id))
    elif preset is not None and preset.needs_key:
        hint = t("sidebar.key_for_url")
    else:
        hint = t("sidebar.key_not_needed")
    held = _state().get(K_KEY_HELD)
    st.text_input(
        t("sidebar.api_key"),
        key=K_KEY,
        type="password",
        disabled=locked,
        on_change=_take_key,
        persist_state="session",
        placeholder=t("sidebar.key_held") if held else hint,
        help=t("sidebar.api_key_help"),
    )
    if held:
        row = st.container(horizontal=True, vertical_alignment="center")
        row.caption(t("sidebar.key_set", tail=held[-4:]))
        row.button(t("sidebar.forget"), key="sb_forget_key", on_click=_forget_key, disabled=locked, type="tertiary")
    elif not server_key and endpoints.server_keys():
        st.caption(t("sidebar.key_stays_home"))
    st.number_input(
        t("sidebar.temperature"),
        min_value=0.0,
        max_value=2.0,
        step=0.1,
        key=K_TEMP,
        disabled=locked,
        placeholder=t("sidebar.temperature_default"),
        persist_state="session",
    )
    with st.expander(t("sidebar.per_role")):
        st.caption(t("sidebar.per_role_help"))
        for role in registry.role_names():
            st.text_input(
                _role_label(role),
                key=role_key(role),
                disabled=locked,
                placeholder=_state()[K_MODEL],
                persist_state="session",
            )
    problem = model_problem()
    if problem:
        st.warning(problem)


def _operator_settings(locked: bool) -> None:
    """A locked room: one of the operator's endpoints (or offline) and one of its models; no URL, no key."""
    state = _state()
    offered = endpoints.operator_endpoints()
    ids = [OFFLINE, *(e.id for e in offered)]
    labels = {OFFLINE: t("sidebar.offline"), **{e.id: e.label for e in offered}}
    if state.get(K_ENDPOINT) not in ids:  # the operator's list changed under this session
        state[K_ENDPOINT] = ids[1] if len(ids) > 1 else OFFLINE
    st.selectbox(
        t("sidebar.endpoint"),
        ids,
        format_func=labels.__getitem__,
        key=K_ENDPOINT,
        disabled=locked,
        on_change=_clear_test,
        persist_state="session",
    )
    st.caption(t("sidebar.endpoints_locked"))
    chosen = _endpoint()
    if chosen is None:
        _offline_settings(locked)
        return
    models = list(chosen.models)
    if state.get(K_ENDPOINT_MODEL) not in models:
        state[K_ENDPOINT_MODEL] = models[0]
    st.selectbox(
        t("sidebar.model"),
        models,
        key=K_ENDPOINT_MODEL,
        disabled=locked,
        on_change=_clear_test,
        persist_state="session",
        help=t("sidebar.model_help"),
    )
    st.number_input(
        t("sidebar.temperature"),
        min_value=0.0,
        max_value=2.0,
        step=0.1,
        key=K_TEMP,
        disabled=locked,
        placeholder=t("sidebar.temperature_default"),
        persist_state="session",
    )
    if len(models) > 1:
        default = state[K_ENDPOINT_MODEL]
        names = {"": t("sidebar.role_default", model=default), **{m: m for m in models}}
        with st.expander(t("sidebar.per_role")):
            st.caption(t("sidebar.per_role_help"))
            for role in registry.role_names():
                if state.get(role_key(role)) not in names:
                    state[role_key(role)] = ""
                st.selectbox(
                    _role_label(role),
                    list(names),
                    format_func=names.__getitem__,
                    key=role_key(role),
                    disabled=locked,
                    persist_state="session",
                )
