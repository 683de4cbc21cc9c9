"""Passkeys: the ceremonies checked by py_webauthn against answers of a
software authenticator with a real key (tests/accounts/passkey_authenticator.py):
challenges single use, for one purpose and expiring; the origin and the
signature counter checked. Then the pages: adding and removing one's own
(removal asks for a fresh factor), the second step with a passkey beside the
code, signing in without a password where the policy lets the role, a role
that requires a passkey, recovery codes still signing in, and the audit."""

from __future__ import annotations

import json
import time

import pytest
from django.test import RequestFactory
from django.urls import reverse

from dashboard.accounts import passkeys, policy, two_factor
from dashboard.accounts.models import Passkey, PasskeyRoleRule
from dashboard.accounts.passkeys import PasskeyRefused
from dashboard.accounts.signin import PENDING
from dashboard.audit.models import AuditEntry
from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.accounts.passkey_authenticator import SoftAuthenticator, b64url
from tests.accounts.support import app_code, enable_app
from tests.helpers import PASSWORD
from tests.html import one, select, text_of, texts

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def relying_party(settings):
    settings.PASSKEY_RP_ID = ""
    settings.PASSKEY_ORIGINS = []
    settings.CONSOLE_BASE_URL = ""
    settings.PASSKEY_CHALLENGE_SECONDS = 300


def a_request():
    request = RequestFactory().post("/")
    request.session = {}
    return request


def registered(user, authenticator: SoftAuthenticator | None = None, name: str = "Laptop"):
    authenticator = authenticator or SoftAuthenticator()
    request = a_request()
    options = passkeys.registration_options(request, user=user)
    passkey = passkeys.passkey_register(request, user=user, answer=authenticator.create(options), name=name)
    return authenticator, passkey


def actions_about(user) -> list[str]:
    return list(AuditEntry.objects.filter(subject_id=user.pk).order_by("id").values_list("action", flat=True))


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def log_in(client, username: str = "alice"):
    return client.post(reverse("login"), {"username": username, "password": PASSWORD}, REMOTE_ADDR="203.0.113.7")


def options_from(client, url_name: str, purpose: str) -> dict:
    answer = client.post(reverse(url_name), {"purpose": purpose})
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"] == "application/json"
    return json.loads(answer.content)


def role(user, value: Role) -> None:
    Person.objects.update_or_create(user=user, defaults={"role": value})


# --- the ceremonies ------------------------------------------------------------


def test_registration_keeps_the_key_and_the_options_ask_for_a_discoverable_credential(user):
    request = a_request()
    options = json.loads(passkeys.registration_options(request, user=user))
    assert options["rp"] == {"id": "testserver", "name": "Workspace Console"}
    assert options["authenticatorSelection"]["residentKey"] == "required"
    # The user handle is the account's id, never its name.
    assert options["user"]["name"] == "alice" and options["user"]["id"] == b64url(str(user.pk).encode())
    assert request.session[passkeys.CHALLENGE_KEY]["purpose"] == passkeys.REGISTER

    authenticator = SoftAuthenticator()
    passkey = passkeys.passkey_register(request, user=user, answer=authenticator.create(options), name="  Laptop ")
    assert passkey.name == "Laptop" and passkey.sign_count == 0 and passkey.transports == ["internal"]
    assert passkeys.CHALLENGE_KEY not in request.session  # used up
    assert actions_about(user) == ["passkey.registered"]

    # The next registration's options exclude it, so the device is not registered twice.
    again = json.loads(passkeys.registration_options(a_request(), user=user))
    assert [item["id"] for item in again["excludeCredentials"]] == [passkey.credential_id]


def test_a_challenge_answers_once(user):
    request = a_request()
    options = passkeys.registration_options(request, user=user)
    answer = SoftAuthenticator().create(options)
    passkeys.passkey_register(request, user=user, answer=answer, name="")
    with pytest.raises(PasskeyRefused, match="already used"):
        passkeys.passkey_register(request, user=user, answer=answer, name="")
    assert Passkey.objects.filter(user=user).count() == 1


