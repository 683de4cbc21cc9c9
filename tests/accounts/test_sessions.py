"""Session limits: idle (polls are not activity) and absolute, and
`Cache-Control: private, no-store` on everything a logged-in person sees.
Time is moved by writing the session's clocks into the past."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest
from cryptography.fernet import Fernet
from django.urls import reverse

from dashboard.accounts.middleware import LOGIN_AT, SEEN_AT
from tests.helpers import PASSWORD
from tests.html import texts


@pytest.fixture(autouse=True)
def limits(settings):
    settings.SESSION_IDLE_MINUTES = 60
    settings.SESSION_MAX_HOURS = 12


def set_clocks(client, *, login_ago: float, seen_ago: float) -> None:
    session = client.session
    now = time.time()
    session[LOGIN_AT] = now - login_ago
    session[SEEN_AT] = now - seen_ago
    session.save()


def test_logging_in_starts_both_clocks(client, user):
    before = time.time()
    client.post(reverse("login"), {"username": "alice", "password": PASSWORD})

    assert before <= client.session[LOGIN_AT] <= time.time()
    assert client.session[SEEN_AT] == client.session[LOGIN_AT]


def test_an_idle_session_ends_with_a_message_on_the_login_page(logged_in_client):
    set_clocks(logged_in_client, login_ago=3 * 3600, seen_ago=61 * 60)

    response = logged_in_client.get(reverse("keys:list"))

    assert response.status_code == 302
    assert urlsplit(response["Location"]).path == reverse("login")
    assert "_auth_user_id" not in logged_in_client.session
    login = logged_in_client.get(response["Location"])
    assert texts(login.content, "#messages .alert") == [
        "You were logged out after 60 minutes without activity. Log in again."
    ]


def test_a_session_ends_after_the_absolute_limit_however_active(logged_in_client):
    set_clocks(logged_in_client, login_ago=12 * 3600 + 5, seen_ago=10)

    response = logged_in_client.get(reverse("keys:list"))

    assert urlsplit(response["Location"]).path == reverse("login")
    login = logged_in_client.get(response["Location"])
    assert texts(login.content, "#messages .alert") == ["Your session ended: a login lasts 12 hours. Log in again."]


def test_a_page_view_is_activity(logged_in_client):
    set_clocks(logged_in_client, login_ago=3600, seen_ago=30 * 60)

    assert logged_in_client.get(reverse("keys:list")).status_code == 200

    assert time.time() - logged_in_client.session[SEEN_AT] < 5


@pytest.fixture
def turn(user, settings):
    """A Studio turn of the logged-in person's workspace, still running (its page polls)."""
    from dashboard.live.services import operation_track
    from tests.live.support import SECRET, store_key

    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    return operation_track(owner_key=store_key(user, SECRET), kind="studio.turn", remote_id="turn-1", snapshot={})


def test_status_polls_are_not_activity_and_an_idle_page_polls_its_way_to_the_login_page(logged_in_client, turn):
    op = turn
    poll = {"HX-Request": "true", "HX-Current-URL": f"http://testserver/live/{op.pk}/"}
    set_clocks(logged_in_client, login_ago=3600, seen_ago=30 * 60)
    seen = logged_in_client.session[SEEN_AT]

    assert logged_in_client.get(reverse("live:status", args=[op.pk]), headers=poll).status_code == 200
    assert logged_in_client.session[SEEN_AT] == seen  # the poll did not count

    # Past the idle limit, the next poll sends the page to the login page (htmx's HX-Redirect).
    set_clocks(logged_in_client, login_ago=3600, seen_ago=61 * 60)
    response = logged_in_client.get(reverse("live:status", args=[op.pk]), headers=poll)
    assert response.status_code == 200 and response.content == b""
    assert urlsplit(response["HX-Redirect"]).path == reverse("login")


def test_an_open_studio_conversation_polling_does_not_keep_an_idle_session_alive(logged_in_client, turn):
    conversation = reverse("studio:turn", args=[turn.pk])
    poll = {"HX-Request": "true", "HX-Current-URL": f"http://testserver{conversation}"}
    live = reverse("studio:conversation_live", args=[turn.pk]) + f"?ids={turn.pk}&v=old"
    set_clocks(logged_in_client, login_ago=3600, seen_ago=59 * 60)
    seen = logged_in_client.session[SEEN_AT]

    # A minute of the open page's polls (every 2 s): none of them is activity.
    for _ in range(30):
        assert logged_in_client.get(live, headers=poll).status_code == 200
    assert logged_in_client.session[SEEN_AT] == seen

    # Past the idle limit, the conversation's next poll sends the page to the login page.
    set_clocks(logged_in_client, login_ago=3600, seen_ago=61 * 60)
    response = logged_in_client.get(live, headers=poll)
    assert response.status_code == 200 and response.content == b""
    assert urlsplit(response["HX-Redirect"]).path == reverse("login")
    assert "_auth_user_id" not in logged_in_client.session


def test_pages_of_a_logged_in_person_are_private_and_not_stored(logged_in_client):
    for url in (reverse("home"), reverse("keys:list"), reverse("keys:add")):
        response = logged_in_client.get(url)
        directives = {part.strip() for part in response["Cache-Control"].split(",")}
        assert {"private", "no-store"} <= directives, url


def test_static_files_stay_cacheable(logged_in_client):
    response = logged_in_client.get("/static/css/console.css")

    assert response.status_code == 200
    assert "no-store" not in response.get("Cache-Control", "")
