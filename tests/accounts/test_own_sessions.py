"""One's sessions on /accounts/you/ (issue #40 item 3): the device from the
user agent, the address, last seen; "sign out other sessions"; sign-ins in the
audit trail. The list is one query however many sessions there are."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from dashboard.accounts.middleware import SEEN_AT
from dashboard.audit.models import AuditEntry
from dashboard.people.devices import device_of
from dashboard.people.models import SignedInSession
from tests.helpers import PASSWORD
from tests.html import parse, text_of

FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
)


def signed_in(*, agent: str, address: str) -> Client:
    browser = Client(HTTP_USER_AGENT=agent, REMOTE_ADDR=address)
    assert browser.post(reverse("login"), {"username": "alice", "password": PASSWORD}).status_code == 302
    return browser


def session_rows(response) -> list[list[str]]:
    table = parse(response.content).select_one("[aria-labelledby=sessions-heading] table")
    return [[text_of(cell) for cell in row.select("th, td")] for row in table.select("tbody tr")]


@pytest.mark.parametrize(
    ("agent", "words"),
    [
        (FIREFOX, "Firefox on Windows"),
        (IPHONE, "Safari on iPhone"),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
            "Edge on macOS",
        ),
        ("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36", "Chrome on Android"),
        ("", "An unknown browser"),
    ],
)
def test_a_device_in_words(agent, words):
    assert device_of(agent) == words


def test_the_sessions_are_listed_with_device_address_and_this_one_first(user):
    signed_in(agent=IPHONE, address="198.51.100.7")
    here = signed_in(agent=FIREFOX, address="203.0.113.5")

    rows = session_rows(here.get(reverse("own_account")))

    assert [row[:2] for row in rows] == [
        ["Firefox on Windows this session", "203.0.113.5"],
        ["Safari on iPhone", "198.51.100.7"],
    ]


def test_sign_ins_are_in_the_audit_trail_as_account_entries(user):
    signed_in(agent=IPHONE, address="198.51.100.7")

    (entry,) = AuditEntry.objects.filter(action="signed_in")
    assert (entry.kind, entry.user_id, entry.subject_id) == (AuditEntry.KIND_ACCOUNT, user.pk, user.pk)
    assert entry.summary == "alice signed in: Safari on iPhone from 198.51.100.7"
    assert entry.details == {"device": "Safari on iPhone", "address": "198.51.100.7"}


def test_a_request_moves_last_seen_at_most_once_a_minute(user):
    here = signed_in(agent=FIREFOX, address="203.0.113.5")
    row = SignedInSession.objects.get(user=user)
    SignedInSession.objects.filter(pk=row.pk).update(last_seen_at=row.created_at.replace(year=2025))
    session = here.session
    session[SEEN_AT] = time.time() - 120
    session.save()

    here.get(reverse("own_account"))

    row.refresh_from_db()
    assert row.last_seen_at.year != 2025
    moved = row.last_seen_at
    here.get(reverse("own_account"))  # within the minute: no write
    row.refresh_from_db()
    assert row.last_seen_at == moved


def test_sign_out_other_sessions_keeps_this_one_and_tells_the_others(user):
    phone = signed_in(agent=IPHONE, address="198.51.100.7")
    here = signed_in(agent=FIREFOX, address="203.0.113.5")

    response = here.post(reverse("own_sessions_sign_out"))

    assert response.status_code == 302
    page = here.get(reverse("own_account"))
    assert "1 other session was signed out." in text_of(parse(page.content).body)
    assert [row[0] for row in session_rows(page)] == ["Firefox on Windows this session"]
    sent = phone.get(reverse("own_account"))
    assert sent.status_code == 302
    assert "signed out from another of your sessions" in text_of(parse(phone.get(sent["Location"]).content).body)
    (entry,) = AuditEntry.objects.filter(action="sessions_signed_out")
    assert entry.details == {"sessions": 1} and entry.user_id == user.pk


def test_nothing_to_sign_out_is_said(user):
    here = signed_in(agent=FIREFOX, address="203.0.113.5")
    here.post(reverse("own_sessions_sign_out"))
    assert "nothing to sign out" in text_of(parse(here.get(reverse("own_account")).content).body)


def test_the_list_is_flat_in_queries_at_50_and_1000_sessions(user):
    here = signed_in(agent=FIREFOX, address="203.0.113.5")

    def queries_with(count: int) -> tuple[int, int]:
        have = SignedInSession.objects.filter(user=user).count()
        SignedInSession.objects.bulk_create(
            SignedInSession(user=user, session_key=f"s{count}-{n:06d}", user_agent=IPHONE, address="198.51.100.9")
            for n in range(count - have)
        )
        with CaptureQueriesContext(connection) as queries:
            response = here.get(reverse("own_account"))
        return len(queries), len(session_rows(response))

    at_50, rows_50 = queries_with(50)
    at_1000, rows_1000 = queries_with(1000)
    assert (rows_50, rows_1000) == (50, 1000)
    assert at_50 == at_1000


def test_the_latest_sign_ins_are_listed_newest_first(user):
    signed_in(agent=IPHONE, address="198.51.100.7")
    here = signed_in(agent=FIREFOX, address="203.0.113.5")

    items = parse(here.get(reverse("own_account")).content).select("[aria-labelledby=sign-ins-heading] ol li")

    assert [text_of(item).split(": ", 1)[1] for item in items] == [
        "Firefox on Windows from 203.0.113.5",
        "Safari on iPhone from 198.51.100.7",
    ]
