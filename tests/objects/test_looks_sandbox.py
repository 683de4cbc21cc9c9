"""More ways to look, against the real sandbox over HTTP: a chart over 10,000
records reads each page once (100 pages of 100, the service's largest) and
matches a computation made from the records' own values; a calendar reads
only as far as its month; a kanban's columns carry real counts and sums;
a gallery shows pictures by the image policy. Background counts run their
steps in this thread (the outbox's send is the seam)."""

from __future__ import annotations

import datetime as dt
import decimal
import time
from collections import defaultdict
from urllib.parse import parse_qsl, urlsplit

import pytest

from dashboard.api import ServiceClient
from objects import tallies
from objects.models import RecordTally, SavedView
from sandbox.fixtures import create_every_type_object, sample_values
from tests.helpers import running_sandbox
from tests.html import parse, select, text_of
from tests.objects.support import PlainClient, console_on_sandbox, table_rows, tally_steps_inline

pytestmark = pytest.mark.django_db

MANY = 10_000
PAGE = 100


@pytest.fixture(scope="module")
def sandbox():
    with running_sandbox() as handle:
        yield handle


@pytest.fixture(scope="module")
def many(sandbox):
    """An object of every field type with 10,000 records, written straight
    into the sandbox's store (seconds, not minutes: measured below)."""
    obj = create_every_type_object(PlainClient(sandbox), name="Chart deals")
    started = time.perf_counter()
    sandbox.insert_records(obj["id"], [sample_values(i) for i in range(MANY)])
    seconds = time.perf_counter() - started
    print(f"seeded {MANY} records in {seconds:.1f} s")
    return obj


@pytest.fixture
def console(sandbox, settings, logged_in_client, user):
    return console_on_sandbox(sandbox, settings, logged_in_client, user)


@pytest.fixture
def counts_inline(monkeypatch):
    """The tally's step task, run here: `drain()` runs every step sent, in order."""
    return tally_steps_inline(monkeypatch)


@pytest.fixture
def remote_reads(monkeypatch):
    """Every remote call the console makes, as (method, path)."""
    calls: list[tuple[str, str]] = []
    original = ServiceClient.request

    def counted(self, method, path, *args, **kwargs):
        calls.append((method, path))
        return original(self, method, path, *args, **kwargs)

    monkeypatch.setattr(ServiceClient, "request", counted)
    return calls


