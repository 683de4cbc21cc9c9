"""Values in the person's language (issue #37 item 6): the records grid, a
record page, a grouped grid's labels and footers, and a chart write numbers,
amounts, dates and months as German and French write them
(dashboard/web/local_formats.py), while English keeps the console's forms
(tests/objects/test_records_views.py pins them) and machine forms (CSV, input
values) stay ISO. The grid resolves a language's formats once per page."""

from __future__ import annotations

import datetime as dt
import decimal

import httpx
import pytest
from django.utils import translation

from dashboard.web import local_formats
from tests.html import one, parse, select, text_of
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, RECORD_ID, page
from tests.objects.support import record_row, table_rows, tally_steps_inline

pytestmark = pytest.mark.django_db

RECORDS_URL = f"/objects/{OBJECT_KEY}/records/"
RECORD_URL = f"{RECORDS_URL}{RECORD_ID}/"
# The deals' amount in euros (a currency field may carry its code: objects/fields.py).
EURO_DEALS = {**DEALS, "fields": [{**f, "currency": "EUR"} if f["key"] == "amount" else f for f in DEALS["fields"]]}
BIG = {**ACME, "values": {**ACME["values"], "seats": 10023.75}}

# Per language: seats, the amount, the close date, the meeting (Paris), the record's creation (Paris).
EXPECTED = {
    "de": ("10.023,75", "1.234,50 €", "01.12.2026", "22.11.2026 10:30 CET", "01.11.2026 09:00 CET"),
    "fr": ("10 023,75", "1 234,50 €", "01/12/2026", "22/11/2026 10:30 CET", "01/11/2026 09:00 CET"),
}

YES = {"de": "Ja", "fr": "Oui"}
IMAGE_ON = {"de": "Bild auf", "fr": "Image sur"}
WHY_AWAY = {
    "de": "hier nicht angezeigt (die Konsole lädt Bilder nur von den Hosts des Dienstes).",
    "fr": "non affichée ici (la console ne charge les images que depuis les hôtes du service).",
}


@pytest.fixture
def euro_deals(remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=EURO_DEALS))
    remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(return_value=httpx.Response(200, json=page([BIG])))
    remote.get(f"/v1/objects/{OBJECT_KEY}/records/{RECORD_ID}").mock(return_value=httpx.Response(200, json=BIG))
    remote.get(f"/v1/objects/{OBJECT_KEY}/records/{RECORD_ID}/relationships").mock(
        return_value=httpx.Response(200, json={"data": []})
    )
    return remote


@pytest.mark.parametrize("language", ["de", "fr"])
def test_the_records_grid_writes_values_as_the_language_does(paris_console, euro_deals, language):
    with translation.override(language):
        html = parse(paris_console.get(RECORDS_URL, HTTP_ACCEPT_LANGUAGE=language).content)

    seats, amount, close_date, meeting, _ = EXPECTED[language]
    row = record_row(html, RECORD_ID)
    numbers = row.select("td.num")
    assert [text_of(td) for td in numbers] == [seats, amount]
    # No break inside an amount: its group separator (French) and the space before the sign are non-breaking.
    assert numbers[1].get_text().strip() == amount.replace(" ", "\xa0")
    cells = [text_of(td) for td in row.select("td")]
    assert close_date in cells and meeting in cells
    # Yes/No and a refused image's words are the language's too; the service's own words are not translated.
    assert text_of(one(row, ".cell-mark--yes")) == YES[language]
    assert text_of(one(row, "a.image-away")) == f"{IMAGE_ON[language]} cdn.acme.test"
    assert text_of(one(html, "#images-away")).endswith(WHY_AWAY[language])
    # A date's edit value stays ISO (the browser's date input reads only that).
    assert "2026-12-01" not in cells


@pytest.mark.parametrize("language", ["de", "fr"])
def test_a_record_page_writes_values_and_times_as_the_language_does(paris_console, euro_deals, language):
    with translation.override(language):
        html = parse(paris_console.get(RECORD_URL, HTTP_ACCEPT_LANGUAGE=language).content)

    seats, amount, close_date, meeting, created = EXPECTED[language]
    values = one(html, "section.record-values dl.facts")
    shown = {text_of(dt_): text_of(dt_.find_next_sibling("dd")) for dt_ in values.select("dt")}
    assert (shown["Seats"], shown["Amount"], shown["Close date"], shown["Meeting at"]) == (
        seats,
        amount,
        close_date,
        meeting,
    )
    assert created in shown.values()


def test_the_edit_form_keeps_iso_values_in_german(paris_console, euro_deals):
    with translation.override("de"):
        html = parse(paris_console.get(f"{RECORD_URL}edit/", HTTP_ACCEPT_LANGUAGE="de").content)

    assert one(html, "input[name=close_date]")["value"] == "2026-12-01"
    assert one(html, "input[name=meeting_at]")["value"] == "2026-11-22T10:30"


