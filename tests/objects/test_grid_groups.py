"""The records grid grouped and its footers against the sandbox: a `<tbody>`
per group (its header's button, its count, its footer row), the footers'
aggregates chosen per column and kept in the address and in a saved view,
the table's footer over every record counted in the background when the
page holds not all (polled from the database: 204 unchanged, 286 final),
"of the N shown" meanwhile."""

from __future__ import annotations

import pytest
from django.utils import timezone

from objects.models import RecordTally, SavedView
from tests.html import one, parse, select, text_of
from tests.objects.support import run_count

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def column_index(html, label: str) -> int:
    headers = [text_of(th) for th in select(html, "#records-grid thead th")]
    return next(i for i, text in enumerate(headers) if text.startswith(label))


def footer_cell(row, index: int) -> str:
    return text_of(row.find_all(["td", "th"], recursive=False)[index])


def test_grouped_by_a_stage_each_group_with_its_count_and_footer(deals, logged_in_client):
    address = f"/objects/{deals['key']}/records/"
    html = parse(logged_in_client.get(address, {"group": "stage", "agg.seats": "sum", "agg.amount": "average"}).content)
    groups = select(html, "#records-grid tbody.records-group")
    heads = [text_of(one(g, "tr.records-group-head th")) for g in groups]
    assert heads == ["Lead 9 records", "Won 3 records", "No stage 1 record"]
    toggle = one(groups[0], "button[data-group-toggle]")
    assert toggle["aria-expanded"] == "true" and toggle["type"] == "button"
    assert [len(select(g, "tr:not(.records-group-head):not(.records-foot)")) for g in groups] == [9, 3, 1]
    seats = column_index(html, "Seats")
    # Seats are 3 x i: Lead holds i = 1-4, 6-9, 11, Won i = 0, 5, 10, Bare none.
    sums = [footer_cell(one(g, "tr.records-foot"), seats) for g in groups]
    assert sums == ["Sum 153", "Sum 45", "Sum 0"]
    total = one(html, "#records-grid tfoot#records-footers tr.records-foot")
    assert footer_cell(total, seats) == "Count Sum Average Min Max Empty 198"
    assert one(total, "select[name='agg.seats'] option[selected]")["value"] == "sum"
    assert "num" in total.find_all(["td", "th"], recursive=False)[seats]["class"]
    amount = column_index(html, "Amount")
    assert footer_cell(total, amount).endswith(" 556.88")  # 6,682.50 over the 12 that hold one
    assert text_of(one(total, "th")) == "Total"
    assert not RecordTally.objects.exists()  # every record on the page: nothing counted behind
    # The address keeps the grouping and the aggregates: sorting, the saved view's query.
    assert one(html, "select[name=group] option[selected]")["value"] == "stage"
    sort_link = select(html, "#records-grid thead a.sort-link")[0]["href"]
    assert "group=stage" in sort_link and "agg.seats=sum" in sort_link
    saved = one(html, "form.view-save input[name=query]")["value"]
    assert "group=stage" in saved and "agg.amount=average" in saved


def test_a_saved_view_keeps_its_grouping_and_footers(deals, logged_in_client):
    address = f"/objects/{deals['key']}/records/"
    logged_in_client.post(
        f"/objects/{deals['key']}/views/save/",
        {"name": "By stage", "query": "group=active&agg.seats=max", "kind": "table"},
    )
    view = SavedView.objects.get()
    assert "group=active" in view.query and "agg.seats=max" in view.query
    html = parse(logged_in_client.get(f"{address}?{view.query}&view={view.pk}").content)
    heads = [text_of(th) for th in select(html, "tr.records-group-head th")]
    assert heads == ["Yes 6 records", "No 6 records", "No active 1 record"]
    assert footer_cell(one(html, "tfoot tr.records-foot"), column_index(html, "Seats")).endswith(" 33")


def test_fields_that_cannot_group_and_aggregates_a_column_cannot_say_are_left_out(deals, logged_in_client):
    html = parse(
        logged_in_client.get(
            f"/objects/{deals['key']}/records/", {"group": "name", "agg.name": "sum", "footers": "on"}
        ).content
    )
    assert not select(html, "tbody.records-group")
    name_choice = select(html, "tfoot select[name='agg.name'] option")
    assert [o["value"] for o in name_choice] == []  # the title column's footer is its label
    notes = column_index(html, "Notes")
    assert footer_cell(one(html, "tfoot tr.records-foot"), notes).endswith(" 12")  # counted, the default


def test_footers_of_more_records_than_the_page_are_counted_in_the_background(many_deals, logged_in_client):
    address = f"/objects/{many_deals['key']}/records/"
    first = parse(logged_in_client.get(address, {"footers": "on", "agg.seats": "sum"}).content)
    rows = RecordTally.objects.filter(params__footers="all")
    row = rows.get()
    tfoot = one(first, "tfoot#records-footers")
    assert text_of(one(tfoot, "th")) == "Total of the 25 shown"
    poll = tfoot["hx-get"]
    assert poll.startswith(f"/objects/{many_deals['key']}/records/footers/{row.pk}/?")
    assert "agg.seats=sum" in poll
    assert logged_in_client.get(poll, **HTMX).status_code == 204  # nothing moved
    run_count(row)
    assert row.status == RecordTally.DONE and row.records_read == 33
    final = logged_in_client.get(poll, **HTMX)
    assert final.status_code == 286
    footer = one(parse(final.content), "tfoot#records-footers")
    assert not footer.has_attr("hx-get")
    assert text_of(one(footer, "th")) == "Total"
    seats = column_index(first, "Seats")
    # Seats 3 x i over i = 0-31; the bare record holds none.
    assert footer_cell(one(footer, "tr"), seats).endswith(" 1,488")
    # The same question again while fresh: the same count, its footers at once.
    again = parse(logged_in_client.get(address, {"footers": "on", "agg.seats": "sum"}).content)
    assert text_of(one(again, "tfoot th")) == "Total"
    assert rows.count() == 1


def test_a_partial_count_says_of_the_first_n(many_deals, logged_in_client):
    logged_in_client.get(f"/objects/{many_deals['key']}/records/", {"footers": "on"})
    row = RecordTally.objects.get(params__footers="all")
    # Stopped after the most pages it reads (objects/tallies.py): what it counted stays.
    RecordTally.objects.filter(pk=row.pk).update(
        status=RecordTally.STOPPED, records_read=1000, cursor="x", finished_at=timezone.now()
    )
    html = parse(logged_in_client.get(f"/objects/{many_deals['key']}/records/", {"footers": "on"}).content)
    assert text_of(one(html, "tfoot th")) == "Total of the first 1,000"


def test_a_footers_count_belongs_to_its_workspace(many_deals, logged_in_client, django_user_model):
    from tests.objects.support import store_api_key

    logged_in_client.get(f"/objects/{many_deals['key']}/records/", {"footers": "on"})
    row = RecordTally.objects.get(params__footers="all")
    stranger = django_user_model.objects.create_user(username="stranger", password="a long password here")
    store_api_key(stranger)
    logged_in_client.force_login(stranger)
    poll = logged_in_client.get(f"/objects/{many_deals['key']}/records/footers/{row.pk}/?v=x", **HTMX)
    assert poll.status_code == 404
