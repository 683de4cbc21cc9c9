"""Fair use (dashboard/fair_use.py): a session's and an address's requests at
their allowance and past it, over real HTTP and through the test client:
the status, the words, Retry-After, the htmx box, polls counted apart (and
slowed down, never refused with a page), per session and per address."""

from __future__ import annotations

import threading

import httpx
import pytest
from django.test import RequestFactory
from django.urls import resolve, reverse

from dashboard.fair_use import COSTLY, PAGE, POLL, bucket_of
from tests.html import one, select, text_of

# One window for the whole test: the count never resets halfway.
WINDOW = 3600
HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_CURRENT_URL": "http://testserver/keys/"}


@pytest.fixture(autouse=True)
def fair_use_on(settings):
    settings.FAIR_USE_ENABLED = True
    settings.FAIR_USE_WINDOW_SECONDS = WINDOW
    settings.PAGE_VIEWS_PER_SESSION = 3
    settings.PAGE_VIEWS_PER_ADDRESS = 100
    settings.COSTLY_REQUESTS_PER_SESSION = 2
    settings.COSTLY_REQUESTS_PER_ADDRESS = 100
    settings.POLLS_PER_SESSION = 5
    settings.POLLS_PER_ADDRESS = 100
    return settings


def keys_page() -> str:
    return reverse("keys:list")


def assert_refused_page(response, *, path: str, title: str = "Too many pages at once") -> str:
    assert response.status_code == 429
    wait = int(response.headers["Retry-After"])
    assert 1 <= wait <= WINDOW
    assert response.headers["Cache-Control"] == "no-store"
    assert text_of(one(response.content, "h1")) == title
    words = text_of(one(response.content, ".error-page"))
    assert f"try again in {wait} second" in words
    assert "Idempotency" not in words and "429" not in words
    assert one(response.content, "a.btn-primary")["href"] == path
    return words


def test_a_real_client_at_the_limit_and_past_it(live_server, client, user):
    """Over real HTTP (httpx to the live server): three pages answer, the
    fourth is the page in words with Retry-After and a Retry link."""
    client.force_login(user)
    cookies = {"sessionid": client.cookies["sessionid"].value}
    with httpx.Client(base_url=live_server.url, cookies=cookies) as browser:
        answered = [browser.get(keys_page()) for _ in range(3)]
        refused = browser.get(keys_page())

    assert [r.status_code for r in answered] == [200, 200, 200]
    assert refused.headers["Content-Type"].startswith("text/html")
    words = assert_refused_page(refused, path=keys_page())
    assert "this browser session asked for more than 3 pages within 3600 seconds" in words
    # The page is framed by nothing and runs no script.
    assert refused.headers["X-Frame-Options"] == "DENY"
    assert "default-src 'none'" in refused.headers["Content-Security-Policy"]


def test_an_htmx_region_past_the_limit_gets_the_message_box_in_messages(logged_in_client):
    for _ in range(3):
        assert logged_in_client.get(keys_page(), **HTMX).status_code == 200

    response = logged_in_client.get(keys_page(), **HTMX)

    # htmx 2 swaps no 4xx: the box comes with 200 and is sent to #messages
    # (the region asked for stays as it was); never an empty answer.
    assert response.status_code == 200
    assert response.headers["HX-Retarget"] == "#messages"
    assert response.headers["HX-Reswap"].startswith("innerHTML")
    wait = int(response.headers["Retry-After"])
    box = one(response.content, "[data-remote-error]")
    assert box["data-error-kind"] == "rate_limited"
    assert text_of(one(box, ".alert-title")) == "Too many pages at once"
    assert f"try again in {wait} second" in text_of(box)
    # It counts Retry-After down and re-issues the request once by itself (static/js/retry.js).
    assert one(box, "[data-retry-after]")["data-retry-after"] == str(wait)
    assert one(box, "[data-retry]")["data-retry"] == "request"


