"""The import streams its file: parsing and checking 100,000 rows takes the
memory of a few rows, not of the file. Measured with tracemalloc in bytes
(never time): the peak for 100,000 rows stays within a small margin of the
peak for 10,000 rows, and far below the file's size."""

from __future__ import annotations

import tracemalloc

from objects.import_files import read_rows, scan
from objects.imports import RowChecker
from objects.models import ObjectJob
from sandbox.fixtures import PEOPLE_DEFINITION, PEOPLE_MAPPING, write_people_csv


def peak_bytes(path) -> tuple[int, int]:
    """(peak bytes while scanning then checking every row, rows seen)."""
    checker = RowChecker(definition=PEOPLE_DEFINITION, mapping=PEOPLE_MAPPING, zone=None)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        with open(path, "rb") as handle:
            _header, total, _sample = scan(handle)
            seen = 0
            for row in read_rows(handle):
                values, problems = checker.values(row.cells)
                assert values and not problems
                seen += 1
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == total
    return peak, seen


def test_a_hundred_thousand_rows_keep_memory_flat(tmp_path):
    small, large = tmp_path / "small.csv", tmp_path / "large.csv"
    write_people_csv(small, 10_000)
    write_people_csv(large, 100_000)
    small_peak, small_rows = peak_bytes(small)
    large_peak, large_rows = peak_bytes(large)
    assert (small_rows, large_rows) == (10_000, 100_000)
    size = large.stat().st_size
    assert size > 9_000_000
    # Ten times the rows, (almost) the same memory: nothing grows with the file.
    assert large_peak < small_peak * 1.25 + 64 * 1024, (small_peak, large_peak)
    assert large_peak < 1_000_000, large_peak


def test_a_resumed_read_starts_at_the_row_it_stopped(tmp_path):
    path = tmp_path / "rows.csv"
    write_people_csv(path, 50)
    with open(path, "rb") as handle:
        rows = list(read_rows(handle))
        stop = rows[19]
        resumed = list(read_rows(handle, start=stop.end, first_number=stop.number + 1))
    assert [r.number for r in resumed] == list(range(21, 51))
    assert resumed[0].cells == rows[20].cells
    assert ObjectJob.KIND_IMPORT == "import"