def test_an_expired_challenge_is_refused(user):
    request = a_request()
    options = passkeys.registration_options(request, user=user)
    request.session[passkeys.CHALLENGE_KEY]["at"] = time.time() - 301
    with pytest.raises(PasskeyRefused, match="expired"):
        passkeys.passkey_register(request, user=user, answer=SoftAuthenticator().create(options), name="")
    assert not Passkey.objects.exists()


def test_an_answer_signed_for_another_origin_is_refused(user):
    request = a_request()
    options = passkeys.registration_options(request, user=user)
    answer = SoftAuthenticator().create(options, origin="https://console.example.evil")
    with pytest.raises(PasskeyRefused, match="could not be checked"):
        passkeys.passkey_register(request, user=user, answer=answer, name="")


def test_the_relying_party_comes_from_settings(settings, user):
    settings.PASSKEY_RP_ID = "example.com"
    settings.PASSKEY_ORIGINS = ["https://console.example.com"]
    request = a_request()
    options = json.loads(passkeys.registration_options(request, user=user))
    assert options["rp"]["id"] == "example.com"
    answer = SoftAuthenticator(origin="https://console.example.com").create(options)
    assert passkeys.passkey_register(request, user=user, answer=answer, name="").pk


def test_sign_in_checks_the_signature_and_moves_the_counter_on(user):
    authenticator, passkey = registered(user)
    request = a_request()
    options = json.loads(passkeys.authentication_options(request, purpose=passkeys.SECOND_STEP, user=user))
    assert [item["id"] for item in options["allowCredentials"]] == [passkey.credential_id]
    used = passkeys.passkey_authenticate(
        request, purpose=passkeys.SECOND_STEP, answer=authenticator.get(options), user=user
    )
    assert used.pk == passkey.pk
    passkey.refresh_from_db()
    assert passkey.sign_count == 1 and passkey.last_used_at is not None


def test_a_counter_that_goes_back_is_refused_and_audited(user):
    authenticator, passkey = registered(user)
    Passkey.objects.filter(pk=passkey.pk).update(sign_count=7)
    request = a_request()
    options = passkeys.authentication_options(request, purpose=passkeys.SECOND_STEP, user=user)
    with pytest.raises(PasskeyRefused, match="counter went back"):
        passkeys.passkey_authenticate(
            request, purpose=passkeys.SECOND_STEP, answer=authenticator.get(options, counter=3), user=user
        )
    assert actions_about(user)[-1] == "passkey.counter_refused"
    passkey.refresh_from_db()
    assert passkey.sign_count == 7


def test_a_challenge_for_one_purpose_is_not_an_answer_for_another(user):
    authenticator, _ = registered(user)
    request = a_request()
    options = passkeys.authentication_options(request, purpose=passkeys.CONFIRM, user=user)
    with pytest.raises(PasskeyRefused):
        passkeys.passkey_authenticate(
            request, purpose=passkeys.SECOND_STEP, answer=authenticator.get(options), user=user
        )


def test_another_persons_passkey_does_not_pass_their_second_step(user, other_user):
    authenticator, _ = registered(other_user)
    request = a_request()
    options = passkeys.authentication_options(request, purpose=passkeys.SECOND_STEP, user=user)
    with pytest.raises(PasskeyRefused, match="not registered"):
        passkeys.passkey_authenticate(
            request, purpose=passkeys.SECOND_STEP, answer=authenticator.get(options), user=user
        )


