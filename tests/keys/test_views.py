"""Key settings, switcher and account pages, with /v1/me mocked by respx."""

from __future__ import annotations

import logging

import httpx
import pytest
from django.urls import reverse

from dashboard.keys.models import ApiKey
from dashboard.keys.selectors import active_key_for
from tests.helpers import mocked_service
from tests.html import one, parse, root_ids, text_of, texts
from tests.keys.support import DEMO_SECRET, OTHER_ME, OTHER_SECRET, SERVICE, error_body, me_body


@pytest.fixture
def service():
    with mocked_service(SERVICE) as mock:
        yield mock


def bearer(call) -> str:
    return call.request.headers["Authorization"]


# ---- Adding a key ---------------------------------------------------------


def test_add_key_checks_with_me_before_saving(logged_in_client, user, service):
    route = service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    response = logged_in_client.post(reverse("keys:add"), {"label": "Acme", "secret": DEMO_SECRET})

    assert response.status_code == 302 and response["Location"] == reverse("keys:list")
    assert route.call_count == 1
    assert bearer(route.calls[0]) == f"Bearer {DEMO_SECRET}"
    key = ApiKey.objects.get(user=user)
    assert key.label == "Acme" and key.is_active and key.workspace_name == "Acme Marketing"

    page = logged_in_client.get(reverse("keys:list"))
    html = page.content.decode()
    assert f"{DEMO_SECRET[:11]}…WXYZ" in html
    assert "Acme Marketing" in html
    assert "added for workspace Acme Marketing" in html


def test_rejected_key_is_not_stored_and_says_so(logged_in_client, user, service, caplog):
    caplog.set_level(logging.DEBUG)
    route = service.get("/v1/me").mock(
        return_value=httpx.Response(401, json=error_body("authentication", "Invalid API key", "req_refused_1"))
    )

    response = logged_in_client.post(reverse("keys:add"), {"label": "Typo key", "secret": DEMO_SECRET})

    assert response.status_code == 200
    html = response.content.decode()
    assert "The service refused this key" in html
    assert "req_refused_1" in html
    assert one(html, "input[name=label]")["value"] == "Typo key"  # what was typed in the label survives
    assert DEMO_SECRET not in html  # ...but the secret is never echoed back
    assert route.call_count == 1
    assert not ApiKey.objects.exists()
    assert DEMO_SECRET not in caplog.text


@pytest.mark.parametrize(
    ("remote", "expected"),
    [
        (httpx.Response(500, json=error_body("server_error", "boom", "req_500")), "could not check this key"),
        (httpx.ConnectError("connection refused"), "could not be reached"),
    ],
)
def test_service_failure_while_adding_stores_nothing(logged_in_client, service, remote, expected):
    route = service.get("/v1/me")
    if isinstance(remote, Exception):
        route.mock(side_effect=remote)
    else:
        route.mock(return_value=remote)

    response = logged_in_client.post(reverse("keys:add"), {"label": "Acme", "secret": DEMO_SECRET})

    html = response.content.decode()
    assert response.status_code == 200
    assert expected in html and "Nothing was stored" in html
    # Not the key's fault: said for the form, and the pasted key stays in its box (hx-preserve).
    (alert,) = parse(html).select("#add-key-form > .alert-error")
    assert expected in text_of(alert) and not parse(html).select("#id_secret_error")
    assert one(html, "input[name=secret]")["hx-preserve"] == "true"
    assert DEMO_SECRET not in html
    assert not ApiKey.objects.exists()


def test_malformed_key_is_refused_without_a_remote_call(logged_in_client, service):
    route = service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    response = logged_in_client.post(reverse("keys:add"), {"label": "Acme", "secret": "not-a-key-at-all"})

    assert response.status_code == 200
    assert "should start with svc_sk_" in response.content.decode()
    assert route.call_count == 0
    assert not ApiKey.objects.exists()


