"""A log filter that masks anything shaped like an API key, in every record."""

from __future__ import annotations

import logging
import re

API_KEY_PATTERN = re.compile(r"svc_sk_[A-Za-z0-9_\-]+")


def redact(text: str) -> str:
    return API_KEY_PATTERN.sub("svc_sk_[redacted]", text)


class RedactApiKeys(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "svc_sk_" in message:
            record.msg = redact(message)
            record.args = None
        return True
