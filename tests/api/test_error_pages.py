"""RemoteErrorMiddleware: every remote error as a full page and as an htmx
partial, with the request id, never a traceback or the key."""

from __future__ import annotations

import httpx
import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from tests.api.support import API_KEY
from tests.html import one, roots, select, text_of

ERROR_BOX = "[data-remote-error]"


def error_text(content: str | bytes) -> str:
    """What the person reads in the page's one error box."""
    return text_of(one(content, ERROR_BOX))


pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_CURRENT_URL": "http://testserver/objects/leads/"}

CASES = [
    # kind, status of the full page, words the person reads
    ("401", 401, "The service refused your API key"),
    ("402", 402, "run out of credits"),
    ("403", 403, "This API key may not do this"),
    ("404", 404, "Not found"),
    ("409", 409, "It changed meanwhile"),
    ("429", 429, "Try again in 30 seconds"),
    ("500", 502, "The service had a problem"),
    ("503", 502, "The service had a problem"),
    ("connection", 502, "The service is unreachable right now"),
    ("timeout", 502, "The service is slow to answer"),
    ("stream", 502, "The agent failed to answer."),
]


def assert_safe(content: str) -> None:
    assert "Traceback" not in content
    assert "Exception Value" not in content
    assert API_KEY not in content


@pytest.mark.parametrize(("kind", "status", "words"), CASES)
def test_each_remote_error_renders_as_a_full_page(logged_in_client, kind, status, words):
    response = logged_in_client.get(f"/test-remote-error/{kind}/")

    content = response.content.decode()
    assert response.status_code == status
    assert words in error_text(content)
    assert one(content, ERROR_BOX)["data-request-id"] == f"req_{kind}"
    assert [element.name for element in roots(content)] == ["html"] and one(content, "#messages")  # the real layout
    assert response["Cache-Control"] == "no-store"
    assert_safe(content)


@pytest.mark.parametrize(("kind", "status", "words"), CASES)
def test_each_remote_error_renders_as_an_htmx_partial_in_the_messages_region(logged_in_client, kind, status, words):
    response = logged_in_client.post(f"/test-remote-error/{kind}/", **HTMX)

    content = response.content.decode()
    assert response.status_code == 200  # htmx 2 does not swap 4xx/5xx
    assert response["HX-Retarget"] == "#messages"
    assert response["HX-Reswap"] == "innerHTML show:top"
    assert words in error_text(content)
    assert one(content, ERROR_BOX)["data-request-id"] == f"req_{kind}"
    assert "html" not in [element.name for element in roots(content)] and one(content, ERROR_BOX)["role"] == "alert"
    assert_safe(content)


def test_debug_mode_still_shows_the_message_not_a_traceback(logged_in_client, settings):
    settings.DEBUG = True

    response = logged_in_client.get("/test-remote-error/500/")

    assert response.status_code == 502
    assert one(response.content, ERROR_BOX)["data-request-id"] == "req_500"
    assert_safe(response.content.decode())


def test_401_links_to_the_key_settings(logged_in_client):
    content = logged_in_client.get("/test-remote-error/401/").content.decode()

    assert reverse("keys:list") in [link["href"] for link in select(content, f"{ERROR_BOX} a")]
    assert "Add a new API key" in error_text(content)


def test_429_tells_the_browser_when_to_retry(logged_in_client):
    response = logged_in_client.get("/test-remote-error/429/")

    assert response["Retry-After"] == "30"


def test_404_offers_the_way_back_to_where_the_person_came_from(logged_in_client):
    content = logged_in_client.get(
        "/test-remote-error/404/", HTTP_REFERER="http://testserver/objects/"
    ).content.decode()

    assert "http://testserver/objects/" in [link["href"] for link in select(content, f"{ERROR_BOX} a")]
    assert "Go back" in error_text(content)


def test_404_never_links_back_to_another_site(logged_in_client):
    content = logged_in_client.get("/test-remote-error/404/", HTTP_REFERER="https://evil.test/").content.decode()

    assert "evil.test" not in content
    assert reverse("home") in [link["href"] for link in select(content, f"{ERROR_BOX} a")]


