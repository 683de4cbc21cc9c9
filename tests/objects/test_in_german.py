"""Objects in German (issue #37 item 6): the new-object page's headings, its
form's labels (objects/forms.py) and its button come from the catalog."""

from __future__ import annotations

from django.urls import reverse
from django.utils import translation

from tests.helpers import use_compiled_catalogs
from tests.html import one, parse, text_of, texts


def test_the_new_object_page_reads_in_german(console, settings, tmp_path):
    use_compiled_catalogs(settings, tmp_path)
    with translation.override("de"):
        page = parse(console.get(reverse("objects:new"), HTTP_ACCEPT_LANGUAGE="de").content)

    assert text_of(one(page, "h1")) == "Neues Objekt"
    assert "Namen" in texts(page, "h2.card-title") and "Felder" in texts(page, "h2.card-title")
    assert text_of(one(page, "label[for=id_singular_name]")) == "Name im Singular"
