"""Endpoint settings read from one place: Streamlit secrets, then the environment, then defaults.

Secrets may hold `base_url`, `model`, `api_key`, `provider` (a preset id, or "offline" to force
the offline model) at top level or under an `[llm]` table, as well as the env-style names below.
The environment gives `OPENAI_BASE_URL`, `OPENAI_MODEL`, `OPENAI_API_KEY`, `DASHSCOPE_API_KEY`,
`DEEPSEEK_API_KEY`. With no endpoint configured the app runs offline.

The `OPENAI_*` names travel together: `OPENAI_API_KEY` and `OPENAI_MODEL` are used only for OpenAI
itself or for the endpoint named by `OPENAI_BASE_URL`, so a stray OpenAI key is never sent to
another provider. A key alone does not take the app online.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .llm import PRESETS
from .redaction import MIN_SECRET_LENGTH, REDACTED, redact  # noqa: F401  (settings' callers redact through here too)

OFFLINE = "offline"


@dataclass(frozen=True)
class Settings:
    """Where the real model lives. `provider` is a preset id, "custom", or "offline"."""

    base_url: str = ""
    model: str = ""
    api_key: str | None = None
    provider: str = OFFLINE

    @property
    def is_offline(self) -> bool:
        """True when no endpoint is configured and the embedded offline model should answer."""
        return not self.base_url

    def __repr__(self) -> str:
        key = None if self.api_key is None else REDACTED
        return (
            f"Settings(base_url={self.base_url!r}, model={self.model!r}, api_key={key!r}, provider={self.provider!r})"
        )


def load_settings(secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Resolve settings, secrets > environment > defaults; omitted sources are read from the app."""
    sec = _flatten(_streamlit_secrets() if secrets is None else secrets)
    env = os.environ if environ is None else environ

    base_url, provider, paired = _endpoint(sec, env)
    if not base_url:
        return Settings()
    preset = PRESETS.get(provider)
    key_names = [preset.key_env] if preset and preset.key_env else []
    model_names: list[str] = []
    if paired:  # the OPENAI_* names travel together
        key_names.append("OPENAI_API_KEY")
        model_names.append("OPENAI_MODEL")
    api_key = _get(sec, "api_key", *key_names) or _get(env, *key_names)
    model = _get(sec, "model", *model_names) or _get(env, *model_names) or (preset.default_model if preset else "")
    return Settings(base_url=base_url, model=model, api_key=api_key or None, provider=provider)


#: Opt-in for the old in-process sandbox on a single-user laptop without bubblewrap (docs/security.md).
UNSAFE_SANDBOX_ENV = "AGENT_PLAYGROUND_UNSAFE_SANDBOX"


def unsafe_local_sandbox(environ: Mapping[str, str] | None = None) -> bool:
    """True when the environment opts in to running judged code without kernel isolation."""
    value = (os.environ if environ is None else environ).get(UNSAFE_SANDBOX_ENV, "")
    return value.strip().lower() in ("1", "true", "yes", "on")


#: Seconds a paused step-mode run waits for a click before it ends (agent_core.stepping). Unset, empty,
#: not a number or not above zero: the 30-minute default. The load benchmark shortens it.
STEP_IDLE_ENV = "AGENT_PLAYGROUND_STEP_IDLE_S"
IDLE_TIMEOUT_S = 30 * 60.0


def step_idle_timeout_s(environ: Mapping[str, str] | None = None) -> float:
    """How long a paused run waits for a person: AGENT_PLAYGROUND_STEP_IDLE_S, else 30 minutes."""
    value = (os.environ if environ is None else environ).get(STEP_IDLE_ENV, "").strip()
    try:
        seconds = float(value)
    except ValueError:
        return IDLE_TIMEOUT_S
    return seconds if 0 < seconds < float("inf") else IDLE_TIMEOUT_S


#: Judged runs this server process runs at once, across all sessions (agent_core.sandbox.admission).
#: Unset, empty, not a whole number or below 1: the CPUs this process may use.
JUDGE_SLOTS_ENV = "AGENT_PLAYGROUND_JUDGE_SLOTS"


def judge_slots(environ: Mapping[str, str] | None = None) -> int:
    """How many judged runs may run at once: AGENT_PLAYGROUND_JUDGE_SLOTS, else the usable CPUs."""
    value = (os.environ if environ is None else environ).get(JUDGE_SLOTS_ENV, "").strip()
    if value.isdigit() and int(value) >= 1:
        return int(value)
    try:
        return max(1, len(os.sched_getaffinity(0)))  # a container's cpuset, not the host's count
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


