"""Log lines: API keys masked in every record, the request id and user id on
every line, one JSON object per line (`LOG_FORMAT=json`) or plain text.

Three pieces, wired in settings.LOGGING on the one console handler:

- `RequestContext` (a filter) puts the current request id and user id
  (dashboard/observability/context.py) on each record that does not carry
  its own, so a line written deep in a task or the transport still says
  which request it belongs to.
- `RedactApiKeys` (a filter) masks anything shaped like an API key in the
  message and in every string given as an extra field.
- `JsonFormatter` / `TextFormatter` write the line, and mask keys once more
  in the finished line: a key inside an exception's text or a non-string
  extra (a dict) is caught there. Belt and braces: the transport never puts
  a key in a log call to begin with.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import Any

from dashboard.observability.context import current_request_id, current_user_id

# API keys, and the decision tokens of messages (dashboard/reach/decision_tokens.py: a token
# decides an approval, so the request line of its confirmation page must not keep it).
API_KEY_PATTERN = re.compile(r"(svc_sk_|wcdt_)[A-Za-z0-9_\-]+")
KEY_MARK = "svc_sk_"
TOKEN_MARK = "wcdt_"


def holds_secret(text: str) -> bool:
    return KEY_MARK in text or TOKEN_MARK in text


# What every LogRecord has: anything else on a record came as `extra=` and is
# written as a field of its own in JSON.
_RECORD_ATTRIBUTES = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}
# Fields the JSON line always has, in this order.
_FIRST_FIELDS = ("time", "level", "logger", "message", "request_id", "user_id")


def redact(text: str) -> str:
    return API_KEY_PATTERN.sub(r"\1[redacted]", text)


class RedactApiKeys(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if holds_secret(message):
            record.msg = redact(message)
            record.args = None
        fields = record.__dict__
        for name in fields.keys() - _RECORD_ATTRIBUTES:  # the extras only (a set difference: cheap)
            value = fields[name]
            if isinstance(value, str) and holds_secret(value):
                fields[name] = redact(value)
        return True


class RequestContext(logging.Filter):
    """The request id and user id of the work in hand, on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = current_request_id()
        if getattr(record, "user_id", None) is None:
            record.user_id = current_user_id()
        return True


def _masked(line: str) -> str:
    return redact(line) if holds_secret(line) else line


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message,
    request_id, user_id, then every extra field of the record (a request's
    view, method, status, duration_ms; a task's name, id, status...), and the
    exception's traceback as `exception`. Newlines inside values are escaped,
    so a traceback never splits a line; ASCII only, so no collector chokes
    on an encoding."""

    def format(self, record: logging.LogRecord) -> str:
        fields: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
            "user_id": getattr(record, "user_id", None),
        }
        extras = record.__dict__.keys() - _RECORD_ATTRIBUTES - fields.keys()
        for name in sorted(extras):
            fields[name] = record.__dict__[name]
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            fields["exception"] = record.exc_text
        if record.stack_info:
            fields["stack"] = self.formatStack(record.stack_info)
        return _masked(json.dumps(fields, default=str))


class TextFormatter(logging.Formatter):
    """`time level logger [request id] message` (`-` outside any request or task)."""

    def __init__(self, fmt: str | None = None, datefmt: str | None = None) -> None:
        super().__init__(fmt or "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s", datefmt)

    def formatMessage(self, record: logging.LogRecord) -> str:
        values = dict(record.__dict__)
        values["request_id"] = values.get("request_id") or "-"
        return self._style._fmt % values

    def format(self, record: logging.LogRecord) -> str:
        return _masked(super().format(record))


__all__ = ["API_KEY_PATTERN", "JsonFormatter", "RedactApiKeys", "RequestContext", "TextFormatter", "redact"]
