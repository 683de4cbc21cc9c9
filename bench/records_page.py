"""Records page bench: the console's records page against the sandbox, and
against its peer, a Django admin changelist of the same rows.

    .venv/bin/python bench/records_page.py [--runs 30] [--json]

In one run it starts a sandbox (in-memory, in this process), creates an
object with 15 fields of mixed types (one of each type) and 100 records, logs
a console user in with the sandbox's demo key (Django test client, in
process, a throwaway SQLite database), fills the admin peer (bench/peer: a
throwaway model with the same 15 column types, registered in a throwaway
admin site, served by the same Django and middleware) with the same 100 rows,
and times, turn about:

- the console's records page (100 rows, all 15 columns), with the definition
  cached (the usual case) and with a cold cache;
- the raw records call the page makes (same query, the same transport, no
  console around it);
- the admin changelist of the 100 peer rows (all 15 columns and the two
  timestamps, 100 a page);
- the console's records page grouped by the stage, with the footers per
  group and for the table (amount summed, seats averaged), side by side with
  the page as it is (the goal: at most 1.3x).

Pages are asked for with `Accept-Encoding: gzip`, as browsers do, so both
pages are timed compressed, as they are sent.

It reports the medians, the ratios page / raw call and page / admin
changelist (the goal: at most 0.35), the HTML each page sends (uncompressed;
the goal: at most 150 KB for the console's) and the remote calls per page
view, counted with an httpx event hook on the console's one shared client.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    BROWSER,
    RECORDS,
    console_with_records,
    django_in,
    html_of,
    interleaved,
    median_ms,
    throwaway,
)

ADMIN_URL = "/bench/admin/bench_peer/deal/"


def fill_peer(records: int) -> None:
    """The same rows as the sandbox's records, in the peer model."""
    from bench.peer.models import Deal
    from sandbox.fixtures import sample_values

    rows = []
    for i in range(records):
        values = sample_values(i)
        rows.append(
            Deal(
                name=values["name"],
                notes=values["notes"],
                seats=values["seats"],
                amount=Decimal(str(values["amount"])),
                close_date=values["close_date"],
                meeting_at=values["meeting_at"],
                active=values["active"],
                email=values["email"],
                phone=values["phone"],
                website=values["website"],
                status=values["status"].lower(),
                tags=values["tags"],
                stage=values["stage"].lower(),
                logo=f"logos/{i}.png",
                contract=f"contracts/contract-{i}.pdf",
            )
        )
    Deal.objects.bulk_create(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30, help="timed views of each kind (default 30)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    with throwaway() as tmp, django_in(tmp), console_with_records() as console:
        from django.core.cache import cache

        from dashboard.api.testing import RemoteCallCounter
        from sandbox.fixtures import EVERY_TYPE_FIELDS

        fill_peer(console.records)

        def admin_changelist():
            response = console.browser.get(ADMIN_URL, **BROWSER)
            assert response.status_code == 200, response.status_code
            return response

        def cold_page():
            cache.clear()
            console.records_page()

        def grouped_page():
            response = console.browser.get(
                console.records_url,
                {"limit": str(console.records), "group": "stage", "agg.amount": "sum", "agg.seats": "average"},
                **BROWSER,
            )
            assert response.status_code == 200, response.status_code
            return response

        # Warm up every path (imports, template loading, connections).
        for _ in range(3):
            console.records_page()
            console.raw_records_call()
            admin_changelist()
            grouped_page()

        with RemoteCallCounter() as counter:
            cache.clear()
            response = console.records_page()
            cold_calls = counter.count
            counter.reset()
            console.records_page()
            warm_calls = counter.count
        rows = html_of(response).count('<th scope="row" class="record-title"')
        assert rows == RECORDS, f"expected {RECORDS} rows on the page, saw {rows}"
        page_bytes = len(html_of(response).encode())
        grouped_html = html_of(grouped_page())
        groups = grouped_html.count('<tbody class="records-group"')
        assert groups >= 2, f"expected the stage's groups, saw {groups}"
        grouped_rows = grouped_html.count('<th scope="row" class="record-title"><a')
        assert grouped_rows == RECORDS, f"expected {RECORDS} grouped rows, saw {grouped_rows}"
        admin_html = html_of(admin_changelist())
        admin_bytes = len(admin_html.encode())
        admin_rows = admin_html.count('<tr><td class="action-checkbox">')
        assert admin_rows == RECORDS, f"expected {RECORDS} rows in the changelist, saw {admin_rows}"

        samples = interleaved(
            {
                "raw": console.raw_records_call,
                "warm": console.records_page,
                "admin": admin_changelist,
                "cold": cold_page,
                "grouped": grouped_page,
            },
            runs=args.runs,
        )

    warm, cold, raw, admin = samples["warm"], samples["cold"], samples["raw"], samples["admin"]
    grouped = samples["grouped"]
    figures = {
        "records": RECORDS,
        "fields": len(EVERY_TYPE_FIELDS),
        "runs": args.runs,
        "page_median_ms_warm_cache": median_ms(warm),
        "page_median_ms_cold_cache": median_ms(cold),
        "raw_records_call_median_ms": median_ms(raw),
        "admin_changelist_median_ms": median_ms(admin),
        "ratio_page_warm_to_raw": round(statistics.median(warm) / statistics.median(raw), 2),
        "ratio_page_warm_to_admin": round(statistics.median(warm) / statistics.median(admin), 2),
        "grouped_page_median_ms": median_ms(grouped),
        "ratio_grouped_to_page_warm": round(statistics.median(grouped) / statistics.median(warm), 2),
        "groups": groups,
        "page_html_kb": round(page_bytes / 1000, 1),
        "admin_html_kb": round(admin_bytes / 1000, 1),
        "remote_calls_per_page_view_cold_cache": cold_calls,
        "remote_calls_per_page_view_warm_cache": warm_calls,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"Records page bench: {RECORDS} records x {len(EVERY_TYPE_FIELDS)} fields, {args.runs} runs each, interleaved"
        )
        print(f"  console records page, median (definition cached): {figures['page_median_ms_warm_cache']:>8} ms")
        print(f"  console records page, median (cold cache):        {figures['page_median_ms_cold_cache']:>8} ms")
        print(f"  raw records call it makes, median:                {figures['raw_records_call_median_ms']:>8} ms")
        print(f"  admin changelist of the same rows, median:        {figures['admin_changelist_median_ms']:>8} ms")
        print(f"  ratio page (cached) / raw call:                   {figures['ratio_page_warm_to_raw']:>8}")
        print(
            f"  ratio page (cached) / admin changelist:           {figures['ratio_page_warm_to_admin']:>8}   (goal <= 0.35)"
        )
        print(
            f"  HTML sent (uncompressed): page {figures['page_html_kb']} KB (goal <= 150), "
            f"admin changelist {figures['admin_html_kb']} KB"
        )
        print(
            f"  grouped by stage + footers, median:               {figures['grouped_page_median_ms']:>8} ms"
            f"   ({groups} groups)"
        )
        print(
            f"  ratio grouped page / page (cached):               {figures['ratio_grouped_to_page_warm']:>8}   (goal <= 1.3)"
        )
        print(f"  remote calls per page view: {cold_calls} (cold cache), {warm_calls} (warm cache)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
