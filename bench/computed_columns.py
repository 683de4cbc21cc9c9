"""Computed columns bench: the records page with three computed columns
beside the same page without them, side by side.

    .venv/bin/python bench/computed_columns.py [--runs 30] [--json]

In one run it starts a sandbox (in-memory, in this process) with an object of
15 fields of mixed types and 100 records (bench/common.py), adds a second
object with the same fields and the same 100 records and gives it three
computed columns (objects/computed.py), formulas a person would write: a
rounded division, a text joined from a field and a choice's label, a date
difference. Both records pages (100 rows, the definition cached) are timed
turn about; the goal is at most 1.3x. The remote calls per page view of
both are counted too: computed formulas add none.

Then the computed object's page sorted by a computed column (`Per seat`:
the console reads the filter's records up to the budget, computes and sorts
them, objects/computed_order.py) beside the same page sorted by a plain
field (`seats`: the service sorts), timed turn about in the same way; the
goal is at most 1.5x, and the remote calls of both are counted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BROWSER, RECORDS, console_with_records, django_in, html_of, interleaved, median_ms, throwaway

FORMULAS = [
    ("Per seat", "ROUND({Amount} / seats, 2)"),
    ("Label", 'name & " · " & {Status}'),
    ("Lead days", "DAYS({Close date}, {Meeting at})"),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30, help="timed views of each kind (default 30)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    with throwaway() as tmp, django_in(tmp), console_with_records() as console:
        from dashboard.api.testing import RemoteCallCounter
        from objects.models import ComputedColumn
        from sandbox.fixtures import create_every_type_object, sample_values

        other = create_every_type_object(console.service, name="Bench computed deals")
        for i in range(console.records):
            console.service.post(f"/v1/objects/{other['key']}/records", json={"values": sample_values(i)})
        for name, formula in FORMULAS:
            added = console.browser.post(
                f"/objects/{other['key']}/settings/computed/add/", {"name": name, "kind": "formula", "formula": formula}
            )
            assert added.status_code == 302, added.content[:500]
        computed_url = f"/objects/{other['key']}/records/"

        def computed_page():
            response = console.browser.get(computed_url, {"limit": str(console.records)}, **BROWSER)
            assert response.status_code == 200, response.status_code
            return response

        for _ in range(3):  # warm up every path (imports, templates, the definitions' cache)
            console.records_page()
            computed_page()

        html = html_of(computed_page())
        shown = html.count('class="records-computed-col')
        assert shown == len(FORMULAS), f"expected {len(FORMULAS)} computed columns, saw {shown}"
        rows = html.count('<th scope="row" class="record-title"')
        assert rows == RECORDS, f"expected {RECORDS} rows, saw {rows}"
        with RemoteCallCounter() as counter:
            console.records_page()
            plain_calls = counter.count
            counter.reset()
            computed_page()
            computed_calls = counter.count

        per_seat = f"computed:{ComputedColumn.objects.get(object_key=other['key'], name='Per seat').pk}"

        def sorted_page(sort: str):
            def view():
                response = console.browser.get(computed_url, {"limit": str(console.records), "sort": sort}, **BROWSER)
                assert response.status_code == 200, response.status_code
                return response

            return view

        by_field, by_computed = sorted_page("seats"), sorted_page(per_seat)
        by_field(), by_computed()
        with RemoteCallCounter() as counter:
            by_field()
            field_sort_calls = counter.count
            counter.reset()
            by_computed()
            computed_sort_calls = counter.count

        samples = interleaved(
            {
                "plain": console.records_page,
                "computed": computed_page,
                "by_field": by_field,
                "by_computed": by_computed,
            },
            runs=args.runs,
        )

    plain, computed = samples["plain"], samples["computed"]
    figures = {
        "records": RECORDS,
        "computed_columns": len(FORMULAS),
        "runs": args.runs,
        "page_median_ms": median_ms(plain),
        "page_with_computed_median_ms": median_ms(computed),
        "ratio_computed_to_page": round(statistics.median(computed) / statistics.median(plain), 2),
        "remote_calls_per_page_view": plain_calls,
        "remote_calls_per_page_view_with_computed": computed_calls,
        "sorted_by_field_median_ms": median_ms(samples["by_field"]),
        "sorted_by_computed_median_ms": median_ms(samples["by_computed"]),
        "ratio_computed_sort_to_field_sort": round(
            statistics.median(samples["by_computed"]) / statistics.median(samples["by_field"]), 2
        ),
        "remote_calls_sorted_by_field": field_sort_calls,
        "remote_calls_sorted_by_computed": computed_sort_calls,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"Computed columns bench: {RECORDS} records, {len(FORMULAS)} formula columns, {args.runs} runs, interleaved"
        )
        print(f"  records page, median:                       {figures['page_median_ms']:>8} ms")
        print(f"  records page with 3 computed columns:       {figures['page_with_computed_median_ms']:>8} ms")
        print(f"  ratio with / without:                       {figures['ratio_computed_to_page']:>8}   (goal <= 1.3)")
        print(f"  remote calls per page view: {plain_calls} without, {computed_calls} with")
        print(f"  sorted by a field (seats), median:          {figures['sorted_by_field_median_ms']:>8} ms")
        print(f"  sorted by a computed column (Per seat):     {figures['sorted_by_computed_median_ms']:>8} ms")
        print(
            f"  ratio computed sort / field sort:           {figures['ratio_computed_sort_to_field_sort']:>8}   (goal <= 1.5)"
        )
        print(f"  remote calls sorted: {field_sort_calls} by the field, {computed_sort_calls} by the computed column")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
