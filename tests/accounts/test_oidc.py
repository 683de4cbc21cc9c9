"""Optional single sign-on (mozilla-django-oidc) against a stub OpenID
Connect provider over real HTTP (tests/accounts/oidc_provider.py): the
whole code flow, people created or linked by email, failures back on the
login page, and nothing of it when unconfigured."""

from __future__ import annotations

from django.urls import reverse

# Imported here, with single sign-on off as in settings: dashboard.urls decides
# at import whether to add the sign-on views, and must decide "no" for the
# last test. These tests add them through their own URL conf.
from tests.accounts import urls_oidc  # noqa: F401
from tests.accounts.support import settings_probe, sign_on
from tests.html import one, select, text_of


def test_the_login_page_offers_the_provider_and_a_new_person_gets_an_account(client, provider, django_user_model):
    login = client.get(reverse("login"))
    assert text_of(one(login.content, ".auth-sso a")) == "Sign in with Stub ID"

    response = sign_on(client, next_url="/objects/")

    assert response.status_code == 302 and response["Location"] == "/objects/"
    person = django_user_model.objects.get(email="Dana.Scully@example.com")
    assert (person.username, person.first_name, person.last_name) == ("Dana.Scully@example.com", "Dana", "Scully")
    assert client.session["_auth_user_id"] == str(person.pk)
    home = client.get(reverse("home"))
    assert text_of(one(home.content, ".header-user")) == "Dana.Scully@example.com"
    assert provider.calls.count("/token") == 1 and provider.calls.count("/userinfo") == 1


def test_an_existing_account_with_that_email_is_linked_not_duplicated(client, provider, django_user_model):
    existing = django_user_model.objects.create_user(
        username="dana", email="dana.scully@EXAMPLE.com", password="x" * 20
    )

    sign_on(client)

    assert client.session["_auth_user_id"] == str(existing.pk)
    assert django_user_model.objects.count() == 1


def test_a_sign_on_is_not_asked_for_a_second_factor(client, provider, django_user_model):
    """The provider is where a single sign-on identity's factors live (and where
    an organisation enforces MFA): the console asks no code after it, even of
    a person with an app whose role requires one (dashboard/accounts/two_factor.py)."""
    from dashboard.accounts.models import RequiredTwoFactorRole
    from dashboard.accounts.two_factor import two_factor_enabled, two_factor_required
    from dashboard.people.models import Person
    from dashboard.people.roles import Role

    existing = django_user_model.objects.create_user(username="dana", email="dana.scully@example.com")
    Person.objects.create(user=existing, role=Role.APPROVER)
    RequiredTwoFactorRole.objects.create(role=Role.APPROVER)
    assert two_factor_required(existing) and not two_factor_enabled(existing)

    response = sign_on(client, next_url="/objects/")

    assert response.status_code == 302 and response["Location"] == "/objects/"
    assert client.session["_auth_user_id"] == str(existing.pk)


def test_an_unverified_email_is_refused_back_on_the_login_page(client, provider, django_user_model):
    provider.claims["email_verified"] = False

    response = sign_on(client)

    assert response.status_code == 302
    failed = client.get(response["Location"])
    assert "Single sign-on did not complete" in text_of(one(failed.content, ".alert-error"))
    assert "_auth_user_id" not in client.session
    assert not django_user_model.objects.exists()


def test_a_forged_id_token_is_refused(client, provider, django_user_model):
    from cryptography.hazmat.primitives.asymmetric import rsa

    # The provider signs with a key other than the one its JWKS publishes.
    published = provider.private_key
    provider.private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    provider.jwks_key = published

    response = sign_on(client)

    assert "sso=failed" in response["Location"]
    assert "_auth_user_id" not in client.session


def test_without_oidc_settings_there_is_no_button_no_route_and_no_import(client, db):
    login = client.get(reverse("login"))

    assert select(login.content, ".auth-sso") == []
    assert client.get("/accounts/oidc/authenticate/").status_code == 404
    probe = settings_probe("import dashboard.urls; print('mozilla_django_oidc' in sys.modules)", OIDC_RP_CLIENT_ID="")
    assert probe.stdout.strip() == "False", probe.stderr
