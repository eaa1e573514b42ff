"""OpenTelemetry out and in: a run as GenAI-convention spans (OTLP/JSON), OTLP/JSON back to a trace,
and the optional live exporter.

    mapping.py    events -> spans, written in the OTLP/JSON mapping (plain Python, no dependency)
    importing.py  OTLP/JSON -> a trace Replay can draw; spans that do not map are listed, not dropped
    live.py       each run's spans sent as they close, through the OpenTelemetry SDK (requirements-otel.txt)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..trace import Trace
from .mapping import DEFAULT_START_NS, request_of, spans_of


def export_request(tr: Trace, start_ns: int | None = None) -> dict[str, Any]:
    """A trace as an ExportTraceServiceRequest (OTLP/JSON), ids derived from its run id."""
    spans = spans_of(tr.events, tr.run_id, tr.config, DEFAULT_START_NS if start_ns is None else start_ns, tr.fork)
    return request_of(spans)


def dumps(tr: Trace, secrets: Iterable[str] = (), start_ns: int | None = None, indent: int | None = None) -> str:
    """The OTLP/JSON text of a trace, with any of `secrets` (8 characters or more) redacted."""
    text = json.dumps(export_request(tr, start_ns), ensure_ascii=False, indent=indent)
    for secret in sorted({s for s in secrets if s and len(s) >= 8}, key=len, reverse=True):
        text = text.replace(secret, "[redacted]")
    return text


__all__ = ["DEFAULT_START_NS", "dumps", "export_request"]
