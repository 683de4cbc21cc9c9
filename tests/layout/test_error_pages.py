"""The console's own 404 and 500 pages: what everyone sees now that DEBUG is
off by default (`make run` included), instead of Django's debug pages."""

from __future__ import annotations

from django.views.defaults import server_error

from tests.html import one, text_of


def test_an_unknown_address_gets_the_consoles_not_found_page(logged_in_client):
    response = logged_in_client.get("/studio/turns/no-such-thing/nowhere")

    assert response.status_code == 404
    assert text_of(one(response.content, "main h1")) == "Page not found"
    assert text_of(one(response.content, "title")) == "Page not found · Workspace Console"
    assert "/studio/turns/no-such-thing/nowhere" in text_of(one(response.content, "main"))
    assert one(response.content, "main a.btn")["href"] == "/"
    # The layout's frame, navigation included, for a logged-in person.
    assert one(response.content, ".header-user").get_text(strip=True) == "alice"


def test_the_not_found_page_needs_no_login_and_lists_no_url_patterns(client, db):
    response = client.get("/no-such-page")

    assert response.status_code == 404
    assert text_of(one(response.content, "main h1")) == "Page not found"
    assert "URLconf" not in response.content.decode()


def test_the_server_error_page_renders_without_any_request_context(rf):
    # Django renders 500.html with no request and no context processors.
    response = server_error(rf.get("/anything"))

    assert response.status_code == 500
    assert text_of(one(response.content, "main h1")) == "Something went wrong"
    assert text_of(one(response.content, "title")) == "Something went wrong · Workspace Console"
    assert one(response.content, "main a.btn")["href"] == "/"
    assert one(response.content, "link[rel=stylesheet]")["href"].endswith("css/console.css")
