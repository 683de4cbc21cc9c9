"""The status partial the browser polls: rendered from the row alone."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import httpx
from django.urls import reverse
from django.utils import timezone

from dashboard.live import selectors, services
from dashboard.live.models import TrackedOperation
from tests.html import one, parse, root_ids, select, text_of, texts
from tests.live.support import TURN_ID, turn_body

HTMX = {"HTTP_HX_REQUEST": "true"}
POLLING = "every 2s"  # the hx-trigger of a region that keeps polling


def _pollers(body: str) -> list[str]:
    """The hx-trigger of every element in the response that polls."""
    return [element["hx-trigger"] for element in select(body, "[hx-trigger]")]


def _page_text(body: str) -> str:
    """What a person reads on the page or partial."""
    return text_of(parse(body))


def test_twenty_browser_polls_make_no_remote_call_and_the_final_one_answers_286(
    db, remote, make_turn, logged_in_client
):
    route = remote.get(f"/v1/turns/{TURN_ID}").mock(
        return_value=httpx.Response(200, json=turn_body("completed", message="Your site is live."))
    )
    op = make_turn(due=False)
    url = reverse("live:status", args=[op.pk])

    for _ in range(20):
        response = logged_in_client.get(url, **HTMX)
        assert response.status_code == 200
        assert one(response.content.decode(), f"#live-op-{op.pk}")["hx-trigger"] == POLLING
    assert remote.calls.call_count == 0

    services.operation_poll(operation_id=op.pk)
    assert route.call_count == 1

    response = logged_in_client.get(url, **HTMX)
    body = response.content.decode()
    assert response.status_code == 286
    assert root_ids(body) == [f"section#live-op-{op.pk}"]
    assert select(body, "[hx-trigger], [hx-get]") == []
    region = one(body, f"#live-op-{op.pk}")
    assert text_of(one(region, ".live-status")) == "Completed" and "Your site is live." in text_of(region)
    assert route.call_count == 1


def test_the_row_variant_polls_itself_until_final(db, make_turn, logged_in_client):
    op = make_turn(due=False)
    url = reverse("live:status", args=[op.pk]) + "?view=row"
    body = logged_in_client.get(url, **HTMX).content.decode()
    row = one(body, f"#live-row-{op.pk}")
    assert row["hx-trigger"] == POLLING
    polled = urlsplit(row["hx-get"])
    assert polled.path == reverse("live:status", args=[op.pk]) and parse_qs(polled.query)["view"] == ["row"]

    TrackedOperation.objects.filter(pk=op.pk).update(status="failed", is_final=True)
    response = logged_in_client.get(url, **HTMX)
    body = response.content.decode()
    assert response.status_code == 286 and one(body, f"#live-row-{op.pk}") and _pollers(body) == []


def test_live_updates_paused_after_30_seconds_without_a_refresh(db, api_key, make_turn, logged_in_client):
    op = make_turn(due=False)
    url = reverse("live:status", args=[op.pk])
    now = timezone.now()

    TrackedOperation.objects.filter(pk=op.pk).update(last_polled_at=now - timedelta(seconds=10))
    body = logged_in_client.get(url, **HTMX).content.decode()
    assert select(body, ".live-paused") == [] and "Live updates paused" not in _page_text(body)

    stale = now - timedelta(seconds=31)
    TrackedOperation.objects.filter(pk=op.pk).update(last_polled_at=stale)
    body = logged_in_client.get(url, **HTMX).content.decode()
    assert text_of(one(body, ".live-paused")).startswith("Live updates paused")
    assert text_of(one(body, ".live-paused time")) == stale.strftime("%H:%M:%S UTC")
    # Keeps asking, so it resumes when a worker is back.
    assert one(body, f"#live-op-{op.pk}")["hx-trigger"] == POLLING

    # Shown in the workspace's own time zone.
    api_key.workspace_timezone = "Asia/Tokyo"
    api_key.save()
    body = logged_in_client.get(url, **HTMX).content.decode()
    tokyo = stale.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%H:%M:%S JST")
    assert text_of(one(body, ".live-paused time")) == tokyo

    # A row never polled counts from when it was recorded.
    TrackedOperation.objects.filter(pk=op.pk).update(last_polled_at=None, created_at=now - timedelta(seconds=45))
    body = logged_in_client.get(url, **HTMX).content.decode()
    assert text_of(one(body, ".live-paused")).startswith("Live updates paused")

    # A final row is never "paused".
    TrackedOperation.objects.filter(pk=op.pk).update(is_final=True, status="completed")
    body = logged_in_client.get(url, **HTMX).content.decode()
    assert select(body, ".live-paused") == [] and "Live updates paused" not in _page_text(body)


def test_another_users_operation_is_404(db, make_turn, other_user, client):
    op = make_turn(due=False)
    client.force_login(other_user)
    assert client.get(reverse("live:status", args=[op.pk]), **HTMX).status_code == 404
    assert client.get(reverse("live:detail", args=[op.pk])).status_code == 404


def test_a_stopped_operation_shows_why_with_the_request_id(db, make_turn, logged_in_client):
    op = make_turn(due=False)
    TrackedOperation.objects.filter(pk=op.pk).update(
        status=TrackedOperation.STATUS_STOPPED,
        is_final=True,
        last_error="The service refused the API key this was started with.",
        last_error_request_id="req_refused_1",
    )
    response = logged_in_client.get(reverse("live:status", args=[op.pk]), **HTMX)
    body = response.content.decode()
    assert response.status_code == 286
    alert = one(body, f"#live-op-{op.pk} [role=alert]")
    assert "refused the API key" in text_of(alert) and text_of(one(alert, "code")) == "req_refused_1"
    assert "svc_sk_" not in body


def test_an_unknown_kind_renders_its_snapshot_as_readable_json(db, api_key, user, logged_in_client):
    op = services.operation_track(
        owner_key=api_key,
        kind="someday.thing",
        remote_id="r-1",
        title="Something new",
        snapshot={"status": "running", "progress": {"done_steps": 3, "notes": ["a <b>", None]}},
    )
    response = logged_in_client.get(reverse("live:detail", args=[op.pk]))
    body = response.content.decode()
    assert response.status_code == 200
    view = one(body, ".json-view")
    assert "done steps" in texts(view, "dt")
    # The text reads "a <b>" only because the markup escaped it: no <b> element anywhere.
    assert texts(view, ".json-list > li") == ["a <b>", "null"] and select(body, "b") == []


def test_the_background_work_page_lists_only_my_operations_live(
    db, make_turn, other_api_key, other_user, logged_in_client, remote
):
    mine = make_turn(due=False)
    theirs = make_turn(remote_id="their-turn", owner_key=other_api_key, due=False)
    body = logged_in_client.get(reverse("live:index")).content.decode()
    assert [row["id"] for row in select(body, "[id^=live-row-]")] == [f"live-row-{mine.pk}"]
    assert select(body, f"#live-row-{theirs.pk}") == []
    row = one(body, f"#live-row-{mine.pk}")
    assert row["hx-trigger"] == POLLING
    assert one(row, "a.live-row__title")["href"] == reverse("studio:turn", args=[mine.pk])
    assert remote.calls.call_count == 0


# --- polls that cost nothing while nothing changed --------------------------------


def _poll_url(body: str, selector: str) -> str:
    """The address the region polls, with the version it shows (`v`)."""
    return one(body, selector)["hx-get"]


def test_an_unchanged_poll_answers_204_from_one_query_and_renders_nothing(
    db, make_turn, logged_in_client, django_assert_num_queries
):
    op = make_turn(due=False)
    page = logged_in_client.get(reverse("live:detail", args=[op.pk])).content.decode()
    url = _poll_url(page, f"#live-op-{op.pk}")
    assert parse_qs(urlsplit(url).query)["v"] == [selectors.operation_view(op=op).version]

    # The session, the user, and the row's version on its primary key.
    with django_assert_num_queries(3):
        response = logged_in_client.get(url, **HTMX)
    assert response.status_code == 204
    assert response.content == b""
    assert response.templates == []
    assert "no-store" in response["Cache-Control"]


def test_a_poll_after_the_worker_stored_news_renders_once_then_is_unchanged_again(
    db, remote, make_turn, logged_in_client
):
    remote.get(f"/v1/turns/{TURN_ID}").mock(
        return_value=httpx.Response(200, json=turn_body("building", message="Laying out the hero section."))
    )
    op = make_turn(due=False)
    url = _poll_url(logged_in_client.get(reverse("live:detail", args=[op.pk])).content.decode(), f"#live-op-{op.pk}")
    assert logged_in_client.get(url, **HTMX).status_code == 204

    services.operation_poll(operation_id=op.pk)
    response = logged_in_client.get(url, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert "Laying out the hero section." in text_of(one(body, f"#live-op-{op.pk}"))
    newer = _poll_url(body, f"#live-op-{op.pk}")
    assert newer != url
    assert logged_in_client.get(newer, **HTMX).status_code == 204
    assert remote.calls.call_count == 1


def test_an_unchanged_row_that_becomes_paused_is_rendered_once_with_the_notice(
    db, remote, make_turn, logged_in_client, monkeypatch
):
    op = make_turn(due=False, last_polled_at=timezone.now() - timedelta(seconds=5))
    url = _poll_url(logged_in_client.get(reverse("live:detail", args=[op.pk])).content.decode(), f"#live-op-{op.pk}")
    assert logged_in_client.get(url, **HTMX).status_code == 204

    # Nothing in the row changes; only the clock moves past PAUSED_AFTER.
    later = timezone.now() + selectors.PAUSED_AFTER
    monkeypatch.setattr(timezone, "now", lambda: later)
    response = logged_in_client.get(url, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert texts(body, ".live-paused") and "Live updates paused" in texts(body, ".live-paused")[0]
    paused_url = _poll_url(body, f"#live-op-{op.pk}")  # still polling, so it resumes
    assert logged_in_client.get(paused_url, **HTMX).status_code == 204

    # A worker is back: its write is news, and the notice goes.
    remote.get(f"/v1/turns/{TURN_ID}").mock(return_value=httpx.Response(200, json=turn_body("building")))
    services.operation_poll(operation_id=op.pk)
    body = logged_in_client.get(paused_url, **HTMX).content.decode()
    assert select(body, ".live-paused") == [] and texts(body, ".live-updating")


def test_the_final_state_is_always_rendered_with_286_so_polling_stops(db, remote, make_turn, logged_in_client):
    remote.get(f"/v1/turns/{TURN_ID}").mock(
        return_value=httpx.Response(200, json=turn_body("completed", message="Your site is live."))
    )
    op = make_turn(due=False)
    page = logged_in_client.get(reverse("live:index")).content.decode()
    url = _poll_url(page, f"#live-row-{op.pk}")
    assert "view=row" in url and logged_in_client.get(url, **HTMX).status_code == 204

    services.operation_poll(operation_id=op.pk)
    response = logged_in_client.get(url, **HTMX)
    row = one(response.content.decode(), f"#live-row-{op.pk}")
    assert response.status_code == 286
    assert row.get("hx-get") is None and row["data-status"] == "completed"

    # Even a poll naming the final row's own version gets the last render.
    final = selectors.operation_view(op=TrackedOperation.objects.get(pk=op.pk)).version
    again = logged_in_client.get(reverse("live:status", args=[op.pk]), {"view": "row", "v": final}, **HTMX)
    assert again.status_code == 286 and one(again.content.decode(), f"#live-row-{op.pk}")


def test_a_version_never_answers_for_another_users_operation(db, make_turn, other_user, client, logged_in_client):
    op = make_turn(due=False)
    url = _poll_url(logged_in_client.get(reverse("live:detail", args=[op.pk])).content.decode(), f"#live-op-{op.pk}")
    client.force_login(other_user)
    assert client.get(url, **HTMX).status_code == 404
