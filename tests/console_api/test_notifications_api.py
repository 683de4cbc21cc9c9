"""One's own notification preferences through the console's API (scope
`notifications`): read as the preferences page shows them, replaced through
its form (a bad value refused in the form's words, nothing saved), for every
role, with no remote call."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.api.testing import RemoteCallCounter
from dashboard.keys.testing import stored_api_key
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from dashboard.reach.models import NotificationPreference
from dashboard.tokens.scopes import NOTIFICATIONS, READ
from tests.console_api.support import error_of, send, token_for
from tests.html import one, select

pytestmark = pytest.mark.django_db

PREFERENCES = "/api/v1/notifications/preferences"


@pytest.fixture
def token(settings, user):
    settings.SERVICE_BASE_URL = "http://service.invalid"
    key = stored_api_key(user=user, secret="svc_sk_notify_0000000000000000")
    made = token_for(user, key.workspace_id, (NOTIFICATIONS,), name="Phone app")
    person_role_set(user=user, role=Role.VIEWER)  # personal: the role that only reads keeps its own
    return made


def test_preferences_are_read_and_replaced_as_the_page_keeps_them(token, user, other_user, client, logged_in_client):
    with RemoteCallCounter() as calls:
        defaults = send(client, "GET", PREFERENCES, token)
        saved = send(
            client,
            "PUT",
            PREFERENCES,
            token,
            {
                "approval_risks": ["destructive", "spend"],
                "my_work_needs_me": True,
                "cadence": "daily",
                "by_email": True,
                "time_zone": "Europe/Berlin",
                "quiet_from": "22:00",
                "quiet_until": "07:00",
                "away_until": "2026-12-24T09:00:00+01:00",
                "delegate": other_user.get_username(),
            },
        )

    assert calls.count == 0
    assert defaults.status_code == 200 and defaults.json()["my_work_needs_me"] is False
    assert saved.status_code == 200, saved.content
    body = saved.json()
    assert body | {"away_until": None} == {
        "approval_risks": ["destructive", "spend"],
        "my_work_needs_me": True,
        "my_work_finished": False,
        "cadence": "daily",
        "by_email": True,
        "slack_user_id": "",
        "time_zone": "Europe/Berlin",
        "quiet_from": "22:00",
        "quiet_until": "07:00",
        "away_until": None,
        "delegate": other_user.get_username(),
    }
    row = NotificationPreference.objects.get(user=user)
    assert row.delegate == other_user and row.away_until.isoformat() == "2026-12-24T08:00:00+00:00"
    assert send(client, "GET", PREFERENCES, token).json() == body
    # The page shows what the API saved.
    page = logged_in_client.get(reverse("reach:preferences"))
    assert one(page.content, "input[name=time_zone]")["value"] == "Europe/Berlin"


def test_a_bad_value_is_refused_in_the_forms_words_and_nothing_is_saved(token, client):
    answer = send(
        client, "PUT", PREFERENCES, token, {"cadence": "now", "time_zone": "Mars/Olympus", "quiet_from": "22:00"}
    )

    assert answer.status_code == 422
    message = error_of(answer)["message"]
    assert "This is not a time zone name: try one like Europe/Berlin or America/New_York." in message
    assert "Give both ends of the quiet hours, or neither." in message
    assert not NotificationPreference.objects.exists()
    nobody = send(client, "PUT", PREFERENCES, token, {"delegate": "nobody-here"})
    assert nobody.status_code == 422 and "nobody is called “nobody-here”" in error_of(nobody)["message"]


def test_a_token_without_the_scope_is_refused_and_the_form_offers_it_to_every_role(
    settings, user, client, logged_in_client
):
    settings.SERVICE_BASE_URL = "http://service.invalid"
    key = stored_api_key(user=user, secret="svc_sk_notify_0000000000000001")
    reader = token_for(user, key.workspace_id, (READ,), name="Reader")
    person_role_set(user=user, role=Role.VIEWER)
    refused = send(client, "GET", PREFERENCES, reader)
    assert refused.status_code == 403
    assert error_of(refused)["message"] == (
        "This token was not given the scope “notifications” (Read and change your own notification preferences)."
    )
    page = logged_in_client.get(reverse("tokens:list"))
    offered = [box["value"] for box in select(page.content, "input[name=scopes]")]
    assert offered == ["read", "notifications"]
