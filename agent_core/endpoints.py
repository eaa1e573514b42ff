"""Where a server key may go, and the endpoints an operator offers a served room.

A *server key* is one the server holds: from `.streamlit/secrets.toml` or the environment (Streamlit
also copies root-level string secrets into `os.environ`, so the two are one source here). Each is
bound to the origin — scheme, host and port — it was configured for, and `server_key_for(url)` gives
it only to a URL of that origin. Any other URL gets no server key: its key is one a person typed for
their own session. The bindings:

- the configured endpoint (`settings.load_settings`): its key, to its base URL's origin;
- a provider's key variable (`OPENAI_API_KEY`, `DASHSCOPE_API_KEY`, `DEEPSEEK_API_KEY`, in secrets or
  the environment): to that provider's own host; `OPENAI_API_KEY` also to `OPENAI_BASE_URL`'s;
- each `[[endpoints]]` table of secrets (`base_url`, `models`, `api_key` or `api_key_env`, `label`):
  its key, to its origin.

A served room locks the endpoints with `lock_endpoints = true` under `[operator]` in secrets, or
`AGENT_PLAYGROUND_LOCK_ENDPOINTS=1`: the sidebar then offers only `operator_endpoints()` and their
models, and nobody can type a URL (docs/security.md, "Keys and endpoints").
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .llm import PRESETS
from .settings import REDACTED, _flatten, _get, _streamlit_secrets, load_settings

#: (scheme, host, port): what a request's destination is compared by
Origin = tuple[str, str, int]

LOCK_ENV = "AGENT_PLAYGROUND_LOCK_ENDPOINTS"
_YES = ("1", "true", "yes", "on")
#: a URL a key may follow is plain: no user info, backslash, percent sign, space or control character in
#: it, so every URL parser (ours, the HTTP client's, a proxy's) reads the same host out of it
_UNSAFE = re.compile(r"[\\@%\s\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Endpoint:
    """One endpoint the operator offers: a label, a base URL, the models participants may pick."""

    id: str
    label: str
    base_url: str
    models: tuple[str, ...]
    api_key: str | None = None

    def __repr__(self) -> str:
        key = None if self.api_key is None else REDACTED
        return (
            f"Endpoint(id={self.id!r}, label={self.label!r}, base_url={self.base_url!r}, "
            f"models={self.models!r}, api_key={key!r})"
        )


def origin(url: str) -> Origin | None:
    """The (scheme, host, port) a request to `url` goes to; None for anything but a plain http(s) URL.

    The HTTP client parses the URL too; where it would read another origin (a parser difference),
    the answer is None, so a key is never given on the strength of a reading the client does not share.
    """
    if not isinstance(url, str) or not url.strip():
        return None
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in ("http", "https") or not host or _UNSAFE.search(parts.netloc):
        return None
    found = (scheme, host, port or (443 if scheme == "https" else 80))
    client = _client_origin(url)
    return found if client is None or client == found else None


def _client_origin(url: str) -> Origin | None:
    """The origin as the HTTP client under the OpenAI SDK reads it (None when it is not installed)."""
    try:
        import httpx2
    except ImportError:
        return None
    try:
        parsed = httpx2.URL(url)
        host = parsed.host.lower()
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        return (parsed.scheme.lower(), host, port)
    except (httpx2.InvalidURL, ValueError, TypeError):  # a URL the client refuses: it sends nothing there
        return ("", "", 0)


def server_key_for(
    url: str, secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> str | None:
    """The server key configured for `url`'s origin, else None (a typed key is needed there)."""
    target = origin(url)
    if target is None:
        return None
    for bound, key in _bindings(secrets, environ):
        if bound == target:
            return key
    return None


