"""The product's pages at `{app_url}` (sandbox/published.py): a published
website, a live app and an item's web-app address answer HTML a preview can
frame; a missing one is a Not found page for a browser and the one JSON error
body for an API client."""

from __future__ import annotations

from uuid import uuid4

import httpx
from bs4 import BeautifulSoup

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def page(url: str) -> tuple[httpx.Response, BeautifulSoup]:
    response = httpx.get(url, headers={"Accept": BROWSER_ACCEPT})
    return response, BeautifulSoup(response.text, "html.parser")


def test_a_published_sites_address_serves_its_pages(api):
    sites = api.get("/v1/websites", params={"limit": 100}).json()["data"]
    site = next(s for s in sites if s["name"] == "Acme Spring Launch")  # the seeded one: Home, Collection, Sign up
    response, html = page(site["public_url"])
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "x-frame-options" not in response.headers
    assert html.h1.get_text() == site["name"]
    links = {a.get_text(): a["href"] for a in html.select("nav a")}
    assert links["Home"] == site["public_url"]
    other, other_html = page(links["Collection"])
    assert other.status_code == 200 and other_html.h1.get_text() == "Collection"
    assert page(site["public_url"] + "/no-such-page")[0].status_code == 404


def test_an_item_and_a_live_app_open_as_pages_and_an_unknown_one_is_a_404_page(api):
    app = next(a for a in api.get("/v1/apps", params={"limit": 100}).json()["data"] if a["public_url"])
    for url in (app["public_url"], app["url"]):
        response, html = page(url)
        assert response.status_code == 200 and html.h1.get_text() == app["name"]
    document = api.get("/v1/documents", params={"limit": 1}).json()["data"][0]
    assert page(document["url"])[1].h1.get_text() == document["name"]
    gone, html = page(app["url"].rsplit("/", 1)[0] + "/00000000-0000-4000-8000-000000000000")
    assert gone.status_code == 404 and html.h1.get_text() == "Not found"


def test_a_missing_page_answers_an_api_client_the_json_error_body(api):
    app = next(a for a in api.get("/v1/apps", params={"limit": 100}).json()["data"] if a["public_url"])
    base = app["url"].rsplit("/", 1)[0]
    for url in (base + "/00000000-0000-4000-8000-000000000000", app["public_url"].replace(app["id"], str(uuid4()))):
        for accept in (None, "*/*", "application/json"):
            response = httpx.get(url, headers={"Accept": accept} if accept else {})
            assert response.status_code == 404
            assert response.headers["content-type"] == "application/json"
            body = response.json()
            assert body["error"]["type"] == "not_found"
            assert body["request_id"] == response.headers["x-request-id"]
