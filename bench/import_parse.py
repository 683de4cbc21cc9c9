"""CSV import bench: what the import's streamed reading costs, next to the
plain `csv` module, and the memory it holds for 10,000 and 100,000 rows.

    .venv/bin/python bench/import_parse.py [--runs 5] [--json]

One process, no database and no service (reading and checking rows is local
work). A file of 100,000 rows of six columns (about 10 MB) is written to a
throwaway folder, then, taken turn about:

- plain: `csv.reader` over the file opened as text (the floor: parsing only);
- streamed: `objects.import_files.read_rows`, which decodes line by line and
  remembers the byte offset of every next row (how a job step resumes);
- checked: `read_rows` and `RowChecker.values` on every row, with the
  object's field rules (what the dry run and the import do per row).

It reports the median seconds of each and the ratios streamed / plain and
checked / plain, then the peak bytes (tracemalloc) of the checked pass over
10,000 and 100,000 rows, beside the bytes of holding the parsed file in a
list (what reading it whole would cost). tests/objects/test_import_memory.py
asserts the same flatness in bytes.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import interleaved, throwaway
from sandbox.fixtures import PEOPLE_DEFINITION, PEOPLE_MAPPING, write_people_csv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
    import django

    django.setup()
    from objects.import_files import read_rows
    from objects.imports import RowChecker

    checker = RowChecker(definition=PEOPLE_DEFINITION, mapping=PEOPLE_MAPPING, zone=None)

    def plain(path: Path) -> int:
        with open(path, newline="", encoding="utf-8") as handle:
            return sum(1 for _ in csv.reader(handle)) - 1

    def streamed(path: Path) -> int:
        with open(path, "rb") as handle:
            return sum(1 for _ in read_rows(handle))

    def checked(path: Path) -> int:
        with open(path, "rb") as handle:
            return sum(1 for row in read_rows(handle) if not checker.values(row.cells)[1])

    def whole(path: Path) -> int:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        return len(rows)

    def peak(step, path: Path) -> int:
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            step(path)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    with throwaway() as tmp:
        small, large = Path(tmp) / "10k.csv", Path(tmp) / "100k.csv"
        write_people_csv(small, 10_000)
        write_people_csv(large, 100_000)
        assert plain(large) == streamed(large) == checked(large) == 100_000
        samples = interleaved(
            {"plain": lambda: plain(large), "streamed": lambda: streamed(large), "checked": lambda: checked(large)},
            runs=args.runs,
        )
        seconds = {name: round(statistics.median(values), 3) for name, values in samples.items()}
        report = {
            "file_bytes": large.stat().st_size,
            "median_seconds_100k": seconds,
            "ratio_streamed_to_plain": round(seconds["streamed"] / seconds["plain"], 2),
            "ratio_checked_to_plain": round(seconds["checked"] / seconds["plain"], 2),
            "peak_bytes_checked": {"10k": peak(checked, small), "100k": peak(checked, large)},
            "peak_bytes_whole_file_in_a_list": {"10k": peak(whole, small), "100k": peak(whole, large)},
        }
    report["ratio_peak_100k_to_10k"] = round(
        report["peak_bytes_checked"]["100k"] / report["peak_bytes_checked"]["10k"], 2
    )
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"100,000 rows ({report['file_bytes']:,} bytes), median of {args.runs} runs taken turn about:")
    for name, value in seconds.items():
        print(f"  {name:9} {value:.3f} s")
    print(
        f"  streamed / plain: {report['ratio_streamed_to_plain']}x, checked / plain: {report['ratio_checked_to_plain']}x"
    )
    print("Peak memory (tracemalloc):")
    print(f"  checked, 10,000 rows:   {report['peak_bytes_checked']['10k']:>12,} bytes")
    print(
        f"  checked, 100,000 rows:  {report['peak_bytes_checked']['100k']:>12,} bytes  ({report['ratio_peak_100k_to_10k']}x)"
    )
    print(f"  whole file in a list, 100,000 rows: {report['peak_bytes_whole_file_in_a_list']['100k']:>12,} bytes")


if __name__ == "__main__":
    main()
