"""Live OpenTelemetry export of the app's runs: every event a run stores is fed to that run's
span exporter (agent_core.otel.live) when an OTLP endpoint is set; the page says once if the optional
extra is missing or the collector refused or never answered. The run itself never waits for it."""

from __future__ import annotations

import threading

import streamlit as st

from agent_core import endpoints, settings
from agent_core import events as ev
from agent_core.otel import live

from .i18n import words

#: run id -> its exporter, for runs still going (process-wide: runs of every session feed one pipeline)
_EXPORTERS: dict[str, live.RunExporter | None] = {}
_LOCK = threading.Lock()
#: why live export is off though an endpoint is set (the extra is missing), said once per session
_WHY_NOT: dict[str, str] = {}
NOTED = "otel_noted"


def feed(run_id: str, config: dict, event: ev.Event, fork: dict | None = None) -> None:
    """Give one stored event of a run to its exporter (made at the run's first event, if an endpoint is set)."""
    with _LOCK:
        if run_id not in _EXPORTERS:
            endpoint = settings.otlp_endpoint()
            exporter, why_not = live.exporter_for(endpoint, run_id, config, secrets=endpoints.server_keys(), fork=fork)
            if why_not:
                _WHY_NOT[endpoint] = why_not
            _EXPORTERS[run_id] = exporter
        exporter = _EXPORTERS[run_id]
        if isinstance(event, ev.RunFinished):
            del _EXPORTERS[run_id]
    if exporter is not None:
        exporter.add(event)


def note(lang: str) -> None:
    """Say once per session, per endpoint, that live export is not working and why."""
    endpoint = settings.otlp_endpoint()
    if not endpoint:
        return
    w = words("telemetry", lang)
    noted = st.session_state.setdefault(NOTED, set())
    if endpoint in _WHY_NOT:
        message = w["missing"].format(endpoint=endpoint)
    elif live.problem(endpoint):
        message = w["failed"].format(endpoint=endpoint, problem=live.problem(endpoint)[:200])
    else:
        return
    if message not in noted:
        noted.add(message)
        st.warning(message, icon=":material/sensors_off:")
