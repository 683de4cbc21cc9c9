"""Records page in three languages (issue #37 item 6): what writing values as
German and French write them costs the records grid, side by side with English.

    .venv/bin/python bench/records_languages.py [--runs 20] [--cells 20000] [--json]

In one run it starts a sandbox (in-memory, in this process), creates an object
with one field of each of the 15 types and 100 records, logs a console user in
(Django test client, a throwaway SQLite database), and times, turn about:

- the records page of 100 rows and every column (1,500 cells, its timestamps,
  the footers) asked for in English, German and French (Accept-Language; the
  page is the same but for how its values are written);
- the cells alone: `--cells` cells of the number, currency, date and datetime
  fields (objects/fields.py `cell`), the language's formats resolved once as
  the grid does, in English and German, and the same values through Django's
  own `number_format` / `date_format` per value (what the grid would cost
  without resolving once).

It reports the medians and the ratios German / English and French / English
(the goal: at most 1.1 for the page; formatting is a small part of it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BROWSER, RECORDS, console_with_records, django_in, interleaved, median_ms, throwaway

LANGUAGES = ("en", "de", "fr")


def ratio(a: list[float], b: list[float]) -> float:
    return round(statistics.median(a) / statistics.median(b), 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="timed views of each kind (default 20)")
    parser.add_argument("--cells", type=int, default=20_000, help="cells formatted per timing (default 20,000)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--pages-only", action="store_true", help="time the pages only (a checkout before local_formats)"
    )
    args = parser.parse_args()

    with throwaway() as tmp, django_in(tmp), console_with_records() as console:
        from django.utils import formats as django_formats
        from django.utils import translation

        from objects.fields import cell, field_defs, parse_stored_datetime, parse_stored_number
        from sandbox.fixtures import EVERY_TYPE_FIELDS, sample_values

        def page_in(language: str):
            def view():
                response = console.browser.get(
                    console.records_url, {"limit": str(console.records)}, HTTP_ACCEPT_LANGUAGE=language, **BROWSER
                )
                assert response.status_code == 200, response.status_code
                return response

            return view

        pages = {language: page_in(language) for language in LANGUAGES}
        for _ in range(3):  # imports, templates, catalogs, connections
            for view in pages.values():
                view()
        page_samples = interleaved(pages, runs=args.runs)
        if args.pages_only:
            figures = {f"page_median_ms_{language}": median_ms(page_samples[language]) for language in LANGUAGES}
            print(json.dumps({**figures, "ratio_page_de_to_en": ratio(page_samples["de"], page_samples["en"])}))
            return 0

        fields = [
            f for f in field_defs({"fields": EVERY_TYPE_FIELDS}) if f.type in ("number", "currency", "date", "datetime")
        ]
        values = [sample_values(i) for i in range(args.cells // len(fields))]
        zone = dt.timezone(dt.timedelta(hours=1), "CET")

        def cells_in(language: str):
            def run():
                with translation.override(language):
                    from dashboard.web import local_formats

                    resolved = local_formats.active()  # once, as objects/table.py build_table does
                    for row in values:
                        for f in fields:
                            cell(f, row[f.key], zone=zone, formats=resolved)

            return run

        def django_per_value():
            with translation.override("de"):
                for row in values:
                    for f in fields:
                        stored = row[f.key]
                        if f.type in ("number", "currency"):
                            django_formats.number_format(parse_stored_number(stored), 2, force_grouping=True)
                        elif f.type == "date":
                            django_formats.date_format(dt.date.fromisoformat(stored), "SHORT_DATE_FORMAT")
                        else:
                            moment = parse_stored_datetime(stored)
                            assert moment is not None
                            django_formats.date_format(moment.astimezone(zone), "SHORT_DATETIME_FORMAT")

        steps = {"cells_en": cells_in("en"), "cells_de": cells_in("de"), "django_de": django_per_value}
        for step in steps.values():
            step()
        cell_samples = interleaved(steps, runs=max(5, args.runs // 2))

    count = len(values) * len(fields)
    figures = {
        "records": RECORDS,
        "fields": len(EVERY_TYPE_FIELDS),
        "runs": args.runs,
        **{f"page_median_ms_{language}": median_ms(page_samples[language]) for language in LANGUAGES},
        "ratio_page_de_to_en": ratio(page_samples["de"], page_samples["en"]),
        "ratio_page_fr_to_en": ratio(page_samples["fr"], page_samples["en"]),
        "cells": count,
        "cells_median_ms_en": median_ms(cell_samples["cells_en"]),
        "cells_median_ms_de": median_ms(cell_samples["cells_de"]),
        "django_per_value_median_ms_de": median_ms(cell_samples["django_de"]),
        "ratio_cells_de_to_en": ratio(cell_samples["cells_de"], cell_samples["cells_en"]),
        "ratio_django_per_value_to_cells_de": ratio(cell_samples["django_de"], cell_samples["cells_de"]),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    rows = [
        *((f"records page ({language}), median", f"page_median_ms_{language}", " ms") for language in LANGUAGES),
        ("ratio page de / en", "ratio_page_de_to_en", "   (goal <= 1.1)"),
        ("ratio page fr / en", "ratio_page_fr_to_en", "   (goal <= 1.1)"),
        (f"{count:,} cells, formats resolved once (en), median", "cells_median_ms_en", " ms"),
        (f"{count:,} cells, formats resolved once (de), median", "cells_median_ms_de", " ms"),
        (f"{count:,} cells, Django's formats per value (de), median", "django_per_value_median_ms_de", " ms"),
        ("ratio cells de / en", "ratio_cells_de_to_en", ""),
        ("ratio Django per value / resolved once (de)", "ratio_django_per_value_to_cells_de", ""),
    ]
    print(
        f"Records page in three languages: {RECORDS} records x {len(EVERY_TYPE_FIELDS)} fields, {args.runs} runs each"
    )
    for label, key, unit in rows:
        print(f"  {label + ':':<60}{figures[key]:>9}{unit}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