def test_a_form_posted_past_the_limit_says_it_was_not_received(logged_in_client, fair_use_on):
    fair_use_on.PAGE_VIEWS_PER_SESSION = 0
    response = logged_in_client.post(reverse("keys:add"), {"name": "x"})

    words = text_of(one(response.content, ".error-page"))
    assert response.status_code == 429
    assert "What you sent was not received" in words
    assert "what you typed is still in the form" in words
    assert not select(response.content, "a.btn-primary")  # no Retry link to a form's address


def test_a_session_with_too_many_pages_loading_at_once_is_told_to_retry_in_a_second(logged_in_client, fair_use_on):
    """More pages in flight than a person has is a scanner. The session's
    slots are taken (as 3 requests still loading would)."""
    from django.core.cache import cache

    from dashboard.fair_use import session_ident

    fair_use_on.PAGE_VIEWS_PER_SESSION = 100
    fair_use_on.PAGES_AT_ONCE_PER_SESSION = 3
    logged_in_client.get(keys_page())  # the session cookie as the browser sends it
    request = RequestFactory().get("/", HTTP_COOKIE=f"sessionid={logged_in_client.cookies['sessionid'].value}")
    cache.set(f"fair:in-flight:{session_ident(request)}", 3, timeout=60)

    refused = logged_in_client.get(keys_page())

    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "1"
    assert "this browser session has more than 3 pages loading at once" in text_of(one(refused.content, ".error-page"))
    # One of them ends: the next page is answered, and gives its slot back.
    cache.decr(f"fair:in-flight:{session_ident(request)}")
    assert logged_in_client.get(keys_page()).status_code == 200
    assert cache.get(f"fair:in-flight:{session_ident(request)}") == 2


def test_polls_are_counted_apart_and_slow_down_without_a_page_of_error(logged_in_client):
    poll = reverse("inbox:header")
    assert bucket_of_path(poll) == POLL

    answered = [logged_in_client.get(poll, **HTMX) for _ in range(5)]
    # Polls do not spend the page views' allowance: the pages still answer.
    for _ in range(3):
        assert logged_in_client.get(keys_page()).status_code == 200
    slowed = logged_in_client.get(poll, **HTMX)

    assert all(r.status_code != 429 for r in answered)
    # Past the polls' allowance: 204 (htmx swaps nothing and keeps polling), when to ask again.
    assert slowed.status_code == 204
    assert slowed.content == b""
    assert 1 <= int(slowed.headers["Retry-After"]) <= WINDOW


def test_the_limit_is_per_session(client, other_user, user, django_user_model):
    from django.test import Client

    first, second = client, Client()
    first.force_login(user)
    second.force_login(other_user)
    for _ in range(3):
        assert first.get(keys_page()).status_code == 200
    assert first.get(keys_page()).status_code == 429

    # The same address, another session: its own allowance.
    assert second.get(keys_page()).status_code == 200


def test_the_limit_is_per_address_whatever_the_sessions(client, user, fair_use_on):
    from django.test import Client

    fair_use_on.PAGE_VIEWS_PER_SESSION = 100
    fair_use_on.PAGE_VIEWS_PER_ADDRESS = 4
    client.force_login(user)
    others = [Client() for _ in range(2)]
    for other in others:
        other.force_login(user)
    # A new session each time (or none) does not reset the count of its address.
    for browser in (client, *others, client):
        assert browser.get(keys_page(), REMOTE_ADDR="198.51.100.9").status_code == 200
    refused = others[0].get(keys_page(), REMOTE_ADDR="198.51.100.9")
    cookieless = Client().get(reverse("login"), REMOTE_ADDR="198.51.100.9")

    words = assert_refused_page(refused, path=keys_page())
    assert "the people and programs at your network address asked for more than 4 pages" in words
    assert cookieless.status_code == 429
    # Another address is not held back.
    assert client.get(keys_page(), REMOTE_ADDR="198.51.100.10").status_code == 200