def test_without_a_password_the_person_must_be_verified_and_the_handle_agree(user, other_user):
    authenticator, passkey = registered(user)
    request = a_request()
    options = json.loads(passkeys.authentication_options(request, purpose=passkeys.PASSWORDLESS))
    assert options["userVerification"] == "required" and options["allowCredentials"] == []
    with pytest.raises(PasskeyRefused):
        passkeys.passkey_authenticate(
            request, purpose=passkeys.PASSWORDLESS, answer=authenticator.get(options, verified=False)
        )
    options = passkeys.authentication_options(request, purpose=passkeys.PASSWORDLESS)
    forged = authenticator.get(options, user_handle=b64url(str(other_user.pk).encode()))
    with pytest.raises(PasskeyRefused, match="does not belong"):
        passkeys.passkey_authenticate(request, purpose=passkeys.PASSWORDLESS, answer=forged)
    options = passkeys.authentication_options(request, purpose=passkeys.PASSWORDLESS)
    found = passkeys.passkey_authenticate(request, purpose=passkeys.PASSWORDLESS, answer=authenticator.get(options))
    assert found.pk == passkey.pk and found.user == user


@pytest.mark.parametrize("answer", ["", "not json", "[]", '{"id": 5}', "{" * 70_000])
def test_a_broken_answer_is_refused_in_words(user, answer):
    request = a_request()
    passkeys.authentication_options(request, purpose=passkeys.PASSWORDLESS)
    with pytest.raises(PasskeyRefused):
        passkeys.passkey_authenticate(request, purpose=passkeys.PASSWORDLESS, answer=answer)


@pytest.mark.parametrize(
    "answer",
    ['{"id": "x", "response": "nope"}', '{"id": "x", "rawId": "x", "type": "public-key", "response": {}}'],
)
def test_a_malformed_registration_answer_is_refused_in_words(user, answer):
    request = a_request()
    passkeys.registration_options(request, user=user)
    with pytest.raises(PasskeyRefused, match="not added"):
        passkeys.passkey_register(request, user=user, answer=answer, name="")


# --- one's own page ---------------------------------------------------------------


def test_adding_a_passkey_on_ones_page_shows_recovery_codes_the_first_time(logged_in_client, user):
    page = logged_in_client.get(reverse("own_account"))
    form = one(page.content, "form[data-passkey=create]")
    assert form["data-options-url"] == reverse("own_passkey_options")
    assert "You have no passkey yet." in texts(page.content, "#passkeys-heading ~ p")

    authenticator = SoftAuthenticator()
    options = options_from(logged_in_client, "own_passkey_options", "register")
    added = logged_in_client.post(
        reverse("own_passkey_add"), {"name": "Work laptop", "credential": authenticator.create(options)}
    )
    assert added.status_code == 200
    assert len(select(added.content, "[aria-label='Recovery codes'] li")) == 10
    assert two_factor.recovery_codes_left(user) == 10
    assert one(added.content, ".recovery-codes a.btn")["href"] == reverse("own_account")

    second = SoftAuthenticator()
    options = options_from(logged_in_client, "own_passkey_options", "register")
    again = logged_in_client.post(reverse("own_passkey_add"), {"name": "", "credential": second.create(options)})
    assert again.status_code == 302
    page = logged_in_client.get(reverse("own_account"))
    names = [text_of(cell) for cell in select(page.content, "#passkeys tbody th")]
    assert names == ["Work laptop", "Passkey 2"]
    assert texts(page.content, "#passkeys td[data-label='Last used']") == ["never", "never"]
    assert actions_about(user) == ["passkey.registered", "passkey.registered"]


def test_a_refused_answer_keeps_the_name_and_says_why(logged_in_client, user):
    options_from(logged_in_client, "own_passkey_options", "register")
    page = logged_in_client.post(reverse("own_passkey_add"), {"name": "Phone", "credential": "{}"})
    assert page.status_code == 422
    assert "could not be read" in text_of(one(page.content, "form[data-passkey] .alert-error"))
    assert one(page.content, "#id_passkey_name")["value"] == "Phone"
    assert not Passkey.objects.exists()


