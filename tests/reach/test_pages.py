"""The pages of notifications, deadlines and claims: preferences saved (bad
input said in place, nothing typed lost), a webhook address refused in
words and never shown again, the delivery log with "Try again", an
approval's time left and overdue mark, and a claim every approver sees."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.reach.models import ChatWebhook, Claim, Delivery, NotificationPreference
from tests.html import one, select, text_of, texts
from tests.reach.conftest import APPROVAL_ID, WORKSPACE, member, pending_approval

pytestmark = pytest.mark.django_db

PREFERENCES = {
    "approval_risks": ["send", "destructive"],
    "my_work_needs_me": "on",
    "cadence": "daily",
    "by_email": "on",
    "time_zone": "Europe/Berlin",
    "quiet_from": "22:00",
    "quiet_until": "07:00",
}


def test_preferences_are_saved_and_bad_input_is_said_in_place_keeping_what_was_typed(client, dana):
    client.force_login(dana)
    refused = client.post(reverse("reach:preferences"), {**PREFERENCES, "time_zone": "Mars/Olympus", "quiet_until": ""})

    assert refused.status_code == 400
    form = one(refused.content, "form.reach-preferences")
    assert texts(form, ".field-error") == [
        "This is not a time zone name: try one like Europe/Berlin or America/New_York.",
        "Give both ends of the quiet hours, or neither.",
    ]
    assert one(form, "input[name=time_zone]")["value"] == "Mars/Olympus"
    assert one(form, "input[name=quiet_from]")["value"] == "22:00"
    assert [box["value"] for box in select(form, "input[name=approval_risks][checked]")] == ["send", "destructive"]
    assert not NotificationPreference.objects.exists()

    assert client.post(reverse("reach:preferences"), PREFERENCES).status_code == 302
    saved = NotificationPreference.objects.get(user=dana)
    assert (saved.approval_risks, saved.cadence, saved.time_zone) == (["send", "destructive"], "daily", "Europe/Berlin")


def test_a_slack_member_id_is_checked_and_kept_for_slacks_buttons(client, dana):
    client.force_login(dana)
    refused = client.post(reverse("reach:preferences"), {**PREFERENCES, "slack_user_id": "@dana"})

    assert refused.status_code == 400
    form = one(refused.content, "form.reach-preferences")
    assert texts(form, ".field-error") == ["A Slack member id looks like U024BE7LH: copy it from your Slack profile."]
    assert one(form, "input[name=slack_user_id]")["value"] == "@dana"
    assert client.post(reverse("reach:preferences"), {**PREFERENCES, "slack_user_id": " U024BE7LH "}).status_code == 302
    assert NotificationPreference.objects.get(user=dana).slack_user_id == "U024BE7LH"
    shown = client.get(reverse("reach:preferences"))
    assert one(shown.content, "input[name=slack_user_id]")["value"] == "U024BE7LH"


def test_a_webhook_address_is_checked_stored_encrypted_and_never_shown_again(client, dana, settings):
    settings.REACH_WEBHOOK_ALLOW_HTTP = False
    client.force_login(dana)
    secret = "https://hooks.slack.com/services/T000/B000/XXXXsecretXXXX"

    refused = client.post(reverse("reach:webhook_add"), {"kind": "slack", "label": "Alerts", "url": "ftp://x"})
    assert refused.status_code == 400
    assert texts(refused.content, "form.reach-webhook .field-error") == [
        "Give the webhook's full https:// address, as the chat app shows it."
    ]
    client.post(reverse("reach:webhook_add"), {"kind": "slack", "label": "Alerts", "url": secret})

    page = client.get(reverse("reach:preferences"))
    assert secret not in page.content.decode()
    assert texts(page.content, ".reach-hooks li") == ["Alerts (Slack, yours, hooks.slack.com/…XXXX) Remove"]
    assert ChatWebhook.objects.get().url == secret


def test_only_administrators_add_a_workspace_webhook(client, dana):
    client.force_login(dana)
    response = client.post(
        reverse("reach:workspace_webhook_add"), {"kind": "json", "label": "Ops", "url": "https://ops.example/hook"}
    )
    assert response.status_code == 403 and not ChatWebhook.objects.exists()


def test_the_delivery_log_shows_tries_and_a_given_up_one_is_tried_again(client, dana):
    client.force_login(dana)
    failed = Delivery.objects.create(
        user=dana,
        recipient=f"user:{dana.pk}",
        workspace_id=WORKSPACE,
        item_key="approval:x",
        channel="email",
        kind="approval",
        title="Approval waiting (send): Send it",
        path="/approvals/",
        due_at=timezone.now(),
        status=Delivery.STATUS_FAILED,
        attempts=5,
        last_error="The webhook answered 500.",
    )
    Delivery.objects.create(
        user=dana,
        recipient=f"user:{dana.pk}",
        workspace_id="another-workspace",
        item_key="approval:y",
        channel="email",
        kind="approval",
        title="Not of this workspace",
        path="/approvals/",
        due_at=timezone.now(),
    )
    page = client.get(reverse("reach:log"))
    (row,) = select(page.content, "tbody tr")
    assert text_of(one(row, "td:nth-of-type(3)")).startswith("Gave up after 5 failed tries The webhook answered 500.")

    client.post(reverse("reach:retry", args=[failed.pk]))
    failed.refresh_from_db()
    assert (failed.status, failed.attempts) == ("pending", 0)


def test_an_approval_shows_its_time_left_then_overdue_and_who_is_on_it(client, dana, django_user_model, settings):
    settings.APPROVAL_DEADLINE_MINUTES = {"send": 60}
    ben = member(django_user_model, "ben")
    pending_approval(minutes_ago=20)
    client.force_login(dana)

    page = client.get(reverse("inbox:index"))
    assert text_of(one(page.content, f"#inbox-approval{APPROVAL_ID} .deadline")) == "39 min left"

    client.post(reverse("reach:claim"), {"item_key": f"approval:{APPROVAL_ID}", "action": "claim", "next": "/inbox/"})
    client.force_login(ben)
    seen = client.get(reverse("inbox:index"))
    assert text_of(one(seen.content, f"#inbox-approval{APPROVAL_ID} .inbox-claim")) == "dana is on it"

    client.post(
        reverse("reach:claim"),
        {"item_key": f"approval:{APPROVAL_ID}", "action": "assign", "assignee": str(dana.pk), "next": "/inbox/"},
    )
    claim = Claim.objects.get()
    assert (claim.user, claim.assigned_by) == (dana, ben)

    Delivery.objects.all().delete()
    pending_approval(minutes_ago=90, approval_id="aaaaaaaa-0000-4000-8000-00000000000c")
    late = client.get(reverse("inbox:index"))
    badge = one(late.content, "#inbox-approvalaaaaaaaa-0000-4000-8000-00000000000c .deadline")
    assert "deadline--overdue" in badge["class"] and text_of(badge) == "Overdue by 30 min"


def test_an_administrator_sets_an_agents_own_deadline(client, admin_ada, settings):
    from agents.models import ApprovalDeadline
    from tests.reach.conftest import AGENT_ID

    settings.APPROVAL_DEADLINE_MINUTES = {"send": 240}
    pending_approval(minutes_ago=20)  # the refresh's rows name the agent too
    from dashboard.inbox.models import WaitingItem

    WaitingItem.objects.create(
        workspace_id=WORKSPACE,
        source="agents",
        remote_id="agent-names",
        kind="agent-names",
        data={"names": {AGENT_ID: "Lead qualifier"}},
        refreshed_at=timezone.now(),
    )
    client.force_login(admin_ada)
    page = client.get(reverse("agents:deadlines"))
    assert [option.get("value") for option in select(page.content, "select[name=agent_id] option")] == [AGENT_ID]

    response = client.post(reverse("agents:deadlines"), {"agent_id": AGENT_ID, "risk": "send", "minutes": "10"})
    assert response.status_code == 302
    assert ApprovalDeadline.objects.get().minutes == 10
    inbox = client.get(reverse("inbox:index"))
    assert text_of(one(inbox.content, f"#inbox-approval{APPROVAL_ID} .deadline")) == "Overdue by 10 min"