def test_searches_count_against_the_tighter_allowance(logged_in_client):
    palette = reverse("palette")
    assert bucket_of_path(palette) == PAGE  # no query: a page of the console's own
    for _ in range(2):
        assert logged_in_client.get(palette, {"q": "deals"}, **HTMX).status_code != 429

    refused = logged_in_client.get(palette, {"q": "deals"}, **HTMX)
    box = one(refused.content, "[data-remote-error]")
    assert text_of(one(box, ".alert-title")) == "Too many searches or exports at once"
    assert "more than 2 searches and exports within 3600 seconds" in text_of(box)
    # Pages are counted apart: still answered.
    assert logged_in_client.get(keys_page()).status_code == 200


def bucket_of_path(path: str, **query: str) -> str | None:
    from django.test import RequestFactory

    return bucket_of(RequestFactory().get(path, query))


def test_costly_views_are_marked_and_probes_never_counted():
    from django.test import RequestFactory

    factory = RequestFactory()
    assert bucket_of(factory.get(reverse("palette"), {"q": "x"})) == COSTLY
    assert bucket_of(factory.get(reverse("audit:export"))) == COSTLY
    assert bucket_of(factory.get(reverse("objects:records_export", args=["deals"]))) == COSTLY
    assert bucket_of(factory.get(reverse("objects:records", args=["deals"]), {"q": "acme"})) == COSTLY
    assert bucket_of(factory.get(reverse("objects:records", args=["deals"]))) == PAGE
    assert bucket_of(factory.get(reverse("studio:library_zip"))) == COSTLY
    assert bucket_of(factory.post(reverse("login"), {"username": "a", "password": "b"})) == COSTLY
    assert bucket_of(factory.get("/no-such-page/")) == PAGE  # a scanner's guesses count
    for probe in ("livez", "readyz", "healthz"):
        assert bucket_of(factory.get(reverse(probe))) is None
    assert resolve(reverse("palette")).func.console_costly == "q"


def test_probes_answer_past_every_limit(client, fair_use_on):
    fair_use_on.PAGE_VIEWS_PER_ADDRESS = 0
    assert client.get(reverse("livez")).status_code == 200


# Logins: a bounded number of password checks at once per process.


@pytest.fixture
def many_costly_requests(settings):
    settings.COSTLY_REQUESTS_PER_SESSION = 100


@pytest.fixture
def slot_taken(settings):
    """Another login holds this process's one password-check slot until released."""
    from dashboard.accounts.login_slots import password_check_slot

    settings.LOGIN_HASHES_AT_ONCE = 1
    taken, release = threading.Event(), threading.Event()

    def hold():
        with password_check_slot() as free:
            assert free
            taken.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    taken.wait(5)
    yield release
    release.set()
    holder.join(5)


def test_a_login_past_the_queue_is_asked_to_try_again_and_nothing_counts_against_it(
    client, many_costly_requests, user, slot_taken, settings
):
    from axes.models import AccessAttempt

    from tests.helpers import PASSWORD

    settings.LOGIN_HASH_QUEUE = 0
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})

    assert response.status_code == 429
    wait = int(response["Retry-After"])
    alert = text_of(one(response.content, ".alert-error"))
    assert "Many people are logging in at this moment" in alert
    assert f"Try again in {wait} second" in alert
    assert one(response.content, "input[name=username]")["value"] == "alice"
    assert not one(response.content, "input[name=password]").get("value")
    assert not AccessAttempt.objects.exists()
    assert "_auth_user_id" not in client.session


def test_a_login_waits_in_the_queue_for_a_slot_and_gets_in(client, many_costly_requests, user, slot_taken, settings):
    from tests.helpers import PASSWORD

    settings.LOGIN_HASH_QUEUE = 1
    settings.LOGIN_HASH_WAIT_SECONDS = 10
    threading.Timer(0.3, slot_taken.set).start()  # the other login ends

    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})

    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(user.pk)