def test_a_chart_over_10000_records_reads_each_page_once_and_matches_the_records(
    many, console, counts_inline, remote_reads
):
    url = f"/objects/{many['key']}/chart/?group=stage&measure=sum&value=amount"
    first = parse(console.get(url).content)
    region = select(first, "#chart-region")[0]
    assert region["data-status"] == "counting" and "every 1s" in region["hx-trigger"]
    assert "Counting…" in text_of(region)
    steps = counts_inline()
    record_pages = [path for method, path in remote_reads if path.endswith("/records")]
    # The minimum: 10,000 / 100 (the service's largest page), each read once.
    assert len(record_pages) == MANY // PAGE
    # In bounded steps: at most PAGES_PER_STEP pages (or STEP_SECONDS) each.
    assert MANY // PAGE // tallies.PAGES_PER_STEP <= steps <= MANY // PAGE
    tally = RecordTally.objects.get()
    assert (tally.status, tally.pages_read, tally.records_read) == ("done", MANY // PAGE, MANY)

    # The reference: the same sums made from the values the records were written with.
    reference: dict[str, list] = defaultdict(lambda: [0, decimal.Decimal(0)])
    for i in range(MANY):
        values = sample_values(i)
        reference[values["stage"]][0] += 1
        reference[values["stage"]][1] += decimal.Decimal(str(values["amount"]))
    poll = console.get(region["hx-get"], HTTP_HX_REQUEST="true")
    assert poll.status_code == 286  # counted: the polling stops
    rows = table_rows(parse(poll.content))
    assert rows == [[stage, f"{reference[stage][1]:,.2f}", f"{reference[stage][0]:,}"] for stage in ("Lead", "Won")]
    # The bars are drawn with the numbers beside them, one per group.
    assert len(select(parse(poll.content), "svg.chart rect.chart-bar")) == 2

    # Asked again, the same question is the cache: no page is read.
    before = len(remote_reads)
    html = parse(console.get(f"/objects/{many['key']}/chart/?group=stage&measure=average&value=amount").content)
    assert [r for r in remote_reads[before:] if r[1].endswith("/records")] == []
    averages = [row[1] for row in table_rows(html)]
    assert averages == [f"{reference[s][1] / reference[s][0]:,.2f}" for s in ("Lead", "Won")]
    # An unchanged poll is 204 and costs no render.
    version = tallies.tally_version(RecordTally.objects.get())
    status_url = f"/objects/{many['key']}/chart/{tally.pk}/status/?group=stage&v={version}"
    assert console.get(status_url, HTTP_HX_REQUEST="true").status_code == 204


def test_a_chart_by_a_dates_month_and_its_saved_view(planned, console, counts_inline):
    url = f"/objects/{planned['key']}/chart/?group=close_date&bucket=month&measure=count"
    console.get(url)
    counts_inline()
    html = parse(console.get(url).content)
    months: dict[str, int] = defaultdict(int)
    for i in range(90):
        months[(dt.date(2026, 10, 1) + dt.timedelta(days=3 * i)).strftime("%Y-%m")] += 1
    expected = [[dt.date.fromisoformat(f"{m}-01").strftime("%b %Y"), str(n)] for m, n in sorted(months.items())]
    assert table_rows(html) == expected
    # "Count again" counts anew, once: the address it lands on shows that count.
    again = console.get(url + "&recount=1")
    assert again.status_code == 302 and "recount" not in again["Location"]
    assert RecordTally.objects.get().status == RecordTally.COUNTING
    counts_inline()
    assert table_rows(parse(console.get(again["Location"]).content)) == expected

    saved = console.post(
        f"/objects/{planned['key']}/views/save/",
        {"name": "Closing per month", "kind": "chart", "query": "group=close_date&bucket=month&measure=count"},
    )
    assert saved.status_code in (200, 302)
    view = SavedView.objects.get(name="Closing per month")
    assert (view.kind, view.settings) == ("chart", {"group": "close_date", "bucket": "month", "measure": "count"})
    opened = console.get(f"/objects/{planned['key']}/views/{view.pk}/")
    assert opened.status_code == 302 and opened["Location"].startswith(f"/objects/{planned['key']}/chart/?")
    again = parse(console.get(opened["Location"]).content)
    assert table_rows(again) == expected
    assert text_of(select(again, "h1")[0]).endswith(": Closing per month")


@pytest.fixture(scope="module")
def planned(sandbox):
    """A small object: 90 records, a close date every third day from 1 Oct
    2026, and a picture for half of them."""
    obj = create_every_type_object(PlainClient(sandbox), name="Planned deals")
    rows = []
    for i in range(90):
        values = sample_values(i)
        values["close_date"] = (dt.date(2026, 10, 1) + dt.timedelta(days=3 * i)).isoformat()
        values["logo"] = f"{sandbox.base_url}/static/{i}.png" if i % 2 else f"https://img.example.test/{i}.png"
        rows.append(values)
    sandbox.insert_records(obj["id"], rows)
    return obj


def test_a_calendar_month_reads_only_as_far_as_its_month(planned, console, remote_reads):
    url = f"/objects/{planned['key']}/calendar/?date=close_date&month=2026-11"
    html = parse(console.get(url).content)
    # 1 Oct + 3i: November holds i = 11..20 (10 records), all on the first page sorted by date.
    entries = select(html, ".look-calendar__grid .look-calendar__entries a")
    assert [text_of(a) for a in entries] == [f"Deal {i:03d}" for i in range(11, 21)]
    assert len([r for r in remote_reads if r[1].endswith("/records")]) == 1
    assert "10 records in November 2026" in text_of(select(html, "#calendar-month [role=status]")[0])
    agenda = [text_of(h) for h in select(html, ".look-calendar__agenda-day")]
    assert agenda[0] == "Tuesday 3 November" and len(agenda) == 10
    # Previous and next months are links the page also swaps in place.
    nav = select(html, ".look-calendar__nav a")
    assert nav[0]["href"] == nav[0]["hx-get"] and "month=2026-10" in nav[0]["href"]
    assert "month=2026-12" in nav[1]["href"]
    region = console.get(nav[1]["href"], HTTP_HX_REQUEST="true")
    assert select(parse(region.content), "#calendar-month h2")[0].get_text() == "December 2026"


def test_a_calendar_whose_month_is_past_the_page_budget_says_so(planned, console, monkeypatch):
    from objects import calendar

    monkeypatch.setattr(calendar, "PAGE_SIZE", 5)
    url = f"/objects/{planned['key']}/calendar/?date=close_date&month=2026-12"
    html = parse(console.get(url + "&budget=4").content)
    note = text_of(select(html, "#calendar-month .alert-info")[0])
    assert note.startswith("Only the first 20 records sorted by close date were read (4 pages")
    further = select(html, "#calendar-month .alert-info a")[0]
    assert text_of(further) == "Read further (up to 8 pages)"
    # Read further: far enough for December (1 Oct 2026 + 3 days × 21..30).
    html = parse(console.get(further["href"]).content)
    assert not select(html, "#calendar-month .alert-info")
    assert len(select(html, ".look-calendar__grid .look-calendar__entries a")) == 10


def test_a_kanban_counts_every_card_and_sums_a_field(planned, console, counts_inline, monkeypatch):
    from objects import kanban

    monkeypatch.setattr(kanban, "CARDS_PER_COLUMN", 10)
    url = f"/objects/{planned['key']}/kanban/?by=stage&sum=amount&card=status&card=close_date"
    first = parse(console.get(url).content)
    assert [text_of(c) for c in select(first, ".kanban-count")] == ["10+", "10+", "0"]
    counts_inline()
    html = parse(console.get(url).content)
    won = [i for i in range(90) if i % 5 == 0]
    lead = [i for i in range(90) if i % 5]
    assert [text_of(c) for c in select(html, ".kanban-count")] == [str(len(lead)), str(len(won)), "0"]
    sums = [text_of(s) for s in select(html, ".kanban-sum")]
    assert sums[0] == f"Amount: {sum(decimal.Decimal(str(round(i * 101.25, 2))) for i in lead):,.2f}"
    assert sums[1] == f"Amount: {sum(decimal.Decimal(str(round(i * 101.25, 2))) for i in won):,.2f}"
    # The empty column is folded; the chosen fields are on every card.
    folds = select(html, ".kanban-fold")
    assert [fold.has_attr("open") for fold in folds] == [True, True, False]
    card = select(html, ".kanban-card")[0]
    assert [text_of(dt_) for dt_ in select(card, ".kanban-card__fields dt")] == ["Close date", "Status"]


def test_a_gallery_shows_allowed_pictures_and_a_placeholder_for_the_others(planned, console, settings):
    html = parse(console.get(f"/objects/{planned['key']}/gallery/?image=logo").content)
    cards = select(html, ".look-gallery__card")
    assert len(cards) == 24
    images = [c for c in cards if c.find("img")]
    elsewhere = [c for c in cards if c.select(".image-elsewhere")]
    assert images and elsewhere and len(images) + len(elsewhere) == 24
    assert all(img.find("img")["src"].startswith(settings.SERVICE_BASE_URL) for img in images)
    assert all(
        c.select(".look-gallery__title")[0]["href"].startswith(f"/objects/{planned['key']}/records/") for c in cards
    )
    assert select(html, ".pager a[rel=next]")


# --- the table's filters with operators, applied by every look ------------------
# `planned`: seats = 3 i, so "Seats > 150" keeps i = 51..89 (39 records: 7 Won,
# 32 Lead); the service's exact filter cannot say ">", the console checks it.
ABOVE_150 = {"op.seats": "gt", "f.seats": "150"}


def test_a_chart_counts_only_the_records_a_console_checked_condition_keeps(planned, console, counts_inline):
    url = f"/objects/{planned['key']}/chart/"
    console.get(url, {"group": "stage", "measure": "count", **ABOVE_150})
    counts_inline()
    tally = RecordTally.objects.get()
    assert "op.seats=gt" in tally.params["query"] and tally.records_read == 39
    html = parse(console.get(url, {"group": "stage", "measure": "count", **ABOVE_150}).content)
    assert table_rows(html) == [["Lead", "32"], ["Won", "7"]]


def test_a_kanban_counts_and_cards_keep_only_the_matching_records(planned, console, counts_inline, monkeypatch):
    from objects import kanban

    monkeypatch.setattr(kanban, "CARDS_PER_COLUMN", 10)
    url = f"/objects/{planned['key']}/kanban/"
    first = parse(console.get(url, {"by": "stage", **ABOVE_150}).content)
    names = [text_of(a) for a in select(first, ".kanban-card__title")]
    assert names and all(int(name.split()[-1]) > 50 for name in names)  # the cards are matches only
    counts_inline()
    html = parse(console.get(url, {"by": "stage", **ABOVE_150}).content)
    assert [text_of(c) for c in select(html, ".kanban-count")] == ["32", "7", "0"]


def test_a_calendar_and_a_gallery_check_the_condition_on_each_record_read(planned, console):
    # November: i = 11..20; seats > 45 keeps 16..20.
    query = {"date": "close_date", "month": "2026-11", "op.seats": "gt", "f.seats": "45"}
    html = parse(console.get(f"/objects/{planned['key']}/calendar/", query).content)
    entries = select(html, ".look-calendar__grid .look-calendar__entries a")
    assert [text_of(a) for a in entries] == [f"Deal {i:03d}" for i in range(16, 21)]

    gallery = parse(
        console.get(f"/objects/{planned['key']}/gallery/", {"image": "logo", "op.seats": "lt", "f.seats": "30"}).content
    )
    titles = sorted(text_of(a) for a in select(gallery, ".look-gallery__title"))
    assert titles == [f"Deal {i:03d}" for i in range(10)]
    assert text_of(select(gallery, ".gallery-read")[0]).startswith("90 records read (1 page)")


def test_the_looks_switch_carries_operators_bounds_and_days_both_ways(planned, console):
    query = {
        "op.seats": "between",
        "f.seats": "10",
        "to.seats": "40",
        "op.close_date": "last_days",
        "days.close_date": "7",
    }
    wanted = {
        ("op.seats", "between"),
        ("f.seats", "10"),
        ("to.seats", "40"),
        ("op.close_date", "last_days"),
        ("days.close_date", "7"),
    }
    for page in ("records", "kanban", "calendar", "gallery", "chart"):
        html = parse(console.get(f"/objects/{planned['key']}/{page}/", query).content)
        links = select(html, ".looks-switch a")
        assert len(links) == 5, page
        for link in links:
            assert wanted <= set(parse_qsl(urlsplit(link["href"]).query)), (page, link["href"])