def test_removing_a_passkey_asks_for_a_fresh_factor(logged_in_client, user):
    authenticator, passkey = registered(user)
    codes = two_factor.recovery_codes_first(user=user)
    url = reverse("own_passkey_remove", args=[passkey.pk])
    page = logged_in_client.get(url)
    assert one(page.content, "form[data-passkey=get]")["data-purpose"] == "confirm"

    refused = logged_in_client.post(url, {"remove-code": "wrong-code"})
    assert refused.status_code == 422 and Passkey.objects.filter(pk=passkey.pk).exists()
    nothing = logged_in_client.post(url, {})
    assert nothing.status_code == 422 and Passkey.objects.filter(pk=passkey.pk).exists()

    options = options_from(logged_in_client, "own_passkey_options", "confirm")
    removed = logged_in_client.post(url, {"credential": authenticator.get(options)})
    assert removed.status_code == 302 and not Passkey.objects.filter(pk=passkey.pk).exists()
    assert actions_about(user)[-1] == "passkey.removed"
    assert codes and two_factor.recovery_codes_left(user) == 10  # the codes stay

    # Someone else's passkey is not found at all.
    _, theirs = registered(user.__class__.objects.create_user(username="bob", password=PASSWORD))
    assert logged_in_client.get(reverse("own_passkey_remove", args=[theirs.pk])).status_code == 404


def test_a_recovery_code_also_confirms_a_removal(logged_in_client, user):
    _, passkey = registered(user)
    codes = two_factor.recovery_codes_first(user=user)
    url = reverse("own_passkey_remove", args=[passkey.pk])
    assert logged_in_client.post(url, {"remove-code": codes[0]}).status_code == 302
    assert not Passkey.objects.exists()


def test_the_only_passkey_of_a_role_that_requires_one_stays(logged_in_client, user):
    role(user, Role.MEMBER)
    PasskeyRoleRule.objects.create(role=Role.MEMBER, rule=PasskeyRoleRule.REQUIRED)
    authenticator, passkey = registered(user)
    options = options_from(logged_in_client, "own_passkey_options", "confirm")
    answer = logged_in_client.post(
        reverse("own_passkey_remove", args=[passkey.pk]), {"credential": authenticator.get(options)}
    )
    assert answer.status_code == 302 and Passkey.objects.filter(pk=passkey.pk).exists()


# --- signing in ---------------------------------------------------------------------


def test_password_then_passkey_signs_in_and_is_audited(client, user):
    authenticator, passkey = registered(user)
    after_password = log_in(client)
    assert after_password["Location"] == reverse("login_code") and not signed_in(client)
    page = client.get(reverse("login_code"))
    assert one(page.content, "form[data-passkey=get]")["action"] == reverse("login_code_passkey")
    assert one(page.content, "h1").text == "Use your passkey"

    options = options_from(client, "login_passkey_options", "second-step")
    done = client.post(reverse("login_code_passkey"), {"credential": authenticator.get(options)})
    assert done.status_code == 302 and signed_in(client)
    assert PENDING not in client.session
    assert "passkey.signed_in" in actions_about(user)
    passkey.refresh_from_db()
    assert passkey.last_used_at is not None


def test_a_refused_passkey_leaves_the_second_step_open(client, user):
    authenticator, _ = registered(user)
    log_in(client)
    options = options_from(client, "login_passkey_options", "second-step")
    refused = client.post(reverse("login_code_passkey"), {"credential": authenticator.get(options, origin="http://x")})
    assert refused["Location"] == reverse("login_code") and not signed_in(client)
    # The challenge is used up: the same answer again is refused too.
    assert client.post(reverse("login_code_passkey"), {"credential": "{}"})["Location"] == reverse("login_code")
    assert not signed_in(client)


def test_a_recovery_code_still_signs_in_a_person_with_only_a_passkey(client, user):
    registered(user)
    codes = two_factor.recovery_codes_first(user=user)
    log_in(client)
    page = client.get(reverse("login_code"))
    assert text_of(one(page.content, "label[for=id_code]")) == "Recovery code"
    done = client.post(reverse("login_code"), {"code": codes[0]})
    assert done.status_code == 302 and signed_in(client)


def test_the_passkey_is_offered_beside_the_code(client, user):
    enable_app(user)
    registered(user)
    log_in(client)
    page = client.get(reverse("login_code"))
    assert one(page.content, "h1").text == "Enter your code"
    assert one(page.content, "form[data-passkey=get]") and one(page.content, "input[name=code]")


