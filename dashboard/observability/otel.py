"""OpenTelemetry traces, an optional extra (`pip install '.[otel]'`), on when
OTEL_ENABLED is true or OTEL_EXPORTER_OTLP_ENDPOINT is set.

One trace spans a web request, the tasks it sends and the calls to the
service they all make: Django's instrumentation opens the request's span,
Celery's carries the trace context in the task's headers (`traceparent`,
beside our `request_id`) and opens the task's span in the worker, and
httpx's opens a span per service call and sends `traceparent` to the
service. Spans go to the OTLP/HTTP exporter, which reads the standard
variables (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS...); OTEL_SERVICE_NAME
names the process (default `workspace-console`). Each request span carries
the console's request id (`console.request_id`), so a trace and the log
lines find each other.

Started from `DashboardConfig.ready()`: before any middleware is loaded (the
Django instrumentation adds its own first), in web processes, workers and
beat alike. The SDK's batch processor restarts its thread in a forked child
(gunicorn and Celery prefork workers), so starting before the fork is safe.

A task that the outbox's sweeper sends after a broker outage starts a trace
of its own (the request's trace context is not kept on the outbox row); its
request id still ties it to the request.
"""

from __future__ import annotations

from typing import Any

DEFAULT_SERVICE_NAME = "workspace-console"

_started = False


def _response_hook(span: Any, request: Any, response: Any) -> None:
    request_id = getattr(request, "request_id", None)
    if request_id and span is not None and span.is_recording():
        span.set_attribute("console.request_id", request_id)


def otel_init(*, span_processor: Any = None) -> bool:
    """Set the tracer provider and instrument Django, Celery and httpx, once
    per process. `span_processor` replaces the OTLP exporter (the tests give
    an in-memory one). False when the extra is not installed."""
    global _started
    if _started:
        return True
    try:
        from opentelemetry import trace
        from opentelemetry.instrumentation.celery import CeleryInstrumentor
        from opentelemetry.instrumentation.django import DjangoInstrumentor
        from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
        from opentelemetry.sdk.resources import OTELResourceDetector, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        return False

    if span_processor is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        span_processor = BatchSpanProcessor(OTLPSpanExporter())
    # OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES win over the default name.
    resource = Resource({"service.name": DEFAULT_SERVICE_NAME}).merge(OTELResourceDetector().detect())
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(span_processor)
    trace.set_tracer_provider(provider)
    DjangoInstrumentor().instrument(tracer_provider=provider, response_hook=_response_hook)
    CeleryInstrumentor().instrument(tracer_provider=provider)
    HTTPXClientInstrumentor().instrument(tracer_provider=provider)
    _started = True
    return True


def otel_stop() -> None:
    """Undo the instrumentation (tests; a process otherwise keeps it for life)."""
    global _started
    if not _started:
        return
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

    DjangoInstrumentor().uninstrument()
    CeleryInstrumentor().uninstrument()
    HTTPXClientInstrumentor().uninstrument()
    _started = False
