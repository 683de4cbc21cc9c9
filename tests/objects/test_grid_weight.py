"""The records grid's weight: a page of 100 rows x 15 columns of every type
(the records-vs-admin bench's page, bench/records_page.py) is at most 150 KB
of HTML, against the real sandbox. Bytes are deterministic; time is measured
by `make bench` only."""

from __future__ import annotations

import pytest

from sandbox.fixtures import EVERY_TYPE_FIELDS
from tests.html import select
from tests.objects.support import every_type_object_with_records

pytestmark = pytest.mark.django_db

GRID_BUDGET_BYTES = 150_000  # 100 rows x 15 columns; 295 KB before the grid said things once per column


def test_a_page_of_100_rows_and_15_columns_is_at_most_150_kb(sandbox, settings, logged_in_client, user):
    obj = every_type_object_with_records(sandbox, settings, user, 100)

    response = logged_in_client.get(f"/objects/{obj['key']}/records/", {"limit": 100})

    assert response.status_code == 200
    html = response.content
    rows = select(html, "table.records tbody tr")
    assert len(rows) == 100
    # Every feature still there: selection box, title link, 15 fields + 2 timestamps, editable cells.
    assert len(EVERY_TYPE_FIELDS) == 15
    assert len(rows[0].select("td")) == 1 + 14 + 2 and rows[0].select("th.record-title a[href]")
    assert select(html, "table.records[data-editable]")
    assert len(html) <= GRID_BUDGET_BYTES, f"{len(html):,} bytes"