def test_without_a_password_only_where_the_policy_lets_the_role(client, user):
    authenticator, _ = registered(user)
    assert select(client.get(reverse("login")).content, "form[data-passkey]") == []
    assert client.post(reverse("login_passkey_options"), {"purpose": "passwordless"}).status_code == 403

    PasskeyRoleRule.objects.create(role=Role.ADMINISTRATOR, rule=PasskeyRoleRule.PASSWORDLESS)
    role(user, Role.MEMBER)
    page = client.get(reverse("login") + "?next=/accounts/you/")
    button = one(page.content, "form[data-passkey=get] button")
    assert text_of(button) == "Sign in with a passkey"
    options = options_from(client, "login_passkey_options", "passwordless")
    refused = client.post(
        reverse("login_passkey"), {"credential": authenticator.get(options), "next": "/accounts/you/"}
    )
    assert refused["Location"] == reverse("login") + "?next=/accounts/you/" and not signed_in(client)

    PasskeyRoleRule.objects.create(role=Role.MEMBER, rule=PasskeyRoleRule.PASSWORDLESS)
    options = options_from(client, "login_passkey_options", "passwordless")
    done = client.post(reverse("login_passkey"), {"credential": authenticator.get(options), "next": "/accounts/you/"})
    assert done["Location"] == "/accounts/you/" and signed_in(client)
    assert "passkey.signed_in" in actions_about(user)
    entry = AuditEntry.objects.filter(action="passkey.signed_in").get()
    assert entry.details == {"passkey": "Laptop", "how": "without a password"}


def test_a_deactivated_account_cannot_sign_in_with_its_passkey(client, user):
    authenticator, _ = registered(user)
    PasskeyRoleRule.objects.create(role=Role.VIEWER, rule=PasskeyRoleRule.PASSWORDLESS)
    role(user, Role.VIEWER)
    user.is_active = False
    user.save()
    options = options_from(client, "login_passkey_options", "passwordless")
    client.post(reverse("login_passkey"), {"credential": authenticator.get(options)})
    assert not signed_in(client)


def test_a_role_that_requires_a_passkey_registers_one_before_the_console(client, user):
    role(user, Role.APPROVER)
    PasskeyRoleRule.objects.create(role=Role.APPROVER, rule=PasskeyRoleRule.REQUIRED)
    after_password = log_in(client)
    assert after_password["Location"] == reverse("login_passkey_setup") and not signed_in(client)
    assert client.get(reverse("own_account"))["Location"].startswith(reverse("login"))

    page = client.get(reverse("login_passkey_setup"))
    assert one(page.content, "form[data-passkey=create]")["data-options-url"] == reverse("login_passkey_options")
    options = options_from(client, "login_passkey_options", "register")
    done = client.post(
        reverse("login_passkey_setup"), {"name": "Phone", "credential": SoftAuthenticator().create(options)}
    )
    assert done.status_code == 200 and signed_in(client)
    assert len(select(done.content, "[aria-label='Recovery codes'] li")) == 10
    assert Passkey.objects.get(user=user).name == "Phone"


def test_with_an_app_the_code_comes_before_the_required_passkey(client, user):
    device = enable_app(user)
    role(user, Role.APPROVER)
    PasskeyRoleRule.objects.create(role=Role.APPROVER, rule=PasskeyRoleRule.REQUIRED)
    assert log_in(client)["Location"] == reverse("login_code")
    # The password alone may not add a passkey: that would be a way past the code.
    assert client.get(reverse("login_passkey_setup"))["Location"] == reverse("login_code")
    assert client.post(reverse("login_passkey_options"), {"purpose": "register"}).status_code == 403

    after_code = client.post(reverse("login_code"), {"code": app_code(device, steps_ahead=1)})
    assert after_code["Location"] == reverse("login_passkey_setup") and not signed_in(client)
    options = options_from(client, "login_passkey_options", "register")
    done = client.post(reverse("login_passkey_setup"), {"name": "", "credential": SoftAuthenticator().create(options)})
    assert done.status_code == 302 and signed_in(client)  # recovery codes were made with the app


