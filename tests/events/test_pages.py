"""The Administrators' pages of outbound events: access follows the key (an
Administrator without a working key of the workspace, or of another
workspace, sees nothing of it; a Member is refused in words), the delivery
log pages with the same queries at 50 and 1,000 deliveries, an address inside
the console's network is refused outside development, editing keeps the
address unless a new one is given."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from dashboard.events.models import Attempt, Delivery, Endpoint, Event
from dashboard.keys.models import ApiKey
from dashboard.signed_calls import CallProblem, post_signed
from tests.events.conftest import WORKSPACE, endpoint_add, person
from tests.html import one, select, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def endpoint(signed_in, receiver):
    row, _ = endpoint_add(signed_in, url=receiver.url, types=["run.failed", "job.finished"], label="Pager tool")
    return row


def test_the_endpoints_page_lists_this_workspace_s_endpoints(signed_in, endpoint):
    page = signed_in.get(reverse("events:endpoints"))
    row = one(page.content, f"#endpoint-{endpoint.pk}")
    assert row["data-enabled"] == "yes"
    assert "A job finished; A run failed" in text_of(row)
    assert endpoint.url not in page.content.decode()  # only its host and end are shown


def test_someone_without_a_working_key_of_the_workspace_sees_nothing_of_it(client, django_user_model, endpoint):
    # An Administrator whose key of the workspace the service refused.
    refused = person(django_user_model, "rex")
    ApiKey.objects.filter(user=refused).update(refused_at=timezone.now(), refused_request_id="req_x")
    client.force_login(refused)
    for url in (
        reverse("events:endpoints"),
        reverse("events:log"),
        reverse("events:endpoint", args=[endpoint.pk]),
    ):
        answer = client.get(url)
        assert getattr(answer, "key_refused", False), url
        assert "Pager tool" not in answer.content.decode()
    assert client.post(reverse("events:enable", args=[endpoint.pk]), {"enabled": "0"}).key_refused
    assert Endpoint.objects.get().enabled

    # An Administrator of another workspace: its own (empty) pages, never this one's rows.
    other = person(django_user_model, "olga", workspace_id="ws-other")
    client.force_login(other)
    assert select(client.get(reverse("events:endpoints")).content, "#endpoints tr") == []
    assert client.get(reverse("events:endpoint", args=[endpoint.pk])).status_code == 404
    assert client.post(reverse("events:test", args=[endpoint.pk])).status_code == 404
    assert client.post(reverse("events:secret", args=[endpoint.pk])).status_code == 404
    assert not Delivery.objects.exists()


def test_a_member_with_a_working_key_is_refused_in_words(client, django_user_model, endpoint):
    member = person(django_user_model, "mo", admin=False)
    client.force_login(member)
    answer = client.get(reverse("events:log"))
    assert answer.status_code == 403
    assert "Only Administrators set where a workspace's events go" in text_of(one(answer.content, "main"))


def _deliveries(endpoint: Endpoint, count: int) -> None:
    now, start = timezone.now(), Event.objects.count()
    events = Event.objects.bulk_create(
        Event(event_id=f"evt_{n:032x}", workspace_id=WORKSPACE, type="run.failed", key=f"k:{n}", payload={})
        for n in range(start, start + count)
    )
    deliveries = Delivery.objects.bulk_create(
        Delivery(endpoint=endpoint, event=event, status="sent", attempts=1, last_status=200, sent_at=now)
        for event in events
    )
    Attempt.objects.bulk_create(Attempt(delivery=row, number=1, at=now, status=200) for row in deliveries)


def _log_queries(client) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("events:log"))
    assert page.status_code == 200
    return len(queries), len(select(page.content, "#deliveries tbody tr"))


def test_the_delivery_log_stays_flat_from_50_to_1000_deliveries(signed_in, endpoint):
    _deliveries(endpoint, 50)
    small, rows = _log_queries(signed_in)
    assert rows == 50
    _deliveries(endpoint, 950)
    large, rows = _log_queries(signed_in)
    assert (large, rows) == (small, 50)
    # The next page follows by a cursor, the same queries again.
    page = signed_in.get(reverse("events:log"))
    next_link = one(page.content, "a[rel=next]")["href"]
    with CaptureQueriesContext(connection) as queries:
        second = signed_in.get(reverse("events:log") + next_link)
    assert len(select(second.content, "#deliveries tbody tr")) == 50
    assert len(queries) == small
    first_ids = {tr["id"] for tr in select(page.content, "#deliveries tbody tr")}
    assert not first_ids & {tr["id"] for tr in select(second.content, "#deliveries tbody tr")}


def test_an_address_inside_the_console_s_network_is_refused_in_production(signed_in, settings):
    settings.EVENTS_ALLOW_PRIVATE_ADDRESSES = False
    settings.EVENTS_ALLOW_HTTP = False
    for url, words in (
        ("https://127.0.0.1/hook", "inside the console's own network"),
        ("https://10.1.2.3/hook", "inside the console's own network"),
        ("https://[::1]/hook", "inside the console's own network"),
        ("https://169.254.169.254/latest", "inside the console's own network"),
        ("http://93.184.215.14/hook", "Give the full https:// address."),
    ):
        page = signed_in.post(reverse("events:endpoints"), {"label": "x", "url": url, "event_types": ["run.failed"]})
        assert page.status_code == 400
        assert words in text_of(one(page.content, "#id_url_error")), url
    assert not Endpoint.objects.exists()
    # And at the call itself (the name is resolved and checked each time).
    with pytest.raises(CallProblem, match="inside the console's own network"):
        post_signed("https://localhost/hook", body=b"{}", headers={}, timeout=1, allow_private=False)


def test_editing_keeps_the_address_unless_a_new_one_is_given(signed_in, endpoint, receiver):
    page = signed_in.get(reverse("events:endpoint", args=[endpoint.pk]))
    assert one(page.content, "#id_url").get("value") in (None, "")  # the address is never shown again
    answer = signed_in.post(
        reverse("events:endpoint", args=[endpoint.pk]),
        {"label": "Renamed", "url": "", "event_types": ["record.changed"], "enabled": "on"},
    )
    assert answer.status_code == 302
    endpoint.refresh_from_db()
    assert (endpoint.label, endpoint.event_types, endpoint.url) == ("Renamed", ["record.changed"], receiver.url)


def test_the_log_filters_by_status_and_endpoint(signed_in, endpoint):
    _deliveries(endpoint, 3)
    Delivery.objects.filter(pk=Delivery.objects.order_by("pk").first().pk).update(status="failed", last_error="Gave up")
    page = signed_in.get(reverse("events:log"), {"status": "failed", "endpoint": endpoint.pk})
    rows = select(page.content, "#deliveries tbody tr")
    assert [row["data-status"] for row in rows] == ["failed"]
    current = one(page.content, "nav[aria-label='Deliveries by status'] a[aria-current=page]")
    assert text_of(current) == "Gave up"


def test_an_endpoint_added_disabled_receives_nothing_from_the_start(signed_in, receiver):
    from dashboard.events.services import event_emit

    row, _ = endpoint_add(signed_in, url=receiver.url, types=["run.failed"], label="Later", enabled=False)
    assert not row.enabled
    assert event_emit(workspace_id=WORKSPACE, type="run.failed", key="run.failed:r1", data={}) is None
    assert not Delivery.objects.exists()