def test_htmx_add_error_swaps_only_the_form(logged_in_client, service):
    service.get("/v1/me").mock(return_value=httpx.Response(401, json=error_body("authentication", "no", "req_x")))

    response = logged_in_client.post(
        reverse("keys:add"), {"label": "Acme", "secret": DEMO_SECRET}, headers={"HX-Request": "true"}
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert root_ids(html) == ["form#add-key-form"]  # the form alone, no page around it
    assert "The service refused this key" in html and DEMO_SECRET not in html


def test_htmx_add_success_redirects_the_whole_page(logged_in_client, service):
    service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    response = logged_in_client.post(
        reverse("keys:add"), {"label": "Acme", "secret": DEMO_SECRET}, headers={"HX-Request": "true"}
    )

    assert response["HX-Redirect"] == reverse("keys:list")
    assert ApiKey.objects.count() == 1


# ---- Secrets never rendered ------------------------------------------------


def test_secret_is_absent_from_every_page_and_the_logs(logged_in_client, user, add_key, service, caplog):
    caplog.set_level(logging.DEBUG)
    add_key(user)
    add_key(user, label="Globex", **OTHER_ME)
    service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    pages = {
        "home": logged_in_client.get(reverse("home")),
        "list": logged_in_client.get(reverse("keys:list")),
        "account": logged_in_client.get(reverse("account")),
        "add": logged_in_client.get(reverse("keys:add")),
        "delete": logged_in_client.get(reverse("keys:delete", args=[ApiKey.objects.first().pk])),
    }
    for name, response in pages.items():
        assert response.status_code == 200, name
        html = response.content.decode()
        for secret in (DEMO_SECRET, OTHER_SECRET):
            assert secret not in html, name
            assert secret[11:-4] not in html, name
    assert DEMO_SECRET not in caplog.text and OTHER_SECRET not in caplog.text


# ---- Switching, checking, deleting ------------------------------------------


def test_switching_from_the_header_changes_the_active_key(logged_in_client, user, add_key):
    first = add_key(user)
    second = add_key(user, label="Globex", **OTHER_ME)
    home = logged_in_client.get(reverse("home")).content.decode()
    assert one(home, f'.switcher button[name="key"][value="{second.pk}"]')  # the header switcher offers it

    response = logged_in_client.post(reverse("keys:activate"), {"key": second.pk, "next": reverse("account")})

    assert response.status_code == 302 and response["Location"] == reverse("account")
    assert active_key_for(user=user).pk == second.pk
    assert ApiKey.objects.filter(user=user, is_active=True).count() == 1
    assert not ApiKey.objects.get(pk=first.pk).is_active


def test_switch_ignores_an_offsite_next(logged_in_client, user, add_key):
    add_key(user)
    second = add_key(user, label="Globex", **OTHER_ME)

    response = logged_in_client.post(reverse("keys:activate"), {"key": second.pk, "next": "https://evil.example/"})

    assert response["Location"] == reverse("home")


def test_switch_is_post_only(logged_in_client, user, add_key):
    key = add_key(user)
    assert logged_in_client.get(reverse("keys:activate"), {"key": key.pk}).status_code == 405


def test_another_users_key_is_invisible_and_untouchable(client, user, other_user, add_key, service):
    mine = add_key(user)
    theirs = add_key(other_user, label="Bob's", **OTHER_ME)
    route = service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))
    client.force_login(user)

    listing = client.get(reverse("keys:list")).content.decode()
    assert "Globex Sales" not in listing and "Bob&#x27;s" not in listing
    assert client.post(reverse("keys:activate"), {"key": theirs.pk}).status_code == 404
    assert client.post(reverse("keys:check", args=[theirs.pk])).status_code == 404
    assert client.get(reverse("keys:delete", args=[theirs.pk])).status_code == 404
    assert client.post(reverse("keys:delete", args=[theirs.pk])).status_code == 404

    assert route.call_count == 0  # their key was never used
    assert active_key_for(user=user).pk == mine.pk
    assert ApiKey.objects.get(pk=theirs.pk).is_active  # unchanged for bob


