"""Records page bench: the console's records page against the sandbox.

    .venv/bin/python bench/records_page.py [--runs 30] [--json]

In one run it starts a sandbox (in-memory, in this process), creates an
object with 15 fields of mixed types (one of each type) and 100 records, logs
a console user in with the sandbox's demo key (Django test client, in
process, a throwaway SQLite database), and reports:

- the median time of the console's records page (100 rows, all 15 columns),
  with the definition cached (the usual case) and with a cold cache;
- the median time of the raw records call the page makes (same query, the
  same transport, no console around it);
- their ratio (what the console adds: Django, the cache, the table, the
  template);
- remote calls per page view, counted with an httpx event hook on the
  console's one shared client (cold cache and warm cache).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RECORDS = 100


def _setup_django(db_file: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
    os.environ["DATABASE_URL"] = f"sqlite:///{db_file}"
    os.environ["CACHE_URL"] = "locmem://"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def _median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30, help="timed page views of each kind (default 30)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        _setup_django(str(Path(tmp) / "bench.sqlite3"))

        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.core.cache import cache
        from django.test import Client

        from dashboard.api import ServiceClient
        from dashboard.api.testing import RemoteCallCounter
        from dashboard.keys.testing import store_sandbox_key
        from sandbox.fixtures import EVERY_TYPE_FIELDS, create_every_type_object, sample_values
        from sandbox.testing import start_sandbox

        handle = start_sandbox(time_scale=0.002)
        try:
            settings.SERVICE_BASE_URL = handle.base_url
            settings.ALLOWED_HOSTS = ["testserver"]
            service = ServiceClient(api_key=handle.demo_key)
            obj = create_every_type_object(service, name="Bench deals")
            key = obj["key"]
            for i in range(RECORDS):
                service.post(f"/v1/objects/{key}/records", json={"values": sample_values(i)})

            user = get_user_model().objects.create_user(username="bench", password="bench-password-not-secret")
            store_sandbox_key(user, service, handle.demo_key)
            browser = Client()
            browser.force_login(user)
            page_url = f"/objects/{key}/records/"
            query = {"limit": str(RECORDS)}

            # Warm up both paths (imports, template loading, connections).
            for _ in range(3):
                assert browser.get(page_url, query).status_code == 200
                service.page(f"/v1/objects/{key}/records", params={"limit": RECORDS, "sort": "-updated_at"})

            with RemoteCallCounter() as counter:
                cache.clear()
                response = browser.get(page_url, query)
                cold_calls = counter.count
                counter.reset()
                browser.get(page_url, query)
                warm_calls = counter.count
            html = response.content.decode()
            rows = html.count('<th scope="row" class="record-title">')
            assert rows == RECORDS, f"expected {RECORDS} rows on the page, saw {rows}"

            warm, cold, raw = [], [], []
            for _ in range(args.runs):
                started = time.perf_counter()
                service.page(f"/v1/objects/{key}/records", params={"limit": RECORDS, "sort": "-updated_at"})
                raw.append(time.perf_counter() - started)

                started = time.perf_counter()
                assert browser.get(page_url, query).status_code == 200
                warm.append(time.perf_counter() - started)

                cache.clear()
                started = time.perf_counter()
                assert browser.get(page_url, query).status_code == 200
                cold.append(time.perf_counter() - started)
        finally:
            handle.stop()

    figures = {
        "records": RECORDS,
        "fields": len(EVERY_TYPE_FIELDS),
        "runs": args.runs,
        "page_median_ms_warm_cache": _median_ms(warm),
        "page_median_ms_cold_cache": _median_ms(cold),
        "raw_records_call_median_ms": _median_ms(raw),
        "ratio_page_warm_to_raw": round(statistics.median(warm) / statistics.median(raw), 2),
        "remote_calls_per_page_view_cold_cache": cold_calls,
        "remote_calls_per_page_view_warm_cache": warm_calls,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"Records page bench: {RECORDS} records x {len(EVERY_TYPE_FIELDS)} fields, {args.runs} runs each")
        print(f"  console records page, median (definition cached): {figures['page_median_ms_warm_cache']:>8} ms")
        print(f"  console records page, median (cold cache):        {figures['page_median_ms_cold_cache']:>8} ms")
        print(f"  raw records call it makes, median:                {figures['raw_records_call_median_ms']:>8} ms")
        print(f"  ratio page (cached) / raw call:                   {figures['ratio_page_warm_to_raw']:>8}")
        print(f"  remote calls per page view: {cold_calls} (cold cache), {warm_calls} (warm cache)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
