"""CSV files the console streams (audit export, records export).

Cells that a spreadsheet would run as a formula (starting with =, +, -, @,
a tab or a carriage return) are neutralised with a leading apostrophe: an
exported file never executes what a remote value or a person typed. A plain
number (-5, -5.25, +3, -1e3) is left alone: it is no formula, and a prefixed
one would be text that spreadsheet sums skip (refunds, credits).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator
from typing import Any

from django.http import StreamingHttpResponse

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# The whole cell one decimal number, nothing before or after it (fullmatch).
PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value: Any) -> str:
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


class _Echo:
    """A file-like object whose write returns the line, for a streamed csv.writer."""

    def write(self, value: str) -> str:
        return value


def csv_lines(header: list[str], rows: Iterable[Iterable[Any]]) -> Iterator[str]:
    """The file line by line: a BOM (so spreadsheets read UTF-8), the header, the rows."""
    writer = csv.writer(_Echo())
    yield "\ufeff" + writer.writerow([csv_cell(cell) for cell in header])
    for row in rows:
        yield writer.writerow([csv_cell(cell) for cell in row])


def csv_response(filename: str, lines: Iterator[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response
