"""How pages and static files travel: pages compressed, brotli where the
browser accepts it and gzip otherwise (BREACH mitigations in place), static files under hashed names, compressed, cached for
good, in development mode (`make run`) as in production."""

from __future__ import annotations

import gzip
import re

import brotli
import pytest
from django.core.management import call_command
from django.urls import reverse

from tests.html import one, parse

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}
HASHED = re.compile(r"^/static/css/console\.[0-9a-f]{12}\.css$")
TEN_YEARS = 10 * 365 * 24 * 60 * 60


@pytest.fixture
def collected(settings, tmp_path):
    """The hashed storage over a STATIC_ROOT of this test's own, collected as
    `manage.py bootstrap` and the image's build do; DEBUG on, as under `make run`."""
    settings.DEBUG = True
    settings.STATIC_ROOT = tmp_path / "staticfiles"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": settings.HASHED_STATIC_STORAGE}}
    call_command("collectstatic", interactive=False, verbosity=0)
    return settings.STATIC_ROOT


def test_static_files_are_hashed_compressed_and_cached_for_good_with_debug_on(db, collected, client):
    page = client.get(reverse("login"))
    href = one(page.content.decode(), "link[rel=stylesheet]")["href"]
    assert HASHED.match(href), href

    response = client.get(href, **GZIP)
    assert response.status_code == 200
    assert response["Content-Encoding"] in ("gzip", "br")
    assert response["Cache-Control"] == f"max-age={TEN_YEARS}, public, immutable"
    body = b"".join(response.streaming_content)
    assert len(body) < (collected / "css" / "console.css").stat().st_size / 2


@pytest.mark.parametrize(("accept", "encoding"), [("gzip, deflate, br", "br"), ("gzip, deflate", "gzip")])
def test_pages_travel_compressed_and_the_csrf_token_differs_in_every_response(accept, encoding, db, client):
    tokens = []
    for _ in range(2):
        response = client.get(reverse("login"), HTTP_ACCEPT_ENCODING=accept)
        assert response["Content-Encoding"] == encoding
        assert "Accept-Encoding" in response["Vary"]
        html = (brotli.decompress(response.content) if encoding == "br" else gzip.decompress(response.content)).decode()
        tokens.append(one(html, "input[name=csrfmiddlewaretoken]")["value"])
    # Django masks the token anew for each response: BREACH cannot learn it
    # from compressed sizes across requests.
    assert tokens[0] != tokens[1]


def test_without_accept_encoding_a_page_is_sent_as_it_is(db, client):
    response = client.get(reverse("login"))
    assert not response.has_header("Content-Encoding")
    assert parse(response.content).title is not None
