"""htmx requests from a logged-out browser go to the login page, not into a region."""

from django.urls import reverse


def test_htmx_request_without_a_session_gets_hx_redirect_to_login(client, db):
    response = client.get(
        reverse("objects:index"),
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/objects/?kind=system"},
    )

    assert response.status_code == 200
    assert response.content == b""
    assert response["HX-Redirect"] == "/accounts/login/?next=http%3A%2F%2Ftestserver%2Fobjects%2F%3Fkind%3Dsystem"


def test_plain_request_without_a_session_keeps_the_ordinary_redirect(client, db):
    response = client.get(reverse("objects:index"))

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")
    assert "HX-Redirect" not in response


def test_htmx_redirects_other_than_login_pass_through(logged_in_client):
    response = logged_in_client.get(reverse("objects:index"), headers={"HX-Request": "true"})

    assert "HX-Redirect" not in response or "/accounts/login/" not in response["HX-Redirect"]
