"""Log lines: one JSON object per line under LOG_FORMAT=json (the default in
production), a readable line with the request id otherwise; API keys masked
in the message, in extra fields and in tracebacks, in both formats."""

from __future__ import annotations

import json
import logging

from dashboard.logging import JsonFormatter, RedactApiKeys, RequestContext, TextFormatter
from dashboard.observability.context import request_id_scope
from tests.observability.support import PRODUCTION, printed_by_a_fresh_process

KEY = "svc_sk_live_0123456789abcdefABCDEF"


def written(formatter: logging.Formatter, log: logging.Logger, do) -> str:
    """What `do(log)` writes through a handler set up as settings.LOGGING's."""
    import io

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestContext())
    handler.addFilter(RedactApiKeys())
    handler.setFormatter(formatter)
    log.addHandler(handler)
    log.propagate = False
    log.setLevel(logging.DEBUG)
    try:
        do(log)
    finally:
        log.removeHandler(handler)
    return stream.getvalue()


def test_a_json_line_has_the_fields_an_operator_filters_on():
    def do(log):
        with request_id_scope("req_console_json", user_id=42):
            log.info("two\nlines for %s", "someone", extra={"view": "live:status", "status": 204})

    (line,) = written(JsonFormatter(), logging.getLogger("tests.json.fields"), do).splitlines()
    record = json.loads(line)
    assert list(record)[:6] == ["time", "level", "logger", "message", "request_id", "user_id"]
    assert record["message"] == "two\nlines for someone"  # escaped: still one line
    assert record["request_id"] == "req_console_json" and record["user_id"] == 42
    assert record["view"] == "live:status" and record["status"] == 204
    assert record["logger"] == "tests.json.fields" and record["level"] == "INFO"


def test_keys_are_masked_in_messages_extras_and_tracebacks_in_json():
    def do(log):
        log.warning("key %s in the message", KEY, extra={"detail": f"Bearer {KEY}", "body": {"auth": KEY}})
        try:
            raise ValueError(f"refused {KEY}")
        except ValueError:
            log.exception("failed")

    output = written(JsonFormatter(), logging.getLogger("tests.json.keys"), do)
    assert KEY not in output
    first, second = (json.loads(line) for line in output.splitlines())
    assert first["message"] == "key svc_sk_[redacted] in the message"
    assert first["detail"] == "Bearer svc_sk_[redacted]" and first["body"] == {"auth": "svc_sk_[redacted]"}
    assert "ValueError: refused svc_sk_[redacted]" in second["exception"]


def test_a_text_line_has_the_request_id_and_masks_keys():
    def do(log):
        log.info("outside")
        with request_id_scope("req_console_text"):
            log.info("inside with %s", KEY)

    outside, inside = written(TextFormatter(), logging.getLogger("tests.text"), do).splitlines()
    assert outside.split()[2:5] == ["INFO", "tests.text", "[-]"]
    assert inside.split()[2:5] == ["INFO", "tests.text", "[req_console_text]"]
    assert inside.endswith("inside with svc_sk_[redacted]")


def test_production_logs_json_and_development_text_unless_told():
    formatter = "settings.LOGGING['handlers']['console']['formatter']"
    assert printed_by_a_fresh_process(formatter, **PRODUCTION) == "json"
    assert printed_by_a_fresh_process(formatter, **PRODUCTION, LOG_FORMAT="text") == "text"
    assert printed_by_a_fresh_process(formatter) == "text"
