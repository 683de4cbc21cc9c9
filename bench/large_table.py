"""Large table bench (#39, "Large tables"): a slice of rows deep in a table
of 50,000 records against the table's first page, side by side.

    .venv/bin/python bench/large_table.py [--records 50000] [--runs 20] [--json]

In one run it starts a sandbox (in-memory, in this process), creates an
object with one field of each of the 15 types, writes `--records` records
straight into its store (sandbox/testing.py `insert_records`), logs a
console user in with the demo key (Django test client, a throwaway SQLite
database), walks the cursors to row 40,000 once (the service's cursors only
go forward: the address of that slice is what a person's browser holds once
it scrolled there), and times, turn about:

- the records page (its first 100 rows, sorted by seats, what a person opens);
- the slice of 50 rows at row 40,000 (objects/views/records.py records_rows,
  as static/js/objects_window.js asks for it);
- the slice of 50 rows right after the first page (row 100);
- the raw records call a slice makes at row 40,000 (no console around it).

It reports the medians, the ratios slice at 40,000 / first page (the goal:
at most 1: a slice is part of what a page reads), slice at 40,000 / slice at
100 (how much depth costs; the service sorts and skips), and the remote
calls and HTML of each.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BROWSER, console_with_records, django_in, html_of, interleaved, median_ms, throwaway

DEEP = 40_000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=50_000, help="records in the table (default 50,000)")
    parser.add_argument("--runs", type=int, default=20, help="timed views of each kind (default 20)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    deep = min(DEEP, args.records * 4 // 5)  # row 40,000 of 50,000, or as far into fewer

    with throwaway() as tmp, django_in(tmp), console_with_records(records=args.records, bulk=True) as console:
        from dashboard.api.testing import RemoteCallCounter

        service, browser, key = console.service, console.browser, console.object_key
        page_url = console.records_url
        rows_url = f"/objects/{key}/records/rows/"

        # The cursor at row `deep`: the service's pages of 100 walked once (seats = 3 x i: sorted by it).
        cursor, read = None, 0
        while read < deep:
            params = {"sort": "seats", "limit": 100, **({"cursor": cursor} if cursor else {})}
            listed = service.page(f"/v1/objects/{key}/records", params=params, item_key="records")
            cursor, read = listed.next_cursor, read + len(listed.items)
        first_page = browser.get(page_url, {"sort": "seats", "limit": "100"}, **BROWSER)
        after_first = {k: v[-1] for k, v in parse_qs(urlsplit(_more_address(html_of(first_page))).query).items()}
        after_first.pop("start", None)
        deep_slice = {"sort": "seats", "limit": "50", "cursor": cursor, "at": str(deep)}

        def page():
            response = browser.get(page_url, {"sort": "seats", "limit": "100"}, **BROWSER)
            assert response.status_code == 200, response.status_code
            return response

        def slice_deep():
            response = browser.get(rows_url, deep_slice, HTTP_HX_REQUEST="true", **BROWSER)
            assert response.status_code == 200, response.status_code
            return response

        def slice_near():
            response = browser.get(rows_url, after_first, HTTP_HX_REQUEST="true", **BROWSER)
            assert response.status_code == 200, response.status_code
            return response

        def raw_deep():
            params = {"sort": "seats", "limit": 50, "cursor": cursor}
            return service.page(f"/v1/objects/{key}/records", params=params, item_key="records")

        for _ in range(2):  # warm up every path
            page(), slice_deep(), slice_near(), raw_deep()
        deep_html = html_of(slice_deep())
        assert f'data-at="{deep}"' in deep_html and f"Deal {deep:03d}<" in deep_html, "not the row asked for"
        calls = {}
        for name, step in (("page", page), ("slice_deep", slice_deep), ("slice_near", slice_near)):
            with RemoteCallCounter() as counter:
                response = step()
            calls[name] = (counter.count, len(html_of(response).encode()))

        samples = interleaved(
            {"page": page, "slice_deep": slice_deep, "slice_near": slice_near, "raw_deep": raw_deep},
            runs=args.runs,
        )

    med = {name: statistics.median(values) for name, values in samples.items()}
    figures = {
        "records": args.records,
        "runs": args.runs,
        "deep_row": deep,
        "page_median_ms": median_ms(samples["page"]),
        "slice_deep_median_ms": median_ms(samples["slice_deep"]),
        "slice_near_median_ms": median_ms(samples["slice_near"]),
        "raw_deep_call_median_ms": median_ms(samples["raw_deep"]),
        "ratio_slice_deep_to_page": round(med["slice_deep"] / med["page"], 2),
        "ratio_slice_deep_to_slice_near": round(med["slice_deep"] / med["slice_near"], 2),
        "ratio_slice_deep_to_raw_call": round(med["slice_deep"] / med["raw_deep"], 2),
        "remote_calls": {name: count for name, (count, _) in calls.items()},
        "html_kb": {name: round(size / 1000, 1) for name, (_, size) in calls.items()},
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"Large table bench: {args.records:,} records x 15 fields, {args.runs} runs each, interleaved")
        print(f"  records page (first 100 rows), median:        {figures['page_median_ms']:>8} ms")
        print(f"  slice of 50 at row {deep:,}, median:          {figures['slice_deep_median_ms']:>8} ms")
        print(f"  slice of 50 at row 100, median:               {figures['slice_near_median_ms']:>8} ms")
        print(f"  raw records call of the deep slice, median:   {figures['raw_deep_call_median_ms']:>8} ms")
        print(f"  ratio slice at {deep:,} / first page:         {figures['ratio_slice_deep_to_page']:>8}   (goal <= 1)")
        print(f"  ratio slice at {deep:,} / slice at 100:       {figures['ratio_slice_deep_to_slice_near']:>8}")
        print(f"  ratio slice at {deep:,} / its raw call:       {figures['ratio_slice_deep_to_raw_call']:>8}")
        print(f"  remote calls: {figures['remote_calls']}; HTML KB: {figures['html_kb']}")
    return 0


def _more_address(html: str) -> str:
    """The page's last row's address of the next slice (its `hx-get`)."""
    from html import unescape

    marker = 'class="records-more"'
    start = html.index(marker)
    begin = html.index('hx-get="', start) + len('hx-get="')
    return unescape(html[begin : html.index('"', begin)])


if __name__ == "__main__":
    sys.exit(main())
