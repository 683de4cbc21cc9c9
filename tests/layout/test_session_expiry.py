"""htmx requests from a logged-out browser go to the login page, not into a region."""

from urllib.parse import parse_qs, urlsplit

from cryptography.fernet import Fernet
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from dashboard.keys.testing import stored_api_key


def test_htmx_request_without_a_session_gets_hx_redirect_to_login(client, db):
    response = client.get(
        reverse("objects:index"),
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/objects/?kind=system"},
    )

    assert response.status_code == 200
    assert response.content == b""
    assert response["HX-Redirect"] == "/accounts/login/?next=http%3A%2F%2Ftestserver%2Fobjects%2F%3Fkind%3Dsystem"


def test_htmx_request_from_an_expired_session_is_sent_to_login_and_back_to_the_page(client, user):
    # The page the person was on, and the region on it that polls.
    page = "http://testserver" + reverse("home") + "?tab=recent"
    region = reverse("keys:list")
    htmx = {"HX-Request": "true", "HX-Current-URL": page}
    client.force_login(user)
    # While the session lives, the same request is answered in place.
    live = client.get(region, headers=htmx)
    assert live.status_code == 200 and "HX-Redirect" not in live

    # The session runs out (as after SESSION_COOKIE_AGE): the server no longer
    # knows it, while the browser still sends its cookie.
    session = client.session
    session.set_expiry(-1)
    session.save()
    response = client.get(region, headers=htmx)

    assert response.status_code == 200
    assert response.content == b""
    target = urlsplit(response["HX-Redirect"])
    assert target.path == reverse("login")
    assert parse_qs(target.query) == {"next": [page]}
    # The login form it leads to returns to the page the person was on, not
    # to the address of the region that asked.
    login = client.get(response["HX-Redirect"])
    assert login.status_code == 200
    assertInHTML(f'<input type="hidden" name="next" value="{page}">', login.content.decode(), count=1)


def test_htmx_request_without_the_current_url_comes_back_to_its_own_address(client, db):
    path = reverse("keys:list") + "?sort=name"

    response = client.get(path, headers={"HX-Request": "true"})

    login = client.get(response["HX-Redirect"])
    assertInHTML(f'<input type="hidden" name="next" value="{path}">', login.content.decode(), count=1)


def test_plain_request_without_a_session_keeps_the_ordinary_redirect(client, db):
    response = client.get(reverse("objects:index"))

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")
    assert "HX-Redirect" not in response


def test_htmx_redirects_other_than_login_pass_through(logged_in_client, user, settings):
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    stored_api_key(user=user, secret="svc_sk_expirytest000000000000000aaaa", workspace_id="ws-a", key_id="key-a")
    other = stored_api_key(
        user=user, secret="svc_sk_expirytest000000000000000bbbb", workspace_id="ws-b", key_id="key-b", is_active=False
    )

    # Switching keys answers a 302 to `next`: an htmx request must get it untouched.
    response = logged_in_client.post(
        reverse("keys:activate"), {"key": other.pk, "next": reverse("account")}, headers={"HX-Request": "true"}
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("account")
    assert "HX-Redirect" not in response