def test_409_offers_to_retry_on_the_page_the_person_is_on(logged_in_client):
    content = logged_in_client.post("/test-remote-error/409/", **HTMX).content.decode()

    retry = one(content, "[data-retry]")
    assert retry["data-retry"] == "request" and text_of(retry) == "Retry"
    assert "approval already decided" in error_text(content)


def test_a_remote_401_from_a_real_call_becomes_the_page(logged_in_client, remote):
    route = remote.get("/v1/me").respond(
        401, json={"error": {"type": "authentication", "message": "revoked"}, "request_id": "req_from_service"}
    )

    response = logged_in_client.get("/test-remote-call/")

    assert route.call_count == 1
    assert response.status_code == 401
    assert one(response.content, ERROR_BOX)["data-request-id"] == "req_from_service"
    assert_safe(response.content.decode())


def test_an_unreachable_service_answers_502_after_the_retries(logged_in_client, remote, slept):
    route = remote.get("/v1/me").mock(side_effect=httpx.ConnectError("refused"))

    response = logged_in_client.get("/test-remote-call/")

    assert route.call_count == 3
    assert len(slept) == 2
    assert response.status_code == 502
    assert one(response.content, ERROR_BOX)["data-request-id"] == route.calls.last.request.headers["X-Request-Id"]


def test_a_view_can_place_the_message_itself(logged_in_client, remote):
    remote.get("/v1/me").respond(
        403, json={"error": {"type": "permission", "message": "readonly"}, "request_id": "req_placed"}
    )

    response = logged_in_client.get("/test-remote-call-placed/", **HTMX)

    assert response.status_code == 200
    assert "HX-Retarget" not in response
    assert "This API key may not do this" in error_text(response.content)
    assert one(response.content, ERROR_BOX)["data-request-id"] == "req_placed"


def test_no_active_key_redirects_to_the_key_settings_with_a_message(logged_in_client):
    response = logged_in_client.get("/test-no-key/")

    assert response.status_code == 302
    assert response["Location"] == reverse("keys:list")
    assert [str(message) for message in get_messages(response.wsgi_request)] == ["Add an API key to use the console."]


def test_no_active_key_redirects_htmx_requests_with_hx_redirect(logged_in_client):
    response = logged_in_client.post("/test-no-key/", **HTMX)

    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("keys:list")


def test_other_exceptions_are_left_to_django(logged_in_client):
    with pytest.raises(RuntimeError):
        logged_in_client.get("/test-other-error/")


def test_the_error_page_has_a_heading_the_section_in_its_title_a_retry_link_and_the_request_id(logged_in_client):
    response = logged_in_client.get("/test-remote-error/500/?page=2")

    assert text_of(one(response.content, "h1")) == "The service had a problem"
    assert text_of(one(response.content, "title")).startswith("The service had a problem")
    retry = one(response.content, "a[data-retry]")
    assert text_of(retry) == "Retry" and retry["href"] == "/test-remote-error/500/?page=2"
    assert text_of(one(response.content, ".remote-error-request-id")) == "Request id: req_500"


def test_the_error_page_title_names_the_section_it_belongs_to(logged_in_client, user, remote):
    from dashboard.keys.testing import stored_api_key

    stored_api_key(user=user, secret=API_KEY)
    remote.get("/v1/objects").mock(
        return_value=httpx.Response(503, json={"error": {"type": "server_error", "message": "down"}})
    )

    response = logged_in_client.get("/objects/")

    assert text_of(one(response.content, "title")) == "The service had a problem · Objects · Workspace Console"
    assert text_of(one(response.content, ".remote-error-section")) == "Objects: this page could not be shown."


def test_a_partial_error_box_offers_to_repeat_the_request_and_a_429_counts_down(logged_in_client):
    content = logged_in_client.get("/test-remote-error/429/", **HTMX).content.decode()

    assert one(content, "button[data-retry]")["data-retry"] == "request"
    countdown = one(content, "[data-retry-after]")
    assert countdown["data-retry-after"] == "30"  # Retry-After 29.2 s, rounded up
    assert one(content, "[data-remote-error]")["data-request-id"] == "req_429"


def test_after_a_plain_post_the_error_page_offers_no_retry_link_that_would_lose_the_post(logged_in_client):
    response = logged_in_client.post("/test-remote-error/500/")

    assert select(response.content, "a[data-retry]") == []
    assert one(response.content, "h1")