def server_keys(secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """Every key the server holds (whatever its origin): exports and messages must never contain one."""
    sec, env = _sources(secrets, environ)
    keys = [key for _origin, key in _bindings(sec, env)]
    keys += [e.api_key for e in _table_endpoints(sec, env) if e.api_key]
    flat = _flatten(sec)
    for name in _KEY_NAMES:
        keys += [v for v in (_get(flat, name), _get(env, name)) if v]
    keys.append(load_settings(secrets=sec, environ=env).api_key or "")
    return list(dict.fromkeys(k for k in keys if k))


def endpoints_locked(secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> bool:
    """True when the operator locks the endpoints: `[operator] lock_endpoints` or AGENT_PLAYGROUND_LOCK_ENDPOINTS."""
    sec, env = _sources(secrets, environ)
    table = sec.get("operator")
    if isinstance(table, Mapping) and "lock_endpoints" in table:
        return _truthy(table["lock_endpoints"])
    return _truthy(env.get(LOCK_ENV, ""))


def operator_endpoints(
    secrets: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> list[Endpoint]:
    """The endpoints the operator offers: the `[[endpoints]]` tables, else the configured endpoint and
    each provider whose key the server holds (at its own URL and default model)."""
    sec, env = _sources(secrets, environ)
    table = _table_endpoints(sec, env)
    if table or isinstance(sec.get("endpoints"), list):
        return table
    out: list[Endpoint] = []
    configured = load_settings(secrets=sec, environ=env)
    if not configured.is_offline and configured.model:
        label = PRESETS[configured.provider].label if configured.provider in PRESETS else configured.base_url
        out.append(Endpoint("endpoint-0", label, configured.base_url, (configured.model,), configured.api_key))
    seen = {origin(e.base_url) for e in out}
    flat = _flatten(sec)
    for preset in PRESETS.values():
        key = preset.key_env and (_get(flat, preset.key_env) or _get(env, preset.key_env))
        if key and preset.default_model and origin(preset.base_url) not in seen:
            seen.add(origin(preset.base_url))
            out.append(Endpoint(f"endpoint-{len(out)}", preset.label, preset.base_url, (preset.default_model,), key))
    return out


# --- where each key is bound ----------------------------------------------------------------------

_KEY_NAMES = tuple(dict.fromkeys(p.key_env for p in PRESETS.values() if p.key_env))


def _sources(
    secrets: Mapping[str, Any] | None, environ: Mapping[str, str] | None
) -> tuple[Mapping[str, Any], Mapping[str, str]]:
    return (_streamlit_secrets() if secrets is None else secrets), (os.environ if environ is None else environ)


def _bindings(secrets: Mapping[str, Any] | None, environ: Mapping[str, str] | None) -> list[tuple[Origin, str]]:
    """(origin, key) for every server key, in the order a lookup tries them."""
    sec, env = _sources(secrets, environ)
    out: list[tuple[Origin | None, str | None]] = []
    out += [(origin(e.base_url), e.api_key) for e in _table_endpoints(sec, env)]
    configured = load_settings(secrets=sec, environ=env)
    if not configured.is_offline:
        out.append((origin(configured.base_url), configured.api_key))
    flat = _flatten(sec)
    for preset in PRESETS.values():
        if preset.key_env and preset.base_url:
            out.append((origin(preset.base_url), _get(flat, preset.key_env) or _get(env, preset.key_env)))
    # The OPENAI_* names travel together: the key also goes to the URL named beside it.
    paired_url = _get(flat, "OPENAI_BASE_URL") or _get(env, "OPENAI_BASE_URL")
    if paired_url:
        out.append((origin(paired_url), _get(flat, "OPENAI_API_KEY") or _get(env, "OPENAI_API_KEY")))
    return [(o, k) for o, k in out if o is not None and k]


def _table_endpoints(sec: Mapping[str, Any], env: Mapping[str, str]) -> list[Endpoint]:
    """The `[[endpoints]]` tables of secrets, each checked: a plain http(s) base URL and at least one model."""
    raw = sec.get("endpoints")
    if not isinstance(raw, list):
        return []
    out: list[Endpoint] = []
    for item in raw:
        if not isinstance(item, Mapping):
            continue
        url = _get(item, "base_url").rstrip("/")
        models = item.get("models")
        names = [m.strip() for m in models if isinstance(m, str) and m.strip()] if isinstance(models, list) else []
        if not names and _get(item, "model"):
            names = [_get(item, "model")]
        if origin(url) is None or not names:
            continue
        key = _get(item, "api_key") or (_get(env, _get(item, "api_key_env")) if _get(item, "api_key_env") else "")
        label = _get(item, "label") or url
        out.append(Endpoint(f"endpoint-{len(out)}", label, url, tuple(dict.fromkeys(names)), key or None))
    return out


def _truthy(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _YES
