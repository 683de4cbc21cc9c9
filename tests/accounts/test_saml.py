"""SAML 2.0 sign-in (djangosaml2 on pysaml2, #37 item 2) against an identity
provider run in the test process (tests/accounts/saml_idp.py): the console's
AuthnRequest followed, a signed Response with email and groups posted to the
ACS; people matched by email, roles from the groups at every sign-in (a
group removed, the role removed), refusals back on the login page in words
(an unknown email, a deactivated account, a forged or altered signature, an
answer to no request), the metadata served, and nothing of it when
unconfigured."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from wsgiref.simple_server import make_server

import pytest
from defusedxml import ElementTree
from django.core.cache import cache
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from dashboard.accounts.saml_config import saml_config_build
from dashboard.audit.models import AuditEntry
from dashboard.people.backends import role_of

# Imported here, with SAML off as in settings: dashboard.urls decides at import
# whether to add the SAML views, and must decide "no" for the last test.
from tests.accounts import urls_saml  # noqa: F401
from tests.accounts.oidc_provider import QuietHandler
from tests.accounts.saml_idp import InProcessIdP
from tests.accounts.support import saml_settings, settings_probe
from tests.fuzz.support import OPTIONAL_FUZZ_TABLE, hostile_text, urlencoded
from tests.html import one, select, text_of

EMAIL = "Dana.Scully@example.com"
MAP = "console-admins=administrator,finance-approvers=approver,readers=viewer"
MD = "urn:oasis:names:tc:SAML:2.0:metadata"


@pytest.fixture
def idp(settings, db, tmp_path):
    """SAML on as settings.py turns it on, the in-process provider's metadata
    given as a file, and the provider trusting the console's served metadata."""
    provider = InProcessIdP(tmp_path)
    saml_settings(settings, provider)
    settings.SAML_ROLE_MAP = MAP
    settings.SAML_ROLE_DEFAULT = "member"
    return provider


def sign_in(client, idp, *, groups, email=EMAIL, next_url="/objects/", **answer):
    """Press the button, follow the AuthnRequest to the provider, post its answer to the ACS."""
    login = client.get(reverse("login") + f"?next={next_url}")
    button = one(login.content, ".auth-sso a")
    assert text_of(button) == "Sign in with Okta"
    start = client.get(button["href"])
    assert start.status_code == 302
    form = idp.answer(start["Location"], email=email, groups=groups, **answer)
    return client.post(reverse("saml2_acs"), form)


def refused_with(client, response) -> list[str]:
    """The login page the refusal leads to: its alerts' words; nobody signed in."""
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?sso=failed"
    assert "_auth_user_id" not in client.session
    page = client.get(response["Location"])
    return [text_of(alert) for alert in select(page.content, ".alert-error")]


def test_a_new_person_signs_in_with_the_role_of_their_group(client, idp, django_user_model):
    response = sign_in(client, idp, groups=["finance-approvers", "readers"])

    assert response.status_code == 302 and response["Location"] == "/objects/"
    person = django_user_model.objects.get(email=EMAIL)
    assert (person.username, person.first_name, person.last_name) == (EMAIL, "Dana", "Scully")
    assert client.session["_auth_user_id"] == str(person.pk)
    assert role_of(person) == "approver"  # the strongest of the mapped groups
    entry = AuditEntry.objects.filter(action="role_changed").latest("pk")
    assert "by the identity provider's groups" in entry.summary and entry.details["groups"] == [
        "finance-approvers",
        "readers",
    ]
    home = client.get(reverse("home"))
    assert text_of(one(home.content, ".header-user")) == EMAIL


def test_a_group_removed_at_the_provider_takes_the_role_away_at_the_next_sign_in(client, idp, django_user_model):
    existing = django_user_model.objects.create_user(username="dana", email=EMAIL.upper(), password="x" * 20)
    sign_in(client, idp, groups=["console-admins"])
    assert client.session["_auth_user_id"] == str(existing.pk)
    assert role_of(existing) == "administrator"
    # Another Administrator, so this one may lose the role (the only one is kept).
    other = django_user_model.objects.create_user(username="fox", email="fox@example.com")
    from dashboard.people.models import Person

    Person.objects.update_or_create(user=other, defaults={"role": "administrator"})
    client.logout()

    sign_in(client, idp, groups=["somewhere-else"])

    assert client.session["_auth_user_id"] == str(existing.pk)
    assert role_of(django_user_model.objects.get(pk=existing.pk)) == "member"  # SAML_ROLE_DEFAULT
    assert django_user_model.objects.filter(email__iexact=EMAIL).count() == 1