def test_check_again_updates_the_row(logged_in_client, user, add_key, service):
    key = add_key(user)
    before = key.last_verified_at
    route = service.get("/v1/me").mock(
        return_value=httpx.Response(200, json=me_body(workspace_name="Acme Renamed", role="owner"))
    )

    response = logged_in_client.post(reverse("keys:check", args=[key.pk]), headers={"HX-Request": "true"})

    html = response.content.decode()
    assert response.status_code == 200
    assert root_ids(html) == [f"tr#key-row-{key.pk}"]
    assert "Acme Renamed" in text_of(one(html, "tr")) and "works" in text_of(one(html, "tr"))
    assert route.call_count == 1 and bearer(route.calls[0]) == f"Bearer {DEMO_SECRET}"
    key.refresh_from_db()
    assert key.workspace_name == "Acme Renamed" and key.member_role == "owner"
    assert key.last_verified_at > before


def test_check_again_with_a_revoked_key_says_so_and_keeps_the_row(logged_in_client, user, add_key, service):
    key = add_key(user)
    service.get("/v1/me").mock(
        return_value=httpx.Response(401, json=error_body("authentication", "revoked", "req_rev"))
    )

    response = logged_in_client.post(reverse("keys:check", args=[key.pk]), headers={"HX-Request": "true"})

    html = response.content.decode()
    assert "The service refused this key" in html and "req_rev" in html
    stored = ApiKey.objects.get(pk=key.pk)
    assert stored.workspace_name == "Acme Marketing" and stored.last_verified_at == key.last_verified_at


def test_check_again_without_javascript_redirects_with_a_message(logged_in_client, user, add_key, service):
    key = add_key(user)
    service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    response = logged_in_client.post(reverse("keys:check", args=[key.pk]), follow=True)

    assert response.redirect_chain[-1][0] == reverse("keys:list")
    assert "works: workspace Acme Marketing" in response.content.decode()


def test_delete_asks_first_then_activates_another_key(logged_in_client, user, add_key):
    first = add_key(user)
    second = add_key(user, label="Globex", **OTHER_ME)

    confirm = logged_in_client.get(reverse("keys:delete", args=[first.pk]))
    assert confirm.status_code == 200 and "Delete API key" in confirm.content.decode()
    assert ApiKey.objects.filter(pk=first.pk).exists()  # a GET deletes nothing

    response = logged_in_client.post(reverse("keys:delete", args=[first.pk]))

    assert response.status_code == 302
    assert not ApiKey.objects.filter(pk=first.pk).exists()
    assert active_key_for(user=user).pk == second.pk


# ---- Decryption failure in pages ---------------------------------------------


def test_unreadable_key_is_flagged_and_pages_send_you_to_re_add_it(logged_in_client, user, add_key, settings, service):
    from cryptography.fernet import Fernet

    add_key(user)
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    route = service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    account = logged_in_client.get(reverse("account"))
    assert account.status_code == 302 and account["Location"] == reverse("keys:list")

    listing = logged_in_client.get(reverse("keys:list")).content.decode()
    assert "1 stored key can't be read" in listing and "Delete Acme and add it again" in listing
    assert route.call_count == 0


# ---- Account page ------------------------------------------------------------


def test_account_page_shows_everything_me_answers(logged_in_client, user, add_key, service):
    add_key(user, label="Acme main")
    route = service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    response = logged_in_client.get(reverse("account"))

    html = response.content.decode()
    assert route.call_count == 1
    for text in (
        "Acme Marketing",
        "7d9f3c1e-0000-4000-8000-000000000001",
        "Europe/Paris",
        "5a1b2c3d-0000-4000-8000-000000000002",
        "admin",
        "9e8d7c6b-0000-4000-8000-000000000003",
        "Console key",
        DEMO_SECRET[:11],
        "1 Mar 2026, 22:30:00 UTC",
        "1 Mar 2026, 23:30:00 Europe/Paris",  # the same instant in the workspace zone
        "Acme main",
    ):
        assert text in html, text
    assert [link["href"] for link in parse(html).select("nav.main-nav a[aria-current=page]")] == ["/account/"]
    you = one(html, "[aria-labelledby=you-heading]")
    assert [link["href"] for link in you.select("a")] == [reverse("own_account")]


