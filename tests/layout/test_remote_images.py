"""No template shows a remote image without asking the frame first: an
`<img src="{{ address }}">` is written only under `{% if address|image_allowed %}`
(dashboard/frame/images.py), so an image on a host the CSP's img-src does not
list is named with a link, never a broken picture (issue #17's follow-up)."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

TEMPLATES = Path(settings.BASE_DIR) / "templates"
# An <img> whose address is a template variable (not {% static %}, which is the console's own).
REMOTE_IMG = re.compile(r"<img\b[^>]*?\bsrc=\"\{\{\s*(?P<address>[\w.]+)\s*\}\}\"")


def unchecked_images(source: str) -> list[str]:
    """The addresses of remote <img> tags with no `{% if <address>|image_allowed %}` before them."""
    return [
        match["address"]
        for match in REMOTE_IMG.finditer(source)
        if f"{{% if {match['address']}|image_allowed %}}" not in source[: match.start()]
    ]


def test_every_remote_image_in_a_template_asks_the_frame_first():
    found = {
        str(path.relative_to(TEMPLATES)): unchecked
        for path in sorted(TEMPLATES.rglob("*.html"))
        if (unchecked := unchecked_images(path.read_text()))
    }

    assert found == {}, "wrap these in {% if <address>|image_allowed %} ... {% else %}{% image_elsewhere %}"


def test_the_check_finds_an_unguarded_image_and_accepts_a_guarded_one():
    assert unchecked_images('<img src="{{ image.url }}" alt="">') == ["image.url"]
    assert unchecked_images('{% if image.url|image_allowed %}<img src="{{ image.url }}" alt="">{% endif %}') == []
    assert unchecked_images('<img src="{% static icon.path %}" alt="">') == []
