"""The agents area in German (issue #37 item 6): the approvals queue's
headings and buttons come from the catalog; what the service returns stays as it is."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from tests.agents.support import SEND_ID, row
from tests.helpers import use_compiled_catalogs
from tests.html import one, parse, text_of, texts

pytestmark = pytest.mark.usefixtures("approver")


def test_the_approvals_queue_reads_in_german(queue, logged_in_client, settings, tmp_path):
    use_compiled_catalogs(settings, tmp_path)
    with translation.override("de"):
        page = parse(logged_in_client.get(reverse("agents:approvals"), HTTP_ACCEPT_LANGUAGE="de").content)

    assert text_of(one(page, "h1")) == "Freigaben"
    first = row(page, SEND_ID)
    assert texts(first, "button[name=decision]") == ["Freigeben", "Ablehnen", "Immer erlauben"]
    assert text_of(one(page, "#approval-detail")).count("Genau das wird ausgeführt") == 1
    # The service's words are data: the summary is not translated.
    assert text_of(one(first, ".approval__summary")) == "Send the welcome email to dana@example.com"
