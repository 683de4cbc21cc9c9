"""Chart bench: what counting 10,000 records for a chart costs, next to
reading the same pages with nothing else done.

    .venv/bin/python bench/chart_count.py [--records 10000] [--runs 3] [--json]

In one run it starts a sandbox (in-memory, in this process), writes an object
with one field of each type and `--records` records straight into its store,
logs a console user in with the sandbox's demo key (a throwaway SQLite
database), and times, turn about:

- raw: every page of the records (100 a page, oldest first), read with the
  console's transport, nothing counted (the floor: the service's own time);
- count: the chart's tally (objects/tallies.py) from the first page to the
  last, its steps run one after the other in this process as the worker
  would (claim the row, read a bounded chunk of pages, store the sums);
- page: the chart page once counted (the cached tally rendered as bars and
  a table: no remote read of records).

It reports the median seconds of each, the ratio count / raw (what the
counting adds over the reading), the pages the count read (the minimum is
records / 100) and the remote calls of a page view once counted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import PASSWORD, django_in, interleaved, throwaway


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with throwaway() as tmp, django_in(tmp):
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.test import Client

        from dashboard.api import ServiceClient
        from dashboard.jobs import engine
        from dashboard.keys.testing import store_sandbox_key
        from objects import tallies
        from objects.models import RecordTally
        from sandbox.fixtures import create_every_type_object, sample_values
        from sandbox.testing import start_sandbox

        handle = start_sandbox(time_scale=0.002)
        try:
            settings.SERVICE_BASE_URL = handle.base_url
            service = ServiceClient(api_key=handle.demo_key)
            obj = create_every_type_object(service, name="Bench chart deals")
            handle.insert_records(obj["id"], [sample_values(i) for i in range(args.records)])
            user = get_user_model().objects.create_user(username="bench", password=PASSWORD)
            store_sandbox_key(user, service, handle.demo_key)
            browser = Client()
            browser.force_login(user)
            url = f"/objects/{obj['key']}/chart/?group=stage&measure=sum&value=amount"
            path = f"/v1/objects/{obj['key']}/records"

            sent: list[int] = []
            engine.send_step = lambda kind, tally_id, countdown=None: sent.append(tally_id)  # the worker, in process

            def raw() -> int:
                return sum(1 for _ in service.paginate(path, params={"limit": 100, "sort": "created_at"}))

            def count() -> int:
                RecordTally.objects.all().delete()
                assert browser.get(url).status_code == 200
                while sent:
                    engine.job_step(tallies.KIND, sent.pop(0))
                tally = RecordTally.objects.get()
                assert tally.status == RecordTally.DONE and tally.records_read == args.records
                return tally.pages_read

            def page() -> None:
                assert browser.get(url).status_code == 200

            count()
            pages = RecordTally.objects.get().pages_read
            calls: list[str] = []
            service_request = ServiceClient.request

            def counted(self, method, request_path, *a, **kw):
                calls.append(request_path)
                return service_request(self, method, request_path, *a, **kw)

            ServiceClient.request = counted  # type: ignore[method-assign]
            page()
            ServiceClient.request = service_request  # type: ignore[method-assign]
            samples = interleaved({"raw": raw, "count": count, "page": page}, runs=args.runs)
        finally:
            handle.stop()

    medians = {name: round(statistics.median(values), 3) for name, values in samples.items()}
    result = {
        "records": args.records,
        "pages_read": pages,
        "minimum_pages": -(-args.records // 100),
        "median_seconds": medians,
        "count_over_raw": round(medians["count"] / medians["raw"], 2),
        "remote_calls_of_a_counted_page": len([c for c in calls if c.endswith("/records")]),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"Chart count of {args.records:,} records ({args.runs} runs, medians)")
    print(f"  pages read: {pages} (minimum {result['minimum_pages']})")
    for name, seconds in medians.items():
        print(f"  {name:6} {seconds:8.3f} s")
    print(f"  count / raw reading: {result['count_over_raw']}")
    print(f"  record reads of the chart page once counted: {result['remote_calls_of_a_counted_page']}")


if __name__ == "__main__":
    main()