def test_account_page_remote_error_goes_to_the_shared_middleware(logged_in_client, user, add_key, service):
    add_key(user)
    service.get("/v1/me").mock(
        return_value=httpx.Response(500, json=error_body("server_error", "boom", "req_acct_500"))
    )

    response = logged_in_client.get(reverse("account"))

    assert response.status_code >= 500
    assert "req_acct_500" in response.content.decode()


def test_account_without_a_key_redirects_to_key_settings(logged_in_client, service):
    response = logged_in_client.get(reverse("account"))
    assert response.status_code == 302 and response["Location"] == reverse("keys:list")


# ---- Home, login, logout ------------------------------------------------------


def test_home_prompts_for_a_key_when_there_is_none(logged_in_client):
    html = logged_in_client.get(reverse("home")).content.decode()
    main = one(html, "main")
    assert "Add an API key to get started" in text_of(main)
    assert reverse("keys:add") in [link["href"] for link in main.select("a")]


def test_home_names_the_workspace_without_a_remote_call(logged_in_client, user, add_key, service):
    add_key(user)
    route = service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    html = logged_in_client.get(reverse("home")).content.decode()

    assert "You are working in Acme Marketing as admin" in text_of(one(html, "main"))
    assert texts(html, "main strong")[:2] == ["Acme Marketing", "admin"]
    assert route.call_count == 0


def test_pages_need_a_login(client, db):
    for name in ("home", "keys:list", "keys:add", "account"):
        response = client.get(reverse(name))
        assert response.status_code == 302, name
        assert response["Location"].startswith(reverse("login")), name


def test_login_and_logout(client, user):
    page = client.get(reverse("login"))
    assert page.status_code == 200 and one(page.content, "input[type=password]")

    response = client.post(reverse("login"), {"username": "alice", "password": "correct horse battery staple"})
    assert response.status_code == 302 and response["Location"] == reverse("home")
    assert one(client.get(reverse("home")).content, 'form[action="/accounts/logout/"]')

    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("home")).status_code == 302


def test_wrong_password_says_so(client, user):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()


# ---- Django admin --------------------------------------------------------------


def test_admin_lists_and_shows_keys_without_the_secret(admin_client, user, add_key):
    key = add_key(user)

    listing = admin_client.get(reverse("admin:keys_apikey_changelist"))
    change = admin_client.get(reverse("admin:keys_apikey_change", args=[key.pk]))

    for response in (listing, change):
        html = response.content.decode()
        assert response.status_code == 200
        assert key.masked in html
        assert DEMO_SECRET not in html
        assert key.encrypted_secret not in html  # not even the ciphertext
    assert admin_client.get(reverse("admin:keys_apikey_add")).status_code == 403


def test_check_again_of_an_unreadable_key_says_so_without_a_remote_call(
    logged_in_client, user, add_key, settings, service
):
    from cryptography.fernet import Fernet

    key = add_key(user)
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    route = service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    response = logged_in_client.post(reverse("keys:check", args=[key.pk]), headers={"HX-Request": "true"})

    html = response.content.decode()
    assert response.status_code == 200
    assert "can&#x27;t be read" in html and "add it again" in html
    assert route.call_count == 0


@pytest.mark.parametrize(
    ("status", "error_type", "headers", "expected"),
    [
        (403, "permission", {}, "may not read its own account"),
        (429, "rate_limited", {"Retry-After": "30"}, "try again in 30 seconds"),
    ],
)
def test_check_again_explains_other_refusals(
    logged_in_client, user, add_key, service, status, error_type, headers, expected
):
    key = add_key(user)
    service.get("/v1/me").mock(
        return_value=httpx.Response(status, json=error_body(error_type, "nope", "req_other"), headers=headers)
    )

    html = logged_in_client.post(reverse("keys:check", args=[key.pk]), headers={"HX-Request": "true"}).content.decode()

    assert expected in html and "req_other" in html
