"""Home's getting-started checklist (#40 item 3): an Administrator's first
hour ticks itself from the console's real state as they invite, set the
sign-in policy and get email configured; it hides and shows again; nobody
else sees it or may hide it. The browser test (axe, both themes) walks it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.html import one, parse, select, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.EMAIL_CONFIGURED = False
    user = django_user_model.objects.create_user(username="ada", email="ada@example.com", password="x")
    Person.objects.create(user=user, role=Role.ADMINISTRATOR)
    client.force_login(user)
    return client


def steps_of(client) -> dict[str, bool]:
    html = parse(client.get(reverse("home")).content)
    return {step["data-step"]: "is-done" in step["class"] for step in select(html, "#getting-started [data-step]")}


def test_the_checklist_ticks_as_an_administrator_invites_sets_the_policy_and_adds_email(admin_client, settings):
    assert steps_of(admin_client) == {
        "invite": False,
        "policy": False,
        "email": False,
        "keys": False,
        "notifications": False,
    }
    html = parse(admin_client.get(reverse("home")).content)
    assert text_of(one(html, "#getting-started-count")).startswith("0 of 5 done")
    # Each step to do links to where it is done.
    links = {text_of(link): link["href"] for link in select(html, "#getting-started a")}
    assert links["Invite people"] == reverse("people:index") + "#invite-heading"
    assert links["Sign-in policy"] == reverse("sign_in_policy")

    admin_client.post(reverse("people:invite"), {"emails": "bo@example.com, cy@example.com", "role": Role.MEMBER})
    assert steps_of(admin_client)["invite"] is True

    admin_client.post(reverse("sign_in_policy"), {"roles": [Role.ADMINISTRATOR]})
    assert steps_of(admin_client)["policy"] is True

    settings.EMAIL_CONFIGURED = True  # the operator set EMAIL_URL
    steps = steps_of(admin_client)
    assert steps == {"invite": True, "policy": True, "email": True, "keys": False, "notifications": False}
    html = parse(admin_client.get(reverse("home")).content)
    assert text_of(one(html, "#getting-started-count")).startswith("3 of 5 done")
    assert text_of(one(html, "[data-step=keys]")).endswith(
        "0 of 1 person has stored an API key. "
        "Each person adds their own; until then they see no workspace. Add your API key"
    )


def test_hidden_it_is_one_button_that_shows_it_again(admin_client):
    hidden = admin_client.post(reverse("home_getting_started"), {"hide": "1"}, HTTP_HX_REQUEST="true")

    assert hidden.status_code == 200
    assert text_of(one(hidden.content, "form#getting-started button")) == "Show the getting-started checklist"
    page = parse(admin_client.get(reverse("home")).content)
    assert select(page, "#getting-started [data-step]") == []
    assert one(page, "form#getting-started")

    shown = admin_client.post(reverse("home_getting_started"), {"hide": "0"})
    assert shown.status_code == 302 and shown["Location"] == reverse("home")
    assert len(steps_of(admin_client)) == 5


def test_only_administrators_see_it_or_hide_it(client, django_user_model):
    user = django_user_model.objects.create_user(username="mo", password="x")
    Person.objects.create(user=user, role=Role.MEMBER)
    client.force_login(user)

    assert select(parse(client.get(reverse("home")).content), "#getting-started") == []
    assert client.post(reverse("home_getting_started"), {"hide": "1"}).status_code == 403
