"""The home page's "Running now" region, polled through the console: the
poll URL carries the version the page shows; while it is current the answer
is 204 from one query, a change is rendered, and once nothing runs that
render is answered 286, which stops the polling. No remote call, ever."""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone

from dashboard.api.testing import RemoteCallCounter
from dashboard.live.models import TrackedOperation
from tests.html import one, parse, root_ids, texts

HTMX = {"HTTP_HX_REQUEST": "true"}


def poll_url(client) -> str:
    return one(parse(client.get(reverse("home")).content), "section#home-running")["hx-get"]


def test_an_unchanged_poll_is_204_from_one_query(api_key, make_turn, logged_in_client, django_assert_max_num_queries):
    make_turn()
    url = poll_url(logged_in_client)
    # The session, the user, and the running rows' version columns (the active key in a subquery).
    with RemoteCallCounter() as calls, django_assert_max_num_queries(3):
        response = logged_in_client.get(url, **HTMX)
    assert response.status_code == 204 and response.content == b""
    assert calls.paths == []


def test_a_change_is_rendered_and_the_last_running_row_ending_stops_the_polling(api_key, make_turn, logged_in_client):
    first = make_turn(remote_id="turn-a")
    url = poll_url(logged_in_client)

    second = make_turn(remote_id="turn-b")
    TrackedOperation.objects.filter(pk=second.pk).update(title="Write the spring newsletter")
    changed = logged_in_client.get(url, **HTMX)
    assert changed.status_code == 200
    assert root_ids(changed.content) == ["section#home-running"]
    assert texts(changed.content, ".home-list__title") == [
        "Write the spring newsletter",
        "Build a landing page for our spring sale",
    ]
    url = one(changed.content, "section#home-running")["hx-get"]

    TrackedOperation.objects.filter(pk__in=[first.pk, second.pk]).update(
        status="completed", is_final=True, updated_at=timezone.now()
    )
    final = logged_in_client.get(url, **HTMX)
    assert final.status_code == 286
    region = one(final.content, "section#home-running")
    assert not region.has_attr("hx-get")
    assert texts(region, ".home-empty")[0].startswith("Nothing of yours is running.")


def test_another_persons_work_never_shows(api_key, other_api_key, make_turn, logged_in_client):
    make_turn(owner_key=other_api_key, started_by=other_api_key.user)
    page = parse(logged_in_client.get(reverse("home")).content)
    assert texts(page, "section#home-running .home-list__title") == []
    assert logged_in_client.get(reverse("home_running"), **HTMX).status_code == 286
