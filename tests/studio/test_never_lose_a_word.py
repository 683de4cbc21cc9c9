"""Never lose a word (issue #21, item 1): a text over its limit is never cut
by the browser (no maxlength on any Studio box; the limit is data for the
counter), and the server refuses it in the same words the script uses, on
the field, with everything typed kept and nothing sent to the service.
The script's side is in tests/studio/test_words_browser.py."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.api.testing import RemoteCallCounter
from studio.forms import over_limit_words
from tests.html import one, select, text_of, textarea_value
from tests.studio.support import BOARD_ID, finish, form_key, key_of

TEXT_BOXES = "form textarea, form input[type=text]"


def test_the_refusal_names_the_limit_the_length_and_the_excess_in_words():
    assert over_limit_words("Website messages", 3800, 3801) == (
        "Website messages can be at most 3,800 characters; this one has 3,801, 1 character over. Shorten it to send it."
    )
    assert "18,000 characters; this one has 18,250, 250 characters over." in over_limit_words(
        "Document messages", 18000, 18250
    )


@pytest.mark.parametrize(("studio", "limit"), [("document", 18000), ("website", 3800)])
def test_a_new_conversations_message_over_its_studios_limit_is_refused_on_the_field_and_kept(
    db, remote, api_key, logged_in_client, studio, limit
):
    page = logged_in_client.get(reverse("studio:index")).content
    assert all(not box.has_attr("maxlength") for box in select(page, TEXT_BOXES))
    nouns = {o["value"]: o["data-limit-noun"] for o in select(page, "#turn-form select[name=studio] option")}
    assert nouns["document"] == "Document messages"
    message = "w" * (limit + 1)
    data = {"studio": studio, "message": message, "idempotency_key": form_key(page)}

    with RemoteCallCounter() as calls:
        response = logged_in_client.post(reverse("studio:start"), data)

    assert response.status_code == 200 and calls.count == 0
    label = {"document": "Document", "website": "Website"}[studio]
    error = text_of(one(response.content, "#turn-form .form-field.has-error .field-error"))
    assert error == over_limit_words(f"{label} messages", limit, limit + 1)
    box = one(response.content, "#turn-form textarea[name=message]")
    assert textarea_value(box) == message and box["aria-invalid"] == "true"
    assert not box.has_attr("maxlength")
    assert form_key(response.content) == data["idempotency_key"]  # the same send, once it is short enough


def test_a_document_reply_over_18000_characters_is_refused_in_the_composer_and_kept(
    db, remote, make_turn, logged_in_client
):
    op = make_turn(due=False)
    finish(op, "completed", message="Done", studio="document")
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    box = one(page, "#composer-message")
    assert (box["data-max-length"], box["data-limit-noun"]) == ("18000", "Document messages")
    assert not box.has_attr("maxlength")

    with RemoteCallCounter() as calls:
        response = logged_in_client.post(
            reverse("studio:reply", args=[op.pk]), {"message": "d" * 18001, "idempotency_key": form_key(page)}
        )

    assert calls.count == 0
    assert text_of(one(response.content, "#composer-message_error")) == over_limit_words(
        "Document messages", 18000, 18001
    )
    assert textarea_value(one(response.content, "#composer-message")) == "d" * 18001


def test_a_content_apps_text_over_its_schema_limit_is_refused_on_the_field_and_kept(
    db,
    api_key,
    catalogue,
    logged_in_client,
):
    url = reverse("studio:app", args=["image", "generate"])
    page = logged_in_client.get(url, {"board_id": BOARD_ID}).content
    assert all(not box.has_attr("maxlength") for box in select(page, TEXT_BOXES))
    prompt = one(page, "#app-form textarea[name=prompt]")
    assert one(page, f"#{prompt['id']}_counter") is not None

    response = logged_in_client.post(url, {"prompt": "p" * 6001, "board_id": BOARD_ID, "idempotency_key": key_of(page)})

    assert response.status_code == 200
    box = one(response.content, "#app-form textarea[name=prompt]")
    assert text_of(one(response.content, f"#{box['id']}_error")) == over_limit_words("The prompt", 6000, 6001)
    assert textarea_value(box) == "p" * 6001
    assert not [call for call in catalogue.calls if call.request.method == "POST"]
