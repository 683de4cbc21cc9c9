"""Path converters for what a URL may name: a remote id or key, a row of
the console's own database.

A URL is typed, pasted and edited by hand, so a bad one is a 404 page at
the router, before any view runs: never a 500 from a control character the
service cannot take (`%00`, `%0D%0A`) or a number the database cannot hold.

- `remote_id`: a remote id or key, as the service gives it (UUIDs by the
  contract, keys in snake_case; a page never fails to link an odd one), so
  anything printable without `/`, at most 200 characters. Views still
  quote it into remote paths with `dashboard.api.paths.api_path`.
- `pk`: a positive integer the database's big integer can hold.
"""

from __future__ import annotations

from django.urls import register_converter

MAX_PK = 2**63 - 1


class RemoteIdConverter:
    # No `/`, no C0 or C1 control character (NUL, CR, LF, DEL...).
    regex = r"[^/\x00-\x1f\x7f-\x9f]{1,200}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: object) -> str:
        return str(value)


class PkConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 0 < number <= MAX_PK:
            raise ValueError("out of range")  # the router reads a ValueError as "no match": 404
        return number

    def to_url(self, value: object) -> str:
        return str(int(str(value)))


register_converter(RemoteIdConverter, "remote_id")
register_converter(PkConverter, "pk")