#: Megabytes of uploaded files the server holds in memory at once, across all sessions (pages/ui/uploads.py).
#: Unset, empty, not a whole number or below 1: 400.
UPLOADS_ENV = "AGENT_PLAYGROUND_UPLOADS_MB"
UPLOADS_MB = 400


def upload_server_mb(environ: Mapping[str, str] | None = None) -> int:
    """The server-wide bound on held uploads: AGENT_PLAYGROUND_UPLOADS_MB, else 400 MB."""
    value = (os.environ if environ is None else environ).get(UPLOADS_ENV, "").strip()
    return int(value) if value.isdigit() and int(value) >= 1 else UPLOADS_MB


#: Where live OpenTelemetry export goes (agent_core.otel.live): the OTLP/HTTP base URL, as the SDK's own
#: variable; the traces-only variable, a full URL, wins when both are set.
OTLP_ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"
OTLP_TRACES_ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"


def otlp_endpoint(secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The OTLP/HTTP endpoint for live export, secrets > environment; "" when none is set (no export)."""
    raw = _streamlit_secrets() if secrets is None else secrets
    table = raw.get("otel")
    if not isinstance(table, Mapping):
        table = {}
    sec = {k: v for k, v in raw.items() if not isinstance(v, Mapping)}
    env = os.environ if environ is None else environ
    return (
        _get(table, "traces_endpoint", "endpoint")
        or _get(sec, OTLP_TRACES_ENDPOINT_ENV, OTLP_ENDPOINT_ENV, "otel_exporter_otlp_endpoint")
        or _get(env, OTLP_TRACES_ENDPOINT_ENV, OTLP_ENDPOINT_ENV)
    )


def provider_for_url(base_url: str) -> str:
    """The preset id whose host and port match `base_url`, else "custom"."""
    target = _host_port(base_url)
    for preset in PRESETS.values():
        if preset.base_url and _host_port(preset.base_url) == target:
            return preset.id
    return "custom"


def mask_key(text: str, key: str | None) -> str:
    """Replace every occurrence of `key` in `text` with "sk-…redacted"."""
    return redact(text, [key])


def _endpoint(sec: Mapping[str, Any], env: Mapping[str, str]) -> tuple[str, str, bool]:
    """(base_url, provider, paired with the OPENAI_* names) from the first source that names one."""
    provider = _get(sec, "provider")
    if provider == OFFLINE:
        return "", OFFLINE, False
    if url := _get(sec, "base_url"):
        found = provider if provider in PRESETS else provider_for_url(url)
        return url.rstrip("/"), found, found == "openai"
    if url := _get(sec, "OPENAI_BASE_URL"):
        return url.rstrip("/"), provider_for_url(url), True
    preset = PRESETS.get(provider)
    if preset and preset.base_url:  # a preset named in secrets outranks the environment's URL
        return preset.base_url, preset.id, preset.id == "openai"
    if url := _get(env, "OPENAI_BASE_URL"):
        return url.rstrip("/"), provider_for_url(url), True
    return "", OFFLINE, False


#: how long a server that has no secrets file (or a broken one) is believed before Streamlit is asked
#: again. Without a file Streamlit looks for one at every read (the config's lock, each path, an
#: exception), and a script run reads the secrets a dozen times: with 40 seats running, those reads were
#: a sixth of the server's script time (tests/bench/bench_load.py --profile). A file written later is
#: seen within this time; one that exists Streamlit parses once and keeps.
NO_SECRETS_S = 1.0
#: (the st.secrets that had none, until when that is believed)
_no_secrets: tuple[Any, float] | None = None


def _streamlit_secrets() -> Mapping[str, Any]:
    # Only when the app already runs Streamlit: the core must never import it.
    global _no_secrets
    if "streamlit" not in sys.modules:
        return {}
    secrets = sys.modules["streamlit"].secrets
    known = _no_secrets
    if known is not None and known[0] is secrets and time.monotonic() < known[1]:
        return {}
    try:
        return secrets.to_dict()
    except Exception:  # StreamlitSecretNotFoundError without a secrets file, TOML errors, ...
        _no_secrets = (secrets, time.monotonic() + NO_SECRETS_S)
        return {}


def _flatten(secrets: Mapping[str, Any]) -> dict[str, Any]:
    """Top-level values, with an optional `[llm]` table taking precedence."""
    out = {k: v for k, v in secrets.items() if not isinstance(v, Mapping)}
    llm = secrets.get("llm")
    if isinstance(llm, Mapping):
        out.update(llm)
    return out


def _get(source: Mapping[str, Any], *names: str) -> str:
    for name in names:
        value = source.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    return ("127.0.0.1" if host == "localhost" else host), parts.port or (443 if parts.scheme == "https" else 80)
