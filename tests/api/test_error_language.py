"""A remote error in the person's language (issue #37, item 6): the one
catalogue (dashboard/api/messages.py) is translated when the page renders,
in the language the person chose (else the browser's); what the service
said, and what the console stores for operators, stays as it was."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.utils import translation

from dashboard.api import errors
from dashboard.api.messages import already_sent_words, made_by, meaning_of, stored_meaning_of, with_request_id
from dashboard.people.models import Person
from tests.html import one, select, text_of

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]

ERROR_BOX = "[data-remote-error]"


@pytest.fixture
def german_client(client, user):
    """Signed in with German chosen on the account page (the session carries it)."""
    Person.objects.update_or_create(user=user, defaults={"language": "de"})
    client.force_login(user)
    return client


def test_a_rate_limit_reads_in_the_persons_language_with_its_wait_counted(german_client):
    # The browser asks for French: the person's own choice wins.
    response = german_client.get("/test-remote-error/429/", HTTP_ACCEPT_LANGUAGE="fr")

    assert response.status_code == 429
    assert one(response.content, "html")["lang"] == "de"
    box = one(response.content, ERROR_BOX)
    assert text_of(one(box, "h1")) == "Der Dienst drosselt Anfragen"
    assert text_of(one(box, "h1 + p")) == (
        "Er ist mit den Anfragen dieses Workspace ausgelastet und hat die Konsole gebeten zu warten. "
        "Versuchen Sie es in 30 Sekunden erneut."
    )


def test_a_refused_key_in_german_offers_its_way_on_in_german(german_client):
    content = german_client.get("/test-remote-error/401/").content

    box = one(content, ERROR_BOX)
    assert text_of(one(box, "h1")) == "Der Dienst hat Ihren API-Schlüssel abgelehnt"
    assert text_of(one(box, "h1 + p")).endswith("Bis dahin zeigt die Konsole keine Daten dieses Workspace.")
    assert [text_of(link) for link in select(box, ".remote-error-actions a.btn:not([data-retry])")] == [
        "Neuen API-Schlüssel hinzufügen"
    ]


def test_the_services_own_words_are_not_translated(german_client):
    box = one(german_client.get("/test-remote-error/409/").content, ERROR_BOX)

    assert text_of(one(box, "h1")) == "Es hat sich inzwischen geändert"
    assert "approval already decided" in text_of(one(box, "p.muted:not(.remote-error-request-id)"))


def test_the_browsers_french_without_a_choice(logged_in_client):
    box = one(logged_in_client.get("/test-remote-error/connection/", HTTP_ACCEPT_LANGUAGE="fr").content, ERROR_BOX)

    assert text_of(one(box, "h1")) == "Le service est injoignable pour le moment"
    assert text_of(one(box, "h1 + p")) == "La console n’a pas pu s’y connecter. Réessayez dans un instant."


def test_english_stays_the_default_and_stored_words_stay_english():
    refused = errors.AuthenticationError("revoked", status=401, request_id="req_1")

    with translation.override(settings.LANGUAGE_CODE):
        assert meaning_of(refused).title == "The service refused your API key"
    with translation.override("de"):
        assert meaning_of(refused).title == "Der Dienst hat Ihren API-Schlüssel abgelehnt"
        assert with_request_id("Fehler", refused) == "Fehler (Anfrage-ID req_1)"
        # An operation's stored message is compared with the catalogue by the poller.
        assert stored_meaning_of(refused).following == (
            "The service refused the API key this was started with. Add a new key to follow new work."
        )


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "This form was already sent with other values and made a record. Send again to make another."),
        (
            "de",
            "Dieses Formular wurde bereits mit anderen Werten gesendet und hat einen Datensatz angelegt. "
            "Senden Sie es erneut, um ein weiteres Element anzulegen.",
        ),
        (
            "fr",
            "Ce formulaire a déjà été envoyé avec d’autres valeurs et a créé un enregistrement. "
            "Envoyez-le à nouveau pour créer un nouvel élément.",
        ),
    ],
)
def test_a_form_sent_again_says_what_it_made_in_a_sentence_of_the_language(language, sentence):
    with translation.override(language):
        before, made, after = already_sent_words(method="POST", made=made_by("POST", "/v1/objects/leads/records"))

    assert f"{before} {made}{after}" == sentence
