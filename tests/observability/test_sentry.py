"""Sentry, opt in: what leaves the process carries no API key. A key planted
in a local variable of a failing function, in a captured message, in a log
line that becomes an event and in a breadcrumb never reaches the transport
(a transport of the test's own keeps every envelope it is given)."""

from __future__ import annotations

import logging

import pytest
import sentry_sdk
from sentry_sdk.transport import Transport

from dashboard.observability.context import request_id_scope
from dashboard.observability.sentry import scrub_event, sentry_init
from tests.observability.support import printed_by_a_fresh_process

KEY = "svc_sk_sentry_0123456789abcdefXYZ"


class KeepEnvelopes(Transport):
    kept: list[bytes] = []

    def capture_envelope(self, envelope) -> None:
        type(self).kept.append(envelope.serialize())


@pytest.fixture
def sentry():
    KeepEnvelopes.kept = []
    sentry_init(dsn="https://public@sentry.invalid/1", environment="test", transport=KeepEnvelopes)
    try:
        yield KeepEnvelopes.kept
    finally:
        sentry_sdk.get_client().close()
        sentry_sdk.init()  # no DSN: inactive again for the tests that follow


def fails_with_a_key_in_hand(note: str) -> None:
    header = f"Bearer {note}"  # noqa: F841 (a local Sentry would show)
    raise RuntimeError("the service refused the call")


def test_no_key_leaves_in_locals_messages_log_events_or_breadcrumbs(sentry):
    with request_id_scope("req_console_sentry"):
        logging.getLogger("tests.sentry").info("breadcrumb with %s", KEY)
        try:
            fails_with_a_key_in_hand(KEY)
        except RuntimeError:
            sentry_sdk.capture_exception()
        sentry_sdk.capture_message(f"a message naming {KEY}")
        logging.getLogger("tests.sentry").error("a log line naming %s", KEY)

    assert sentry_sdk.get_client().should_send_default_pii() is False
    sent = b"".join(sentry)
    assert len(sentry) == 3  # the exception, the message, the error log line
    assert KEY.encode() not in sent
    # The events did go, masked where the key was, tagged with the request id.
    assert b"fails_with_a_key_in_hand" in sent and b"Bearer svc_sk_[redacted]" in sent
    assert b"a message naming svc_sk_[redacted]" in sent
    assert b"breadcrumb with svc_sk_[redacted]" in sent
    assert b"req_console_sentry" in sent


def test_request_headers_and_data_are_scrubbed_wherever_they_sit():
    event = {
        "request": {
            "headers": {"Authorization": "Basic dXNlcjpwYXNz", "X-Other": f"ok {KEY}"},
            "data": {"secret": KEY, "nested": [{"value": f"k={KEY}"}]},
            "cookies": "sessionid=abc",
        },
        "contexts": {"trace": {"headers": [["authorization", "Bearer anything"]]}},
        "extra": {"bytes": KEY.encode()},
    }

    cleaned = scrub_event(event)

    assert KEY not in repr(cleaned)
    assert cleaned["request"]["headers"]["Authorization"] == "[Filtered]"
    assert cleaned["request"]["headers"]["X-Other"] == "ok svc_sk_[redacted]"
    assert cleaned["request"]["data"]["nested"] == [{"value": "k=svc_sk_[redacted]"}]
    assert cleaned["contexts"]["trace"]["headers"] == [["authorization", "[Filtered]"]]


def test_settings_start_sentry_only_when_a_dsn_is_set():
    active = "__import__('sentry_sdk').get_client().is_active()"
    assert printed_by_a_fresh_process(active) == "False"
    assert printed_by_a_fresh_process(active, SENTRY_DSN="https://public@sentry.invalid/1") == "True"