def test_a_sign_in_is_not_asked_for_a_second_factor(client, idp, django_user_model):
    """As with OpenID Connect: the provider is where that identity's factors live."""
    from dashboard.accounts.models import RequiredTwoFactorRole

    RequiredTwoFactorRole.objects.create(role="approver")
    response = sign_in(client, idp, groups=["finance-approvers"])
    assert response["Location"] == "/objects/" and "_auth_user_id" in client.session


def test_an_unknown_email_is_refused_in_words_when_accounts_are_not_made(client, idp, django_user_model, settings):
    settings.SAML_CREATE_USER = False

    alerts = refused_with(client, sign_in(client, idp, groups=["readers"]))

    assert f"No console account has the email {EMAIL}. Ask an Administrator to invite you." in alerts
    assert not django_user_model.objects.exists()


def test_a_deactivated_person_is_refused_and_keeps_their_role(client, idp, django_user_model):
    existing = django_user_model.objects.create_user(username="dana", email=EMAIL, is_active=False)

    alerts = refused_with(client, sign_in(client, idp, groups=["console-admins"]))

    assert "Your console account is deactivated. Ask an Administrator." in alerts
    assert role_of(django_user_model.objects.get(pk=existing.pk)) != "administrator"


def test_a_person_in_no_mapped_group_is_refused_when_a_group_is_required(client, idp, django_user_model, settings):
    settings.SAML_ROLE_REQUIRED = True
    alerts = refused_with(client, sign_in(client, idp, groups=["unmapped"]))
    assert "None of your groups at your identity provider gives a role in the console." in alerts
    assert not django_user_model.objects.exists()


def test_a_response_signed_with_another_key_is_refused(client, idp, django_user_model, tmp_path):
    forger_folder = tmp_path / "forger"
    forger_folder.mkdir()
    forger = InProcessIdP(forger_folder)  # the same entity id, its own key
    forger.trust(client.get("/accounts/saml/metadata/").content.decode())

    alerts = refused_with(client, sign_in(client, idp, groups=["console-admins"], signer=forger))

    assert any("Single sign-on did not complete" in alert for alert in alerts)
    assert not django_user_model.objects.exists()


def test_an_altered_signed_response_and_an_unsolicited_one_are_refused(client, idp, django_user_model):
    login = client.get(reverse("login"))
    start = client.get(one(login.content, ".auth-sso a")["href"])
    form = idp.answer(start["Location"], email="mallory@example.com", groups=["readers"])
    xml = base64.b64decode(form["SAMLResponse"]).decode()
    altered = {**form, "SAMLResponse": base64.b64encode(xml.replace("mallory@", "dana.scully@").encode()).decode()}
    refused_with(client, client.post(reverse("saml2_acs"), altered))

    # A fresh browser that started no sign-in: the same (genuine) answer is unsolicited.
    from django.test import Client

    stranger = Client()
    refused_with(stranger, stranger.post(reverse("saml2_acs"), form))
    assert not django_user_model.objects.exists()


def test_the_metadata_names_the_acs_and_the_entity_id(client, idp):
    response = client.get(reverse("saml2_metadata"))

    assert response.status_code == 200 and response["Content-Type"].startswith("text/xml")
    root = ElementTree.fromstring(response.content)
    assert root.tag == f"{{{MD}}}EntityDescriptor"
    assert root.get("entityID") == "http://testserver/accounts/saml/metadata/"
    acs = root.find(f"{{{MD}}}SPSSODescriptor/{{{MD}}}AssertionConsumerService")
    assert acs is not None
    assert acs.get("Location") == "http://testserver/accounts/saml/acs/"
    assert acs.get("Binding") == "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"