@pytest.mark.parametrize(
    ("language", "month", "seats", "amount"),
    [("de", "Dezember 2026", "16,50", "6.682,50"), ("fr", "décembre 2026", "16,50", "6 682,50")],
)
def test_a_grid_grouped_by_month_names_the_month_and_footers_in_the_language(
    deals, logged_in_client, language, month, seats, amount
):
    address = f"/objects/{deals['key']}/records/"
    with translation.override(language):
        response = logged_in_client.get(
            address, {"group": "close_date", "agg.seats": "average", "agg.amount": "sum"}, HTTP_ACCEPT_LANGUAGE=language
        )
    html = parse(response.content)
    labels = [text_of(b) for b in select(html, "#records-grid tbody.records-group button[data-group-toggle]")]
    assert labels[0] == month
    total = one(html, "#records-grid tfoot#records-footers tr.records-foot")
    headers = [text_of(th) for th in select(html, "#records-grid thead th")]
    cells = [text_of(c) for c in total.find_all(["td", "th"], recursive=False)]
    shown = {label: cells[i] for i, label in enumerate(headers) if label in ("Seats", "Amount")}
    # Seats are 3 x i for i = 0-11 (an average of 16.5); the 12 amounts sum to 6,682.50.
    assert shown["Seats"].endswith(f" {seats}") and shown["Amount"].endswith(f" {amount}")


@pytest.mark.parametrize(
    ("language", "month", "total"), [("de", "Dez. 2026", "6.682,50"), ("fr", "déc. 2026", "6 682,50")]
)
def test_a_chart_by_month_writes_months_and_sums_in_the_language(
    deals, logged_in_client, monkeypatch, language, month, total
):
    drain = tally_steps_inline(monkeypatch)
    url = f"/objects/{deals['key']}/chart/?group=close_date&bucket=month&measure=sum&value=amount"
    with translation.override(language):
        logged_in_client.get(url, HTTP_ACCEPT_LANGUAGE=language)
        drain()
        html = parse(logged_in_client.get(url, HTTP_ACCEPT_LANGUAGE=language).content)

    rows = table_rows(html)
    # The 12 deals close in December 2026 (sample_values); the bare one has no date.
    assert rows[0][:2] == [month, total]
    assert len(select(html, "svg.chart rect.chart-bar")) == len(rows)


# --- the formats themselves (pure) ---------------------------------------------------


def test_english_keeps_the_consoles_forms():
    english = local_formats.for_language("en")
    moment = dt.datetime(2026, 11, 16, 10, 30, tzinfo=dt.timezone(dt.timedelta(hours=1), "CET"))
    assert english.number(decimal.Decimal("10023.75")) == "10,023.75"
    assert english.number(decimal.Decimal("-1234.565"), places=2) == "-1,234.57"  # half up, as before
    assert english.amount(english.number(decimal.Decimal("1234.5"), places=2), "EUR") == "EUR 1,234.50"
    assert english.date(dt.date(2026, 3, 5)) == "2026-03-05"
    assert english.date_time(moment) == "2026-11-16 10:30 CET"
    assert (english.month(dt.date(2026, 3, 1)), english.month_short(dt.date(2026, 3, 1))) == ("March 2026", "Mar 2026")
    assert english.dollars(1234.5) == "$1,234.50" and english.dollars(0.00123, places=4) == "$0.0012"
    assert english.integer(50_000) == "50,000"


def test_german_and_french_write_their_own_separators_months_and_signs():
    german, french = local_formats.for_language("de"), local_formats.for_language("fr")
    assert german.number(decimal.Decimal("-1234567.125")) == "-1.234.567,125"
    assert french.number(decimal.Decimal("1234.5"), places=2) == "1\xa0234,50"
    assert german.amount("1.234,50", "USD") == "1.234,50\xa0$"
    assert french.amount("12,00", "CHF") == "12,00\xa0CHF"  # a code without a sign of its own
    assert (german.month(dt.date(2026, 3, 1)), french.month(dt.date(2026, 3, 1))) == ("März 2026", "mars 2026")
    assert (german.month_short(dt.date(2026, 7, 1)), french.month_short(dt.date(2026, 7, 1))) == (
        "Juli 2026",
        "juil. 2026",
    )
    assert (german.day(dt.date(2026, 3, 5)), french.day(dt.date(2026, 3, 5))) == ("5. März 2026", "5 mars 2026")
    assert german.dollars(1234.5) == "1.234,50\xa0$"
    assert french.integer(50_000) == "50\xa0000"


def test_a_format_letter_not_compiled_falls_back_to_djangos_dateformat():
    pattern = local_formats.DatePattern.compile("D, j M Y", months=("",) * 13, short_months=("",) * 13)
    assert pattern.template is None
    with translation.override("en"):
        assert pattern(dt.date(2026, 11, 16)) == "Mon, 16 Nov 2026"


def test_the_active_language_is_resolved_once_per_language():
    local_formats.for_language.cache_clear()
    with translation.override("de"):
        assert local_formats.active() is local_formats.active()
    with translation.override("fr"):
        assert local_formats.active().language == "fr"
    assert local_formats.for_language.cache_info().misses == 2
