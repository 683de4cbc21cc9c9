"""Command palette bench: how long `GET /palette/?q=` takes against the
sandbox, side by side with a trivial view, and what opening it costs.

    .venv/bin/python bench/palette.py [--runs 60] [--json]

One process, a throwaway SQLite database, a sandbox in this process (its
seeded demo workspace: agents, runs, objects; plus an object of every field
type with 100 records, bench/common.py), a console user with the demo key.
Requests go through Django's test client, the console's whole middleware
included, as the dialog's htmx request (`HX-Request`). Taken turn about:

- the trivial view (bench/urls.py) under the same middleware;
- the palette with an empty query (the console's pages: no remote call);
- a record's title, warm (the agents, objects and library lists cached, as
  for every keystroke after the first within a minute): the records search
  of at most 5 objects, a run-by-id check, the local sources;
- an agent's name, warm;
- a record's title, cold (the cache cleared first: the first keystroke of
  the minute, which also reads the agents, objects and six library lists).

It reports p50 and p95 of each (the goal: p95 under 500 ms for a query, on
the sandbox), the remote calls of one query, and what opening costs: the
dialog is in every page's markup (its bytes on a page are reported), so
opening it is `showModal()` and a focus, with no request at all.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BROWSER, collected_static, console_with_records, django_in, html_of, interleaved, throwaway

HTMX = {"HTTP_HX_REQUEST": "true", **BROWSER}


def p95_ms(samples: list[float]) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))] * 1000, 1)


def p50_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def dialog_bytes(page: str) -> int:
    """The bytes of the palette's dialog in a page's markup (what every page carries for it)."""
    start = page.find('<dialog id="palette"')
    end = page.find("</dialog>", start)
    return len(page[start : end + len("</dialog>")].encode()) if start >= 0 and end >= 0 else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=60, help="requests of each kind, turn about (default 60)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    with throwaway() as tmp, django_in(tmp), collected_static(tmp), console_with_records() as console:
        from django.core.cache import cache
        from django.urls import reverse

        from dashboard.api.testing import RemoteCallCounter

        palette = reverse("palette")
        record_title = console.service.page(
            f"/v1/objects/{console.object_key}/records", params={"limit": 1, "sort": "-updated_at"}
        ).items[0]["values"]["name"]
        agent_name = console.service.page("/v1/agents", params={"limit": 1}, item_key="agents").items[0]["name"]

        def ask(query: str, **extra):
            response = console.browser.get(palette, {"q": query}, **HTMX, **extra)
            assert response.status_code == 200, response.status_code
            return response

        def cold_record():
            cache.clear()
            return ask(record_title)

        steps = {
            "trivial view": lambda: console.browser.get("/bench/trivial"),
            "palette, empty query": lambda: ask(""),
            "palette, a record's title (warm)": lambda: ask(record_title),
            "palette, an agent's name (warm)": lambda: ask(agent_name),
            "palette, a record's title (cold)": cold_record,
        }
        for step in steps.values():  # warm up: imports, templates, connections
            step()
        samples = interleaved(steps, runs=args.runs)

        calls = {}
        for name, query, cold in (
            ("empty query", "", False),
            ("a record's title, warm", record_title, False),
            ("a record's title, cold", record_title, True),
        ):
            if cold:
                cache.clear()
            else:
                ask(query)
            with RemoteCallCounter() as counter:
                ask(query)
            calls[name] = counter.count

        page = html_of(console.browser.get(reverse("agents:index"), **BROWSER))
        figures = {
            "runs": args.runs,
            "ms": {name: {"p50": p50_ms(values), "p95": p95_ms(values)} for name, values in samples.items()},
            "remote_calls": calls,
            "dialog_bytes_per_page": dialog_bytes(page),
            "open_requests": 0,
        }

    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"Command palette, {args.runs} requests of each kind, turn about (ms):")
    width = max(len(name) for name in figures["ms"])
    for name, values in figures["ms"].items():
        print(f"  {name:<{width}}  p50 {values['p50']:>7}  p95 {values['p95']:>7}")
    print("Remote calls of one query: " + ", ".join(f"{name} {count}" for name, count in calls.items()))
    print(
        f"Opening: the dialog is in every page ({figures['dialog_bytes_per_page']} bytes of markup, uncompressed);"
        " showModal() and a focus, no request."
    )
    slowest = max(values["p95"] for name, values in figures["ms"].items() if name.startswith("palette, a"))
    print(f"Slowest query p95: {slowest} ms (goal: under 500 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
