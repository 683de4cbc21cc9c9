"""Reading a scrape: the samples of Prometheus' text format, and label values that look like ids."""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

TOKEN = "metrics-token-for-tests-0123456789abcdef"
BEARER = {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}"}

# What a raw id looks like in a label value: a UUID, a long run of hex, a run
# of four digits or more (an HTTP status has three), a prefixed id with a
# digit in it (agt_123, run_9f2c...).
RAW_ID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|[0-9a-f]{12,}"
    r"|\d{4,}"
    r"|[A-Za-z]+_[A-Za-z0-9]*\d[A-Za-z0-9]*",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


def samples(text: str | bytes) -> list[Sample]:
    if isinstance(text, bytes):
        text = text.decode()
    return [
        Sample(sample.name, dict(sample.labels), sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    ]


def named(found: list[Sample], name: str, **labels: str) -> list[Sample]:
    return [s for s in found if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]


def value(found: list[Sample], name: str, **labels: str) -> float:
    """The sum of the samples of `name` with these labels (0 when none)."""
    return sum(s.value for s in named(found, name, **labels))


def label_sets(found: list[Sample], name: str) -> set[frozenset[str]]:
    return {frozenset(s.labels) for s in found if s.name == name}


def free_port() -> int:
    """A port nothing listens on, for a process a test starts (a worker's endpoint, a web)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
