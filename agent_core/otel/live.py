"""Live export: each run's spans go out as they close, through the official OpenTelemetry SDK and its
OTLP/HTTP exporter (the optional extra, requirements-otel.txt).

The spans are the file export's (mapping.py), so a live run and a downloaded one look the same in a
viewer. The SDK's BatchSpanProcessor sends from its own thread: adding a span only queues it, so a
slow or dead collector never blocks or fails a run. What went wrong is kept (`problem`) for the page
or the CLI to say once. Without the SDK, `exporter_for` says so and nothing else happens.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

from .. import events as ev
from .mapping import KIND_CLIENT, SCOPE_NAME, SCOPE_VERSION, SERVICE_NAME, Span, SpanBuilder

SDK_MISSING = (
    "live OpenTelemetry export needs the optional extra: pip install -r requirements-otel.txt "
    "(opentelemetry-sdk, opentelemetry-exporter-otlp-proto-http)"
)
#: Seconds one export request may take, retries included; the processor's thread waits, never the run.
EXPORT_TIMEOUT_S = 5.0


def sdk_available() -> bool:
    """True when the SDK and the OTLP/HTTP exporter can be imported."""
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter  # noqa: F401
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        return False
    return True


def traces_url(endpoint: str) -> str:
    """OTEL_EXPORTER_OTLP_ENDPOINT is a base URL; the traces signal lives at /v1/traces under it."""
    url = endpoint.strip().rstrip("/")
    return url if url.endswith("/v1/traces") else f"{url}/v1/traces"


class _Pipeline:
    """One endpoint's processor and exporter, shared by every run in the process (like a client)."""

    def __init__(self, url: str) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

        pipeline = self
        self.url = url
        self.problem: str | None = None
        self.sent = 0

        class Recording(SpanExporter):
            """Passes spans to the OTLP exporter and remembers whether the collector took them."""

            def __init__(self) -> None:
                self.inner = OTLPSpanExporter(endpoint=url, timeout=EXPORT_TIMEOUT_S)

            def export(self, spans):  # noqa: ANN001, ANN202 - the SDK's signature
                try:
                    result = self.inner.export(spans)
                except Exception as exc:  # a broken collector must not kill the processor's thread
                    pipeline.problem = f"{type(exc).__name__}: {exc}"
                    return SpanExportResult.FAILURE
                if result is SpanExportResult.SUCCESS:
                    pipeline.sent += len(spans)
                else:
                    pipeline.problem = f"the collector at {url} did not accept the spans"
                return result

            def shutdown(self) -> None:
                self.inner.shutdown()

            def force_flush(self, timeout_millis: int = 30000) -> bool:
                return True

        self.processor = BatchSpanProcessor(
            Recording(), schedule_delay_millis=200, export_timeout_millis=int(EXPORT_TIMEOUT_S * 1000)
        )

    def flush(self, timeout_s: float) -> bool:
        return self.processor.force_flush(int(timeout_s * 1000))


_PIPELINES: dict[str, _Pipeline] = {}
_LOCK = threading.Lock()


def pipeline_for(endpoint: str) -> _Pipeline:
    url = traces_url(endpoint)
    with _LOCK:
        if url not in _PIPELINES:
            _PIPELINES[url] = _Pipeline(url)
        return _PIPELINES[url]


class RunExporter:
    """Feeds one run's events to the span mapping and hands each closed span to the SDK."""

    def __init__(
        self,
        endpoint: str,
        run_id: str,
        config: dict[str, Any],
        secrets: Iterable[str] = (),
        start_ns: int | None = None,
        fork: dict[str, Any] | None = None,
    ) -> None:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope

        self.pipeline = pipeline_for(endpoint)
        self.builder = SpanBuilder(run_id, config, time.time_ns() if start_ns is None else start_ns, fork)
        self.secrets = sorted({s for s in secrets if s and len(s) >= 8}, key=len, reverse=True)
        self.resource = Resource.create({"service.name": SERVICE_NAME})
        self.scope = InstrumentationScope(SCOPE_NAME, SCOPE_VERSION)
        self._lock = threading.Lock()
        self.closed = False
        #: how many events `add` has been given (tokens too)
        self.seen = 0

    def add(self, event: ev.Event) -> None:
        """Take in one event; spans it closes are queued for export. Never raises for the collector's sake."""
        with self._lock:
            self.seen += 1
            if self.closed:
                return
            for span in self.builder.add(event):
                self._send(span)
            if isinstance(event, ev.RunFinished):
                self.closed = True

    def close(self) -> None:
        """Send what is still open (a stopped run)."""
        with self._lock:
            if not self.closed:
                for span in self.builder.close():
                    self._send(span)
                self.closed = True

    def _clean(self, value: Any) -> Any:
        if isinstance(value, str):
            for secret in self.secrets:
                value = value.replace(secret, "[redacted]")
        elif isinstance(value, list):
            value = [self._clean(v) for v in value]
        return value

    def _send(self, span: Span) -> None:
        from opentelemetry.sdk.trace import Event, ReadableSpan
        from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

        def context(span_id: str) -> SpanContext:
            return SpanContext(
                int(span.trace_id, 16), int(span_id, 16), is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED)
            )

        def clean(attributes: dict[str, Any]) -> dict[str, Any]:
            return {k: self._clean(v) for k, v in attributes.items() if v is not None}

        status = (
            Status(StatusCode.ERROR, self._clean(span.error)) if span.error is not None else Status(StatusCode.UNSET)
        )
        readable = ReadableSpan(
            name=span.name,
            context=context(span.span_id),
            parent=context(span.parent_id) if span.parent_id else None,
            resource=self.resource,
            attributes=clean(span.attributes),
            events=[Event(e.name, clean(e.attributes), e.time_ns) for e in span.events],
            kind=SpanKind.CLIENT if span.kind == KIND_CLIENT else SpanKind.INTERNAL,
            status=status,
            start_time=span.start_ns,
            end_time=span.end_ns,
            instrumentation_scope=self.scope,
        )
        try:
            self.pipeline.processor.on_end(readable)
        except Exception as exc:  # pragma: no cover - the SDK's queue only drops when full
            self.pipeline.problem = f"{type(exc).__name__}: {exc}"


def exporter_for(
    endpoint: str | None,
    run_id: str,
    config: dict[str, Any],
    secrets: Iterable[str] = (),
    fork: dict[str, Any] | None = None,
) -> tuple[RunExporter | None, str | None]:
    """(an exporter for this run, None) when an endpoint is set and the SDK is installed; else
    (None, why not) — why is None when no endpoint is set, since then there is nothing to say."""
    if not endpoint:
        return None, None
    if not sdk_available():
        return None, SDK_MISSING
    return RunExporter(endpoint, run_id, config, secrets, fork=fork), None


def problem(endpoint: str) -> str | None:
    """What went wrong sending to `endpoint` in this process, if anything did."""
    pipeline = _PIPELINES.get(traces_url(endpoint))
    return pipeline.problem if pipeline else None


def flush(endpoint: str, timeout_s: float = EXPORT_TIMEOUT_S) -> bool:
    """Wait (at most `timeout_s`) for the queued spans to go; True when the collector took them all."""
    pipeline = _PIPELINES.get(traces_url(endpoint))
    if pipeline is None:
        return True
    done = pipeline.flush(timeout_s)
    return done and pipeline.problem is None
