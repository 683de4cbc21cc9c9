"""Numbers read from a query or a form, checked at the edge.

`int(request.GET["x"])` raises on " ", "²" (a digit to `str.isdigit`, not
to `int`) or a 5,000-digit number, and a number the database cannot hold
fails later, in a query: each of these was a 500. These readers never raise.
"""

from __future__ import annotations

MAX_DATABASE_ID = 2**63 - 1  # a BigAutoField


def bounded_int(value: object, *, default: int, lowest: int = 0, highest: int) -> int:
    """`value` as an int clamped to [lowest, highest]; `default` when it is
    not a plain decimal number."""
    text = str(value if value is not None else "").strip()
    if not text or len(text) > 30 or not text.isascii() or not text.lstrip("-").isdigit():
        return default
    return max(lowest, min(highest, int(text)))


def database_id(value: object) -> int | None:
    """A row id posted in a form (the `pk` path converter's bounds), or None."""
    number = bounded_int(value, default=0, lowest=0, highest=MAX_DATABASE_ID + 1)
    return number if 0 < number <= MAX_DATABASE_ID else None
