"""Remote data made storable: what the poller writes to the database.

A snapshot is whatever the service sent, and a JSON text may hold what the
database cannot store: PostgreSQL refuses `\\u0000` in text and in JSONB (in
strings and in keys), a lone surrogate (`"\\ud800"` parses to one) cannot be
encoded to UTF-8, and `NaN`/`Infinity` are not JSON at all. One such value
used to make every save of the row fail, so the row was claimed again and
the remote request repeated for ever. Everything is cleaned here first, on
every database, so SQLite and PostgreSQL store the same thing.
"""

from __future__ import annotations

import math
import re
from typing import Any

# Unpaired UTF-16 halves: Python strings can hold them, UTF-8 cannot.
_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def storable_text(value: str, *, limit: int | None = None) -> str:
    """`value` without NUL characters, lone surrogates replaced, cut to `limit`."""
    if "\x00" in value:
        value = value.replace("\x00", "")
    if _SURROGATE.search(value):
        value = _SURROGATE.sub(REPLACEMENT, value)
    if limit is not None and len(value) > limit:
        value = value[:limit]
    return value


def storable(value: Any) -> Any:
    """A JSON value every database can store: strings and keys cleaned
    (`storable_text`), non-finite numbers as null, anything else as text."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable_text(str(key)): storable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable(item) for item in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (bool, int)):
        return value
    return storable_text(str(value))
