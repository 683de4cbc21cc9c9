"""Page weight bench: what a browser transfers for a records page of 100
rows (and of 25), on its first load and on a repeat visit, before and after
compression, measured in one run.

    .venv/bin/python bench/page_weight.py [--json]

One process: a sandbox with an object of 15 fields of mixed types and 100
records, a logged-in console user (Django's test client, `Accept-Encoding:
gzip, deflate, br` as browsers send it), DEBUG on as under `make run`. Two
configurations, each through a fresh client (so WhiteNoise and the
middleware are set up anew):

- before: no CompressionMiddleware, static files under their own names from the
  finders (the storage `make run` used until now);
- after: the console's settings, static files collected as `manage.py
  bootstrap` collects them (hashed names, gzip copies, manifest).

A first load is the page plus every stylesheet and script it links. A
repeat visit fetches the page again and each static file as a browser
would: nothing while its Cache-Control max-age lasts, otherwise a
conditional request (If-None-Match / If-Modified-Since) answered 304.
Bytes are the response's status line, headers and body as sent; the goals
are at most 60 KB for the first load of the 100-row page and 25 KB for a
repeat visit.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BROWSER, collected_static, console_with_records, django_in, html_of, throwaway

ASSET = re.compile(r'<(?:link rel="stylesheet" href|script src)="([^"]+)"')
COMPRESSION = "dashboard.compression.CompressionMiddleware"
KB = 1000


def wire_bytes(response) -> int:
    """Status line, headers (cookies too) and body of a test client response."""
    if response.streaming:
        body = b"".join(response.streaming_content)
        response.close()
    else:
        body = response.content
    head = len(f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n")
    head += sum(len(name) + len(value) + 4 for name, value in response.items()) + 2
    head += sum(len(morsel.OutputString()) + len("Set-Cookie: \r\n") for morsel in response.cookies.values())
    return head + len(body)


def max_age(response) -> int:
    found = re.search(r"max-age=(\d+)", response.get("Cache-Control", ""))
    return int(found.group(1)) if found else 0


def visits(browser, url: str, limit: int) -> dict:
    """First load and repeat visit of one page, as a browser with an empty cache, then a warm one."""
    page = browser.get(url, {"limit": str(limit)}, **BROWSER)
    assert page.status_code == 200, page.status_code
    assets = ASSET.findall(html_of(page))
    assert assets, "no stylesheet or script linked"
    first = {"page": wire_bytes(page)}
    cached = {}
    for asset in assets:
        response = browser.get(asset, **BROWSER)
        assert response.status_code == 200, (asset, response.status_code)
        first[asset] = wire_bytes(response)
        cached[asset] = response
    repeat = {"page": wire_bytes(browser.get(url, {"limit": str(limit)}, **BROWSER))}
    for asset, earlier in cached.items():
        if max_age(earlier) > 0:
            repeat[asset] = 0  # fresh in the browser's cache: not asked for
            continue
        conditional = {}
        if earlier.has_header("ETag"):
            conditional["HTTP_IF_NONE_MATCH"] = earlier["ETag"]
        if earlier.has_header("Last-Modified"):
            conditional["HTTP_IF_MODIFIED_SINCE"] = earlier["Last-Modified"]
        repeat[asset] = wire_bytes(browser.get(asset, **BROWSER, **conditional))
    return {
        "first_load_bytes": sum(first.values()),
        "first_load_page_bytes": first["page"],
        "repeat_visit_bytes": sum(repeat.values()),
        "static_files": len(assets),
        "static_cache_control": sorted({earlier.get("Cache-Control", "") for earlier in cached.values()}),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    figures: dict[str, dict] = {}
    with throwaway() as tmp, django_in(tmp), console_with_records() as console:
        from django.conf import settings
        from django.test import Client
        from django.test.utils import override_settings

        plain = {
            **settings.STORAGES,
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        }
        before = override_settings(
            DEBUG=True, MIDDLEWARE=[name for name in settings.MIDDLEWARE if name != COMPRESSION], STORAGES=plain
        )
        configurations = {
            "before": (before, nullcontext()),
            "after": (override_settings(DEBUG=True), collected_static(tmp)),
        }
        for name, (configuration, static_files) in configurations.items():
            with configuration, static_files:
                browser = Client()
                browser.force_login(console.user)
                figures[name] = {
                    f"{limit} rows": visits(browser, console.records_url, limit) for limit in (console.records, 25)
                }

    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print("Page weight bench: records page, 15 fields; bytes a browser receives (headers and body)")
        for name, pages in figures.items():
            for page, weight in pages.items():
                print(
                    f"  {name:<6} {page:>8}: first load {weight['first_load_bytes'] / KB:>6.1f} KB "
                    f"(page {weight['first_load_page_bytes'] / KB:.1f} KB + {weight['static_files']} static files), "
                    f"repeat visit {weight['repeat_visit_bytes'] / KB:>6.1f} KB"
                )
            print(f"         static Cache-Control: {'; '.join(pages['100 rows']['static_cache_control'])}")
        print("  goals, 100 rows: first load <= 60 KB, repeat visit <= 25 KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