# --- the policy and an administrator's reset -------------------------------------------


def test_the_policy_page_sets_the_passkey_rules_audited(client, django_user_model):
    admin = django_user_model.objects.create_user(username="ada", password=PASSWORD)
    role(admin, Role.ADMINISTRATOR)
    client.force_login(admin)
    saved = client.post(
        reverse("sign_in_policy"), {"passkey_roles": ["approver", "administrator"], "passwordless_roles": ["viewer"]}
    )
    assert saved.status_code == 302
    assert set(passkeys.passkey_rule_roles(PasskeyRoleRule.REQUIRED)) == {"approver", "administrator"}
    assert passkeys.passkey_rule_roles(PasskeyRoleRule.PASSWORDLESS) == ["viewer"]
    summaries = list(
        AuditEntry.objects.filter(action="sign_in_policy.changed").order_by("id").values_list("summary", flat=True)
    )
    assert summaries == [
        "Passkey required for: Approver, Administrator",
        "Passkey sign-in without a password for: Viewer",
    ]
    page = client.get(reverse("sign_in_policy"))
    rows = {text_of(row.select_one("th")): row for row in select(page.content, "tbody tr")}
    assert text_of(rows["Administrator"].select_one("td[data-label=Passkey]")) == "required"
    assert text_of(rows["Administrator"].select_one("td[data-label='Without a passkey']")).startswith("1")
    assert [box["value"] for box in select(page.content, "input[name=passwordless_roles][checked]")] == ["viewer"]
    assert policy.passkey_policy_set(rule=PasskeyRoleRule.PASSWORDLESS, roles=["viewer"], by=admin) is False


def test_an_administrators_reset_removes_the_passkeys_too(user, django_user_model):
    registered(user)
    admin = django_user_model.objects.create_user(username="ada", password=PASSWORD)
    two_factor.two_factor_reset(user=user, by=admin)
    assert not Passkey.objects.filter(user=user).exists()
    assert AuditEntry.objects.get(action="two_factor.reset").details["passkeys_removed"] == 1


def test_a_passkey_is_the_step_up_of_a_person_without_an_app(logged_in_client, user, settings):
    """Approving a destructive action asks a passkey-only person to confirm
    with their passkey (no code to type); the step-up page marks the
    session, and back on the approval Approve goes through."""
    from dashboard.accounts import step_up

    settings.STEP_UP_RISKS = ["destructive"]
    assert step_up.step_up_needed(user=user, approval="destructive", session={}) == step_up.SET_UP
    authenticator, _ = registered(user)
    assert step_up.step_up_needed(user=user, approval="destructive", session={}) == step_up.PASSKEY
    assert step_up.step_up_needed(user=user, approval="low", session={}) == step_up.NOT_NEEDED

    url = reverse("step_up_passkey")
    page = logged_in_client.get(url, {"next": "/approvals/?approval=ap_1"})
    form = one(page.content, "form[data-passkey=get]")
    assert form["data-purpose"] == "confirm"
    assert one(form, "input[name=next]")["value"] == "/approvals/?approval=ap_1"

    refused = logged_in_client.post(url, {"credential": "not an answer", "next": "/approvals/?approval=ap_1"})
    assert refused.status_code == 422
    assert select(refused.content, ".alert-error[role=alert]")  # said in words, in place
    session = logged_in_client.session
    assert not step_up.step_up_fresh(session)

    options = options_from(logged_in_client, "own_passkey_options", "confirm")
    confirmed = logged_in_client.post(url, {"credential": authenticator.get(options), "next": "//elsewhere.example/"})
    assert confirmed.status_code == 302 and confirmed["Location"] == "/approvals/"  # only a path of this site
    session = logged_in_client.session
    assert step_up.step_up_fresh(session)
    assert step_up.step_up_needed(user=user, approval="destructive", session=session) == step_up.NOT_NEEDED
