"""The Studio in German (issue #37 item 6): the home page's headings, the
form's labels and its button come from the catalog."""

from __future__ import annotations

from django.urls import reverse
from django.utils import translation

from tests.helpers import use_compiled_catalogs
from tests.html import one, parse, text_of


def test_the_studio_home_reads_in_german(db, api_key, logged_in_client, settings, tmp_path):
    use_compiled_catalogs(settings, tmp_path)
    with translation.override("de"):
        page = parse(logged_in_client.get(reverse("studio:index"), HTTP_ACCEPT_LANGUAGE="de").content)

    assert text_of(one(page, "#start-turn-heading")) == "Einen Studio-Director fragen"
    assert text_of(one(page, "#recent-heading")) == "Letzte Unterhaltungen"
    assert text_of(one(page, "#turn-form button[type=submit]")) == "Den Schritt beginnen"
    assert text_of(one(page, "label[for=id_auto]")) == "Für mich entscheiden"  # a form label (studio/forms.py)
