"""Server-sent events of streamed turns and agent runs."""

from __future__ import annotations

import json

import httpx
import pytest

from dashboard.api import ServerSentEvent, errors


def event_stream(*events: tuple[str, object], request_id: str = "req_stream") -> httpx.Response:
    text = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
    return httpx.Response(
        200, content=text.encode(), headers={"Content-Type": "text/event-stream", "X-Request-Id": request_id}
    )


def test_events_are_parsed_in_order_with_json_data(remote, service):
    route = remote.post("/v1/studio/website/turns").mock(
        return_value=event_stream(
            ("turn", {"id": "t1"}),
            ("plan", {"steps": ["a", "b"]}),
            ("status", {"stage": "generate"}),
            ("result", {"id": "t1", "status": "completed"}),
        )
    )

    events = list(
        service.stream("/v1/studio/website/turns", json={"message": "a site"}, idempotency_key="turn-key-00000000001")
    )

    assert events == [
        ServerSentEvent("turn", {"id": "t1"}),
        ServerSentEvent("plan", {"steps": ["a", "b"]}),
        ServerSentEvent("status", {"stage": "generate"}),
        ServerSentEvent("result", {"id": "t1", "status": "completed"}),
    ]
    sent = route.calls.last.request
    assert json.loads(sent.content) == {"message": "a site", "stream": True}
    assert sent.headers["Accept"] == "text/event-stream"
    assert sent.headers["Idempotency-Key"] == "turn-key-00000000001"
    assert sent.extensions["timeout"]["read"] == 800.0


def test_an_error_event_raises_stream_error_with_message_and_request_id(remote, service):
    remote.post("/v1/agents/a1/runs").mock(
        return_value=event_stream(
            ("started", {"thread_id": "th1"}),
            ("error", {"message": "The agent failed to answer.", "request_id": "req_evt"}),
        )
    )

    received = []
    with pytest.raises(errors.StreamError) as caught:
        for event in service.stream("/v1/agents/a1/runs", json={"message": "hello"}):
            received.append(event)

    assert received == [ServerSentEvent("started", {"thread_id": "th1"})]
    assert caught.value.message == "The agent failed to answer."
    assert caught.value.request_id == "req_evt"


def test_an_error_event_without_a_request_id_takes_the_responses(remote, service):
    remote.post("/v1/agents/a1/runs").mock(
        return_value=event_stream(("error", {"message": "no"}), request_id="req_hdr")
    )

    with pytest.raises(errors.StreamError) as caught:
        list(service.stream("/v1/agents/a1/runs", json={"message": "hello"}))

    assert caught.value.request_id == "req_hdr"


def test_an_error_status_before_the_stream_is_a_typed_error(remote, service):
    remote.post("/v1/studio/image/turns").respond(
        402, json={"error": {"type": "insufficient_credits", "message": "no credits"}, "request_id": "req_402"}
    )

    with pytest.raises(errors.InsufficientCreditsError) as caught:
        list(service.stream("/v1/studio/image/turns", json={"message": "a cat"}))

    assert caught.value.request_id == "req_402"


def test_opening_the_stream_is_retried_with_the_same_key(remote, service, slept):
    route = remote.post("/v1/studio/video/turns").mock(
        side_effect=[httpx.Response(503, text="unavailable"), event_stream(("result", {"status": "completed"}))]
    )

    events = list(service.stream("/v1/studio/video/turns", json={"message": "trim"}))

    assert events == [ServerSentEvent("result", {"status": "completed"})]
    assert route.call_count == 2
    assert len({call.request.headers["Idempotency-Key"] for call in route.calls}) == 1
    assert len(slept) == 1


def test_a_plain_json_answer_becomes_one_result_event(remote, service):
    remote.post("/v1/agents/a1/runs").respond(200, json={"answer": "hi", "status": "completed"})

    assert list(service.stream("/v1/agents/a1/runs", json={"message": "hello"})) == [
        ServerSentEvent("result", {"answer": "hi", "status": "completed"})
    ]


def test_data_that_is_not_json_is_kept_as_text(remote, service):
    text = 'event: status\ndata: warming up\n\nevent: result\ndata: {"ok": true}\n\n'
    remote.post("/v1/studio/app/turns").respond(
        200, content=text.encode(), headers={"Content-Type": "text/event-stream"}
    )

    events = list(service.stream("/v1/studio/app/turns", json={"message": "an app"}))

    assert events == [ServerSentEvent("status", "warming up"), ServerSentEvent("result", {"ok": True})]


class BrokenAfterOneEvent(httpx.SyncByteStream):
    def __iter__(self):
        yield b'event: turn\ndata: {"id": "t1"}\n\n'
        raise httpx.ReadError("connection reset by peer")


def test_a_connection_broken_mid_stream_is_an_api_connection_error(remote, service):
    route = remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(
            200, stream=BrokenAfterOneEvent(), headers={"Content-Type": "text/event-stream", "X-Request-Id": "req_mid"}
        )
    )

    received = []
    with pytest.raises(errors.ApiConnectionError) as caught:
        for event in service.stream("/v1/studio/website/turns", json={"message": "a site"}):
            received.append(event)

    assert received == [ServerSentEvent("turn", {"id": "t1"})]
    assert caught.value.request_id == "req_mid"
    assert route.call_count == 1
