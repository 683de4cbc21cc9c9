"""The key re-check's transport and error paths (respx): when a page asks
`GET /v1/me` again, what a slow, failing or rate-limiting service costs, how
two requests share one check, what a check stores, and how beat's sweep
slices the keys and stops on a 429. The journey against a real sandbox is
tests/keys/test_revoked_member.py."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.keys.models import ApiKey
from dashboard.keys.recheck import Recheck, api_key_recheck, api_keys_recheck_due
from dashboard.keys.testing import stored_api_key
from tests.keys.support import DEMO_SECRET, error_body, me_body

INTERVAL = 60.0


@pytest.fixture(autouse=True)
def interval(settings):
    settings.KEY_RECHECK_SECONDS = INTERVAL


@pytest.fixture
def key(db, user):
    return stored_api_key(user=user, secret=DEMO_SECRET, checked=False)


def due(key, seconds: float = INTERVAL + 1) -> None:
    ApiKey.objects.filter(pk=key.pk).update(checked_at=timezone.now() - timedelta(seconds=seconds))
    key.refresh_from_db()


def test_a_page_asks_once_per_interval(remote, key, logged_in_client):
    me = remote.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body(role="member")))

    for _ in range(3):
        assert logged_in_client.get(reverse("inbox:index")).status_code == 200
    assert me.call_count == 1
    key.refresh_from_db()
    # What /v1/me said is stored again: a role changed in the product counts from now on.
    assert key.member_role == "member" and key.workspace_name == "Acme Marketing"
    assert key.last_verified_at is not None and key.checked_at == key.last_verified_at

    due(key)
    logged_in_client.get(reverse("inbox:index"))
    assert me.call_count == 2


def test_pages_that_work_without_a_key_ask_nothing(remote, key, logged_in_client):
    me = remote.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))
    for name in ("keys:list", "people:theme"):
        logged_in_client.get(reverse(name))
    assert me.call_count == 0


@pytest.mark.parametrize(
    "answer",
    [
        httpx.Response(503, json=error_body("server_error", "Busy.", "req_busy")),
        httpx.ConnectError("refused"),
    ],
)
def test_a_service_that_does_not_say_keeps_the_last_answer_and_is_asked_again_soon(remote, key, answer, user):
    me = remote.get("/v1/me").mock(side_effect=[answer, httpx.Response(200, json=me_body())])

    now = timezone.now()
    assert api_key_recheck(key=key, every_seconds=INTERVAL, now=now).outcome is Recheck.UNKNOWN
    key.refresh_from_db()
    assert key.refused_at is None
    # Owed again after the short wait, not a whole interval later.
    soon = now + timedelta(seconds=11)
    assert api_key_recheck(key=key, every_seconds=INTERVAL, now=now + timedelta(seconds=5)).outcome is Recheck.FRESH
    assert api_key_recheck(key=key, every_seconds=INTERVAL, now=soon).outcome is Recheck.WORKS
    assert me.call_count == 2


def test_a_page_is_shown_when_the_service_is_down_at_the_check(remote, key, logged_in_client):
    remote.get("/v1/me").mock(return_value=httpx.Response(503, json=error_body("server_error", "Busy.", "req_b")))
    assert logged_in_client.get(reverse("inbox:index")).status_code == 200


def test_a_429_waits_its_retry_after(remote, key):
    me = remote.get("/v1/me").mock(
        return_value=httpx.Response(
            429, headers={"Retry-After": "30"}, json=error_body("rate_limited", "Slow down.", "req_429")
        )
    )
    now = timezone.now()
    result = api_key_recheck(key=key, every_seconds=INTERVAL, now=now)
    assert result.outcome is Recheck.UNKNOWN and result.retry_after == 30
    assert api_key_recheck(key=key, every_seconds=INTERVAL, now=now + timedelta(seconds=29)).outcome is Recheck.FRESH
    assert me.call_count == 1


def test_two_requests_share_one_check(remote, key):
    me = remote.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))
    other = ApiKey.objects.get(pk=key.pk)  # a second request's copy, read before the first one asked

    assert api_key_recheck(key=key, every_seconds=INTERVAL).outcome is Recheck.WORKS
    assert api_key_recheck(key=other, every_seconds=INTERVAL).outcome is Recheck.FRESH
    assert me.call_count == 1


def test_a_401_marks_the_key_refused(remote, key):
    remote.get("/v1/me").mock(return_value=httpx.Response(401, json=error_body("authentication", "Revoked.", "req_r")))

    assert api_key_recheck(key=key, every_seconds=INTERVAL).refused
    key.refresh_from_db()
    assert key.refused_request_id == "req_r"


def test_the_sweep_takes_a_share_of_the_keys_oldest_first_and_stops_on_a_429(remote, django_user_model):
    keys = []
    for number in range(40):
        person = django_user_model.objects.create_user(username=f"member{number}")
        keys.append(stored_api_key(user=person, secret=f"{DEMO_SECRET[:-4]}{number:04d}", checked=False))
    me = remote.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    # 40 keys, a 300 s window, a run every 15 s: 2 a run, one after another.
    sweep = api_keys_recheck_due(window_seconds=300, run_seconds=15)
    assert (sweep.asked, sweep.stopped, me.call_count) == (2, "", 2)
    asked = set(ApiKey.objects.filter(checked_at__isnull=False).values_list("pk", flat=True))
    assert asked == {keys[0].pk, keys[1].pk}  # never checked: the oldest of all

    me.mock(
        return_value=httpx.Response(
            429, headers={"Retry-After": "120"}, json=error_body("rate_limited", "Slow down.", "req_429")
        )
    )
    sweep = api_keys_recheck_due(window_seconds=300, run_seconds=15)
    assert (sweep.asked, me.call_count) == (1, 3)
    assert "slow down" in sweep.stopped
    paused = api_keys_recheck_due(window_seconds=300, run_seconds=15)
    assert paused.asked == 0 and me.call_count == 3  # waits the Retry-After


def test_the_sweep_leaves_refused_keys_and_deactivated_people(remote, key, user, other_user):
    other = stored_api_key(user=other_user, secret=DEMO_SECRET, checked=False)
    ApiKey.objects.filter(pk=key.pk).update(refused_at=timezone.now())
    type(other_user).objects.filter(pk=other_user.pk).update(is_active=False)
    me = remote.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    assert api_keys_recheck_due(window_seconds=300, run_seconds=15).asked == 0
    assert me.call_count == 0
    other.refresh_from_db()
    assert other.checked_at is None


def test_a_palette_source_refused_mid_search_leaves_only_the_consoles_pages_and_says_why(remote, key, logged_in_client):
    from dashboard.palette.search import KEY_REFUSED_NOTE
    from tests.html import parse, select, text_of

    ApiKey.objects.filter(pk=key.pk).update(checked_at=timezone.now())  # fresh: no re-check first
    remote.route().mock(return_value=httpx.Response(401, json=error_body("authentication", "Revoked.", "req_pal")))

    response = logged_in_client.get(reverse("palette"), {"q": "api keys"})

    key.refresh_from_db()
    assert key.refused_request_id == "req_pal"
    html = parse(response.content.decode())
    assert KEY_REFUSED_NOTE in [text_of(note) for note in select(html, ".palette-results__note")]
    assert select(html, ".palette-results__failure") == []  # answered again without the workspace's sources
    assert select(html, f'a[href="{reverse("keys:list")}"]')
