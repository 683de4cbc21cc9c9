"""OpenTelemetry (the `otel` extra): one trace spans the web request, the
task it sends and the service call the task makes. Spans are kept by an
in-memory exporter; the task runs eagerly inside the request (the outbox
publishes once the start's transaction commits, as in production)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.idempotency import new_idempotency_key
from dashboard.live.models import TrackedOperation
from tests.observability.support import agent_named, printed_by_a_fresh_process

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")


def url_of(span) -> str:
    """The called address, under the attribute name of either HTTP semantic convention."""
    return str(span.attributes.get("url.full") or span.attributes.get("http.url") or "")


@pytest.fixture
def spans():
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from dashboard.observability.otel import otel_init, otel_stop

    exporter = InMemorySpanExporter()
    assert otel_init(span_processor=SimpleSpanProcessor(exporter))
    try:
        yield exporter
    finally:
        otel_stop()


def test_the_request_its_task_and_the_service_call_share_one_trace(
    transactional_db, spans, own_sandbox, sandbox_client, eager_celery, sandbox_access
):
    from opentelemetry.trace import SpanKind

    agent_id = agent_named(own_sandbox, "Customer FAQ helper")
    spans.clear()

    sent = sandbox_client.post(
        reverse("agents:chat_send", args=[agent_id]),
        {"message": "What does the Pro plan cost?", "idempotency_key": new_idempotency_key()},
    )

    assert sent.status_code == 302
    assert TrackedOperation.objects.get(kind="agents.invocation").status == "completed"
    finished = spans.get_finished_spans()
    (web,) = [span for span in finished if span.kind == SpanKind.SERVER]
    (task,) = [span for span in finished if span.name == "run/agents.stream_invocation"]
    calls = [span for span in finished if span.kind == SpanKind.CLIENT and url_of(span).endswith(f"/{agent_id}/runs")]
    assert calls, [(span.name, dict(span.attributes)) for span in finished]
    trace_ids = {web.context.trace_id, task.context.trace_id} | {span.context.trace_id for span in calls}
    assert len(trace_ids) == 1
    assert task.parent is not None and web.attributes["console.request_id"] == sent["X-Request-Id"]
    # The service was asked under the same request id as the trace's web request.
    assert sent["X-Request-Id"] in sandbox_access.request_ids()


def test_an_otlp_endpoint_turns_the_instrumentation_on_at_start():
    first = "settings.MIDDLEWARE[0]"
    assert printed_by_a_fresh_process(first) == "dashboard.observability.middleware.RequestIdMiddleware"
    instrumented = printed_by_a_fresh_process(first, OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9/")
    assert instrumented.startswith("opentelemetry.instrumentation.django")
