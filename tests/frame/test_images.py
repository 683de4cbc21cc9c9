"""The frame's remote images (dashboard/frame/images.py): an address is shown
as an `<img>` only where the Content-Security-Policy's img-src lets the
browser load it; elsewhere its host is named, with a link that opens it."""

from __future__ import annotations

import pytest
from django.template import engines

from dashboard.frame.images import image_allowed, image_elsewhere, image_elsewhere_text, image_host
from tests.html import one, select, text_of

SOURCES = [
    "'self'",
    "data:",
    "https://api.example.com",
    "https://app.example.com",
    "https://*.cdn.example.net",
    "https://files.example.org/images/",
    "http://legacy.example.org",
    "http://127.0.0.1:*",
]
REASON = "not shown here (the console loads images only from the service's hosts)"


@pytest.fixture(autouse=True)
def img_sources(settings):
    """A production-like img-src: the service, its app, CSP_IMG_HOSTS entries."""
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"img-src": SOURCES}}
    settings.CONSOLE_BASE_URL = "https://console.example.com"
    settings.PRODUCTION = True


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://api.example.com/v1/files/a.png", True),  # the service's origin
        ("https://API.example.com:443/a.png", True),  # host case, explicit default port
        ("https://app.example.com/thumbs/a.png", True),
        ("https://eu.cdn.example.net/a.png", True),  # a *. wildcard source
        ("https://cdn.example.net/a.png", False),  # ... covers subdomains only
        ("https://files.example.org/images/a.png", True),  # a path source: under it
        ("https://files.example.org/other/a.png", False),
        ("https://legacy.example.org/a.png", True),  # an http source lets https in too
        ("http://api.example.com/a.png", False),  # ... never the other way round
        ("https://api.example.com:8443/a.png", False),  # another port
        ("http://127.0.0.1:8100/a.png", True),  # a :* port
        ("https://tracker.example/pixel.gif", False),
        ("https://user:pw@tracker.example/pixel.gif", False),
        ("/static/img/x.png", True),  # 'self': relative
        ("https://console.example.com/media/x.png", True),  # 'self': the console's own origin
        ("//api.example.com/a.png", True),  # the page's scheme (https in production)
        ("//tracker.example/a.png", False),
        ("data:image/png;base64,iVBOR", True),
        ("data:text/html,<b>x</b>", False),  # data: only for images
        ("javascript:alert(1)", False),
        ("http://[::1", False),  # unparseable: never an <img>
        ("", False),
        (None, False),
    ],
)
def test_an_address_is_allowed_exactly_where_img_src_lets_it_load(url, allowed):
    assert image_allowed(url) is allowed


def test_the_policy_read_is_the_one_the_pages_are_sent(settings):
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"img-src": ["'self'", "https:"]}}
    assert image_allowed("https://anywhere.example/a.png") and not image_allowed("http://anywhere.example/a.png")

    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"img-src": ["'none'"]}}
    assert not image_allowed("/static/a.png") and not image_allowed("https://api.example.com/a.png")


def test_the_host_is_named_without_credentials_or_a_default_port():
    assert image_host("https://user:pw@cdn.other.example/a.png") == "cdn.other.example"
    assert image_host("https://cdn.other.example:443/a.png") == "cdn.other.example"
    assert image_host("https://cdn.other.example:8443/a.png") == "cdn.other.example:8443"
    assert image_elsewhere_text("https://cdn.other.example/a.png") == f"Image on cdn.other.example — {REASON}"


def test_the_placeholder_names_the_host_and_links_to_the_image_in_a_new_tab():
    note = one(image_elsewhere("https://cdn.other.example/a.png?x=1&y=2", name="logo.png"), ".image-elsewhere")

    assert text_of(note).startswith(f"Image on cdn.other.example — {REASON}")
    link = one(note, "a")
    assert link["href"] == "https://cdn.other.example/a.png?x=1&y=2"
    assert (link["rel"], link["target"]) == (["noopener", "noreferrer"], "_blank")
    assert text_of(link) == "Open logo.png on cdn.other.example, in a new tab"
    assert select(note, "img") == []


def test_the_compact_placeholder_keeps_the_reason_for_screen_readers():
    note = one(image_elsewhere("https://cdn.other.example/a.png", compact=True), ".image-elsewhere--compact")

    assert text_of(one(note, "a")) == "Image on cdn.other.example"
    assert text_of(one(note, ".visually-hidden")) == f"— {REASON}"
    assert one(note, "a")["title"] == f"Image on cdn.other.example — {REASON}"


def test_only_web_addresses_become_links_and_everything_is_escaped():
    refused = image_elsewhere("javascript:alert(1)")
    assert select(refused, "a") == [] and text_of(one(refused, ".image-elsewhere")).startswith(
        "Image at another address"
    )

    note = image_elsewhere('https://cdn.other.example/"><script>x</script>', name="<b>")
    assert select(note, "script, b") == []


def test_templates_ask_first_and_name_the_rest():
    template = engines["django"].from_string(
        '{% load images %}{% for url in urls %}<p>{% if url|image_allowed %}<img src="{{ url }}" alt="">'
        "{% else %}{% image_elsewhere url name='the logo' %}{% endif %}</p>{% endfor %}"
    )

    html = template.render({"urls": ["https://api.example.com/a.png", "https://tracker.example/b.png"]})

    assert [image["src"] for image in select(html, "img")] == ["https://api.example.com/a.png"]
    assert [link["href"] for link in select(html, ".image-elsewhere a")] == ["https://tracker.example/b.png"]
