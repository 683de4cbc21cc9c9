"""Two-factor sign-in: setting up an app from one's own page, the second
step after the password (nobody is logged in before it passes), recovery
codes (single use), wrong codes paused like the password, the role policy
sending a person to set it up before the console, turning it off, and an
administrator's reset. Codes are computed from the secret as an app would."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django_otp.plugins.otp_totp.models import TOTPDevice

from dashboard.accounts import two_factor
from dashboard.accounts.signin import PENDING
from dashboard.audit.models import AuditEntry
from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.accounts.support import app_code
from tests.helpers import PASSWORD
from tests.html import one, select, text_of, texts

LIMIT = 5


@pytest.fixture(autouse=True)
def sign_in_settings(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    settings.SIGN_IN_SECOND_STEP_MINUTES = 10


code_for = app_code


def enable_for(user) -> tuple[TOTPDevice, list[str]]:
    device = two_factor.pending_app_device(user)
    codes = two_factor.two_factor_enable(user=user, device=device, code=code_for(device))
    assert codes is not None
    return device, codes


def log_in(client, username: str = "alice", password: str = PASSWORD, next_url: str = ""):
    data = {"username": username, "password": password}
    if next_url:
        data["next"] = next_url
    return client.post(reverse("login"), data, REMOTE_ADDR="203.0.113.7")


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def actions_about(user) -> list[str]:
    return list(AuditEntry.objects.filter(subject_id=user.pk).order_by("id").values_list("action", flat=True))


# --- setting it up on one's own page ------------------------------------------


def test_the_page_shows_a_qr_code_and_the_secret_and_a_code_turns_it_on(logged_in_client, user):
    page = logged_in_client.get(reverse("two_factor"))
    assert page.status_code == 200
    qr = one(page.content, ".qr-frame svg")
    assert qr["role"] == "img" and qr["aria-label"]
    device = TOTPDevice.objects.get(user=user, confirmed=False)
    secret = text_of(one(page.content, "#two-factor-secret")).replace(" ", "")
    assert secret and secret in device.config_url

    # Reloading shows the same secret: the app may have scanned it already.
    again = logged_in_client.get(reverse("two_factor"))
    assert text_of(one(again.content, "#two-factor-secret")).replace(" ", "") == secret

    done = logged_in_client.post(reverse("two_factor_enable"), {"code": code_for(device)})
    assert done.status_code == 200
    codes = texts(done.content, ".code-list li")
    assert len(codes) == 10 and len(set(codes)) == 10
    assert two_factor.two_factor_enabled(user)
    assert two_factor.recovery_codes_left(user) == 10
    assert actions_about(user) == ["two_factor.enabled"]

    # Shown once: the page afterwards counts them and lists none.
    after = logged_in_client.get(reverse("two_factor"))
    assert not select(after.content, ".code-list")
    assert "10 recovery codes left" in text_of(one(after.content, "#main"))


def test_a_wrong_code_leaves_it_off_and_says_so_in_place(logged_in_client, user):
    logged_in_client.get(reverse("two_factor"))
    response = logged_in_client.post(reverse("two_factor_enable"), {"code": "000000"})
    assert response.status_code == 422
    assert "not right" in text_of(one(response.content, "#id_code_error"))
    assert one(response.content, "input[name=code]")["value"] == "000000"
    assert not two_factor.two_factor_enabled(user)
    assert one(response.content, ".qr-frame svg")


def test_an_account_of_single_sign_on_has_nothing_to_set_up(client, django_user_model):
    person = django_user_model.objects.create_user(username="dana@example.com")
    person.set_unusable_password()
    person.save()
    client.force_login(person)
    page = client.get(reverse("two_factor"))
    assert text_of(one(page.content, "#sso-heading")) == "You sign in with single sign-on"
    assert not select(page.content, ".qr-frame")
    assert not TOTPDevice.objects.filter(user=person).exists()
    assert client.post(reverse("two_factor_enable"), {"code": "123456"}).status_code == 302
    assert not two_factor.two_factor_enabled(person)


# --- the second step ------------------------------------------------------------


def test_the_password_alone_logs_nobody_in_and_the_code_does(client, user):
    device, _ = enable_for(user)

    client.get(reverse("login"))
    client.session.save()
    before = client.cookies["sessionid"].value
    first = log_in(client, next_url="/objects/")
    assert first.status_code == 302 and first["Location"] == reverse("login_code")
    assert not signed_in(client)
    # The half sign-in lives under a new session key, not one that may have been planted.
    assert client.cookies["sessionid"].value != before
    # No page of the console for a half-signed-in session.
    assert client.get(reverse("home")).status_code == 302

    page = client.get(reverse("login_code"))
    assert page.status_code == 200
    assert one(page.content, "input[name=code]")["autocomplete"] == "one-time-code"

    done = client.post(reverse("login_code"), {"code": code_for(device, steps_ahead=1)})
    assert done.status_code == 302 and done["Location"] == "/objects/"
    assert client.session["_auth_user_id"] == str(user.pk)
    assert PENDING not in client.session


def test_a_code_is_not_accepted_twice(client, user):
    device, _ = enable_for(user)
    code = code_for(device, steps_ahead=1)
    log_in(client)
    assert client.post(reverse("login_code"), {"code": code}).status_code == 302
    client.logout()

    log_in(client)
    replay = client.post(reverse("login_code"), {"code": code})
    assert replay.status_code == 200
    assert not signed_in(client)


def test_the_second_step_expires(client, user):
    enable_for(user)
    log_in(client)
    session = client.session
    session[PENDING] = {**session[PENDING], "at": time.time() - 11 * 60}
    session.save()

    response = client.get(reverse("login_code"), follow=True)
    assert response.redirect_chain[-1][0] == reverse("login")
    assert "Log in again" in text_of(one(response.content, "#messages"))
    assert PENDING not in client.session


def test_the_code_step_without_a_password_first_is_the_login_page(client, db):
    for name in ("login_code", "login_two_factor_setup"):
        response = client.get(reverse(name), follow=True)
        assert response.redirect_chain == [(reverse("login"), 302)]
        assert not select(response.content, "#messages .alert")


def test_a_recovery_code_signs_in_once(client, user):
    _, codes = enable_for(user)
    log_in(client)
    # As printed on the page: two halves with a dash, in capitals.
    printed = f"{codes[0][:4]}-{codes[0][4:]}".upper()
    done = client.post(reverse("login_code"), {"code": printed}, follow=True)
    assert signed_in(client)
    assert "9 left" in text_of(one(done.content, "#messages"))
    assert two_factor.recovery_codes_left(user) == 9
    assert actions_about(user)[-2:] == ["two_factor.recovery_code_used", "signed_in"]
    client.logout()

    log_in(client)
    again = client.post(reverse("login_code"), {"code": codes[0]})
    assert again.status_code == 200
    assert "not right" in text_of(one(again.content, "#id_code_error"))
    assert not signed_in(client)


def test_wrong_codes_pause_the_second_step_even_for_the_right_code(client, user, monkeypatch):
    device, _ = enable_for(user)
    log_in(client)
    for attempt in range(LIMIT - 1):
        assert client.post(reverse("login_code"), {"code": f"00000{attempt}"}).status_code == 200
    paused = client.post(reverse("login_code"), {"code": "999999"})
    assert paused.status_code == 429
    assert "Try again in 15 minutes" in text_of(one(paused.content, ".alert-error"))
    assert actions_about(user)[-1] == "two_factor.paused"

    refused = client.post(reverse("login_code"), {"code": code_for(device, steps_ahead=1)})
    assert refused.status_code == 429
    assert not signed_in(client)

    # A cool-off later (the throttle's clock moved on, not slept), the right code works.
    class Later:
        @staticmethod
        def time() -> float:
            return time.time() + 16 * 60

    monkeypatch.setattr("dashboard.accounts.throttle.time", Later)
    accepted = client.post(reverse("login_code"), {"code": code_for(device, steps_ahead=1)})
    assert accepted.status_code == 302
    assert signed_in(client)


# --- enforcement per role ---------------------------------------------------------


def test_a_required_role_without_an_app_sets_one_up_before_the_console(client, user):
    Person.objects.update_or_create(user=user, defaults={"role": Role.APPROVER})
    two_factor.RequiredTwoFactorRole.objects.create(role=Role.APPROVER)
    assert two_factor.two_factor_required(user)

    first = log_in(client, next_url="/objects/")
    assert first["Location"] == reverse("login_two_factor_setup")
    assert not signed_in(client)
    assert client.get(reverse("home")).status_code == 302

    page = client.get(reverse("login_two_factor_setup"))
    assert one(page.content, ".qr-frame svg")
    # A secret shown to a session not logged in yet: kept by no cache either.
    assert "no-store" in page["Cache-Control"]
    form = one(page.content, ".two-factor-setup form")
    assert form["action"] == reverse("login_two_factor_setup")

    device = TOTPDevice.objects.get(user=user, confirmed=False)
    done = client.post(reverse("login_two_factor_setup"), {"code": code_for(device)})
    assert done.status_code == 200
    assert signed_in(client)
    assert len(texts(done.content, ".code-list li")) == 10
    assert one(done.content, ".recovery-codes a.btn-primary")["href"] == "/objects/"


def test_a_required_role_cannot_turn_it_off(logged_in_client, user):
    device, _ = enable_for(user)
    Person.objects.update_or_create(user=user, defaults={"role": Role.ADMINISTRATOR})
    two_factor.RequiredTwoFactorRole.objects.create(role=Role.ADMINISTRATOR)

    page = logged_in_client.get(reverse("two_factor"))
    assert not select(page.content, "form[action='{}']".format(reverse("two_factor_turn_off")))
    response = logged_in_client.post(reverse("two_factor_turn_off"), {"off-code": code_for(device, steps_ahead=1)})
    assert response.status_code == 302
    assert two_factor.two_factor_enabled(user)


def test_turning_it_off_needs_a_code(logged_in_client, user):
    device, _ = enable_for(user)
    wrong = logged_in_client.post(reverse("two_factor_turn_off"), {"off-code": "123456"})
    assert wrong.status_code == 422
    assert "not right" in text_of(one(wrong.content, "#id_off-code_error"))
    assert one(wrong.content, "#id_off-code")["value"] == "123456"
    assert two_factor.two_factor_enabled(user)

    right = logged_in_client.post(reverse("two_factor_turn_off"), {"off-code": code_for(device, steps_ahead=1)})
    assert right.status_code == 302
    assert not two_factor.two_factor_enabled(user)
    assert two_factor.recovery_codes_left(user) == 0
    assert actions_about(user)[-1] == "two_factor.disabled"


def test_new_recovery_codes_need_a_code_and_replace_the_old_ones(logged_in_client, user):
    device, old = enable_for(user)
    refused = logged_in_client.post(reverse("recovery_codes_new"), {"new-code": ""})
    assert refused.status_code == 422
    assert text_of(one(refused.content, "#id_new-code_error"))
    assert not select(refused.content, ".code-list")

    response = logged_in_client.post(reverse("recovery_codes_new"), {"new-code": code_for(device, steps_ahead=1)})
    assert response.status_code == 200
    new = [code.replace("-", "") for code in texts(response.content, ".code-list li")]
    assert len(new) == 10 and not set(new) & set(old)
    assert actions_about(user)[-1] == "two_factor.recovery_codes_regenerated"
    assert two_factor.two_factor_check(user=user, code=old[0], purpose="sign in") == ""
    assert two_factor.two_factor_check(user=user, code=new[0], purpose="sign in") == "recovery"


def test_wrong_codes_on_ones_own_page_pause_it_too(logged_in_client, user):
    enable_for(user)
    for attempt in range(LIMIT - 1):
        assert logged_in_client.post(reverse("two_factor_turn_off"), {"off-code": f"00000{attempt}"}).status_code == 422
    paused = logged_in_client.post(reverse("recovery_codes_new"), {"new-code": "999999"})
    assert paused.status_code == 429
    assert "signing in is paused" in text_of(one(paused.content, ".alert-error"))
    assert two_factor.code_attempts_paused(user)


# --- administrators -------------------------------------------------------------------


@pytest.fixture
def admin_client(client, django_user_model):
    admin = django_user_model.objects.create_user(username="ada", password=PASSWORD)
    Person.objects.create(user=admin, role=Role.ADMINISTRATOR)
    client.force_login(admin)
    client.admin = admin
    return client


def test_an_administrator_resets_a_lost_second_factor(admin_client, user):
    device, _ = enable_for(user)
    # The person had also tripped the pause.
    for _ in range(LIMIT):
        two_factor.code_failure_record(user=user, limit=LIMIT, cool_off_seconds=900)
    assert two_factor.code_attempts_paused(user)

    page = admin_client.get(reverse("two_factor_reset", args=[user.pk]), {"next": "/people/"})
    assert page.status_code == 200
    assert one(page.content, "input[name=next]")["value"] == "/people/"

    done = admin_client.post(reverse("two_factor_reset", args=[user.pk]), {"next": "/people/"})
    assert done.status_code == 302 and done["Location"] == "/people/"
    assert not TOTPDevice.objects.filter(user=user).exists()
    assert two_factor.recovery_codes_left(user) == 0
    assert two_factor.code_attempts_paused(user) is None
    entry = AuditEntry.objects.filter(subject_id=user.pk, action="two_factor.reset").get()
    assert entry.user_id == admin_client.admin.pk


def test_only_administrators_reset_or_change_the_policy(logged_in_client, other_user):
    assert logged_in_client.post(reverse("two_factor_reset", args=[other_user.pk])).status_code == 403
    assert logged_in_client.post(reverse("sign_in_policy"), {"roles": ["viewer"]}).status_code == 403
    assert not two_factor.two_factor_required_roles()


def test_the_policy_page_sets_the_required_roles(admin_client, user):
    enable_for(user)  # alice: a Member (the default role) with an app
    page = admin_client.get(reverse("sign_in_policy"))
    assert page.status_code == 200
    counts = "td[data-label='Active people'], td[data-label='Without a second factor']"
    rows = {text_of(row.select_one("th")): texts(row, counts) for row in select(page.content, "tbody tr")}
    assert rows["Member"] == ["1", "0"]
    assert rows["Administrator"] == ["1", "1"]

    saved = admin_client.post(reverse("sign_in_policy"), {"roles": [Role.APPROVER, Role.ADMINISTRATOR]}, follow=True)
    assert "Sign-in policy saved." in text_of(one(saved.content, "#messages"))
    assert sorted(two_factor.two_factor_required_roles()) == [Role.ADMINISTRATOR, Role.APPROVER]
    checked = [box["value"] for box in select(saved.content, "input[name=roles][checked]")]
    assert sorted(checked) == [Role.ADMINISTRATOR, Role.APPROVER]
    entry = AuditEntry.objects.get(action="sign_in_policy.changed")
    assert entry.summary == "Two-factor sign-in required for: Approver, Administrator"

    again = admin_client.post(reverse("sign_in_policy"), {"roles": [Role.APPROVER, Role.ADMINISTRATOR]}, follow=True)
    assert "Nothing changed." in text_of(one(again.content, "#messages"))
    assert AuditEntry.objects.filter(action="sign_in_policy.changed").count() == 1


def test_the_decision_after_a_password_for_other_callers(rf, user):
    """`sign_in_after_password` is what an accepted invitation calls too: a
    required role goes to set up an app, logged in only after it."""
    from django.contrib.sessions.backends.db import SessionStore

    from dashboard.accounts.signin import sign_in_after_password

    def fresh_request():
        request = rf.post("/people/join/x/")
        request.session = SessionStore()
        return request

    request = fresh_request()
    assert sign_in_after_password(request, user=user, next_url="/settings/keys/add/") == "/settings/keys/add/"
    assert request.session["_auth_user_id"] == str(user.pk)
    assert request.session["_auth_user_backend"] == "django.contrib.auth.backends.ModelBackend"

    Person.objects.update_or_create(user=user, defaults={"role": Role.APPROVER})
    two_factor.RequiredTwoFactorRole.objects.create(role=Role.APPROVER)
    user._console_roles = None
    request = fresh_request()
    target = sign_in_after_password(request, user=user, next_url="/settings/keys/add/")
    assert target == reverse("login_two_factor_setup")
    assert "_auth_user_id" not in request.session
    assert request.session[PENDING]["next"] == "/settings/keys/add/"