@contextmanager
def served(document: bytes) -> Iterator[tuple[str, list[str]]]:
    """`document` over real HTTP on a free port; the paths asked, in order."""
    hits: list[str] = []

    def app(environ, start_response):
        hits.append(environ["PATH_INFO"])
        start_response("200 OK", [("Content-Type", "application/samlmetadata+xml")])
        return [document]

    server = make_server("127.0.0.1", 0, app, handler_class=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/metadata", hits
    finally:
        server.shutdown()
        server.server_close()


def test_metadata_at_an_address_is_read_once_and_kept(client, idp, settings, django_user_model):
    cache.clear()
    with served(idp.metadata_path.read_bytes()) as (url, hits):
        settings.SAML_CONFIG = saml_config_build(
            base_url="http://testserver", entity_id="", idp_metadata=url, provider_name="Okta"
        )
        assert sign_in(client, idp, groups=["readers"])["Location"] == "/objects/"
        client.logout()
        assert sign_in(client, idp, groups=["readers"])["Location"] == "/objects/"
    assert hits == ["/metadata"]  # kept an hour, not read at every request
    cache.clear()


def test_metadata_that_cannot_be_read_sends_back_to_the_login_page(client, idp, settings):
    settings.SAML_CONFIG = saml_config_build(
        base_url="http://testserver", entity_id="", idp_metadata="http://127.0.0.1:9/metadata", provider_name="Okta"
    )
    start = client.get(reverse("saml2_login"))
    assert start.status_code == 302 and start["Location"] == "/accounts/login/?sso=failed"


def test_hostile_values_never_give_a_server_error(client, idp):
    """The fuzz suite's rule for the SAML URLs, which exist only when configured
    (tests/fuzz/support.py OPTIONAL_FUZZ_TABLE)."""

    @hypothesis_settings(
        max_examples=15,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(name=st.sampled_from(sorted(OPTIONAL_FUZZ_TABLE)), values=st.lists(hostile_text(), max_size=3))
    def check(name, values):
        target = OPTIONAL_FUZZ_TABLE[name]
        for method in target.methods:
            fields = target.form if method == "POST" else target.query
            encoded = urlencoded(list(zip(fields, values, strict=False)))
            path = reverse(name)
            if method == "GET":
                response = client.get(f"{path}?{encoded}")
            else:
                response = client.generic("POST", path, encoded, content_type="application/x-www-form-urlencoded")
            assert response.status_code < 500 and b"Traceback" not in response.content

    check()


def test_without_saml_settings_there_is_no_button_no_route_and_no_import(client, db):
    login = client.get(reverse("login"))

    assert select(login.content, ".auth-sso") == []
    assert client.get("/accounts/saml/metadata/").status_code == 404
    probe = settings_probe("import dashboard.urls; print('djangosaml2' in sys.modules)", SAML_IDP_METADATA="")
    assert probe.stdout.strip() == "False", probe.stderr


def test_settings_turn_it_on_from_the_environment_and_need_the_console_address():
    probe = (
        "import json; from django.conf import settings; from django.urls import reverse; "
        "sp = settings.SAML_CONFIG['service']['sp']; print(json.dumps([settings.SAML_CONFIG['entityid'], "
        "sp['endpoints']['assertion_consumer_service'][0][0], settings.SAML_CONFIG['metadata'], "
        "'dashboard.accounts.saml.ConsoleSamlBackend' in settings.AUTHENTICATION_BACKENDS, "
        "'djangosaml2.middleware.SamlSessionMiddleware' in settings.MIDDLEWARE, reverse('saml2_acs')]))"
    )
    env = {
        "SAML_IDP_METADATA": "https://id.example.com/metadata",
        "CONSOLE_BASE_URL": "https://console.example.com/",
        "SAML_ROLE_MAP": "admins=administrator",
    }
    on = settings_probe(probe, **env)
    assert json.loads(on.stdout) == [
        "https://console.example.com/accounts/saml/metadata/",
        "https://console.example.com/accounts/saml/acs/",
        {"remote": [{"url": "https://id.example.com/metadata"}]},
        True,
        True,
        "/accounts/saml/acs/",
    ], on.stderr

    no_address = settings_probe("", **{**env, "CONSOLE_BASE_URL": ""})
    assert no_address.returncode != 0 and "SAML sign-in needs the console's address" in no_address.stderr
