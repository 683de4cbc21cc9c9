"""A person's language (issue #37, item 6): chosen on the account page, else
the browser's Accept-Language; kept in the session at sign-in (no query per
page); emails in the recipient's language; static/js's words from a public,
cached catalog that only pages not in English load."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from dashboard.accounts.services import password_reset_send
from dashboard.people.models import Person
from tests.html import one, select

pytestmark = pytest.mark.django_db


def test_the_browsers_language_without_a_choice(logged_in_client):
    response = logged_in_client.get(reverse("own_account"), HTTP_ACCEPT_LANGUAGE="fr-CH, fr;q=0.9, en;q=0.5")

    assert one(response.content, "html")["lang"] == "fr"
    assert one(response.content, "h1").get_text(strip=True) == "Votre nom, mot de passe et sessions"
    assert response["Content-Language"] == "fr"


def test_the_account_page_keeps_a_choice_over_the_browsers(logged_in_client, user):
    response = logged_in_client.post(reverse("own_language"), {"language": "de"}, HTTP_ACCEPT_LANGUAGE="fr")

    assert response.status_code == 302
    assert Person.objects.get(user=user).language == "de"
    page = logged_in_client.get(reverse("own_account"), HTTP_ACCEPT_LANGUAGE="fr")
    assert one(page.content, "html")["lang"] == "de"
    assert "Die Konsole spricht jetzt Ihre Sprache." in one(page.content, "#messages").get_text()
    assert one(page.content, "#id_language option[selected]")["value"] == "de"
    # "The browser's language" again: Accept-Language decides.
    logged_in_client.post(reverse("own_language"), {"language": ""})
    assert one(logged_in_client.get(reverse("own_account"), HTTP_ACCEPT_LANGUAGE="fr").content, "html")["lang"] == "fr"


def test_a_language_the_console_lacks_is_refused_in_words(logged_in_client, user):
    response = logged_in_client.post(reverse("own_language"), {"language": "tlh"})

    assert response.status_code == 422
    assert select(response.content, "#id_language[aria-invalid=true]") or select(response.content, ".errorlist")
    assert not Person.objects.filter(user=user, language="tlh").exists()


def test_signing_in_brings_the_persons_choice(client, user):
    Person.objects.update_or_create(user=user, defaults={"language": "fr"})
    client.force_login(user)

    page = client.get(reverse("own_account"), HTTP_ACCEPT_LANGUAGE="de")

    assert one(page.content, "html")["lang"] == "fr"


def test_a_password_reset_email_is_in_the_recipients_language(user):
    user.email = "alice@example.com"
    user.save()
    Person.objects.update_or_create(user=user, defaults={"language": "de"})

    assert password_reset_send(email=user.email, base_url="https://console.example", request_id="r-1") == 1

    assert mail.outbox[-1].subject == "Ihr Workspace-Console-Passwort zurücksetzen"
    assert "Hallo alice," in mail.outbox[-1].body


def test_only_pages_not_in_english_load_the_javascript_catalog(logged_in_client):
    english = logged_in_client.get(reverse("own_account"), HTTP_ACCEPT_LANGUAGE="en")
    german = logged_in_client.get(reverse("own_account"), HTTP_ACCEPT_LANGUAGE="de")

    assert not [tag for tag in select(english.content, "script[src]") if "/i18n/" in tag["src"]]
    catalog = [tag["src"] for tag in select(german.content, "script[src]") if "/i18n/" in tag["src"]]
    assert len(catalog) == 1 and catalog[0].startswith("/i18n/de/")
    answer = logged_in_client.get(catalog[0])
    assert answer.status_code == 200
    assert "public" in answer["Cache-Control"] and "no-store" not in answer["Cache-Control"]
    assert "Innerhalb der Grenze: %s." in answer.content.decode()


def test_there_is_no_english_catalog(client):
    assert client.get("/i18n/en/0.js").status_code == 404
    assert client.get("/i18n/xx/0.js").status_code == 404
