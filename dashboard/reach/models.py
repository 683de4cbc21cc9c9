from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from dashboard.keys.crypto import decrypt_secret


class Cadence(models.TextChoices):
    NOW = "now", _("At once")
    HOURLY = "hourly", _("An hourly digest")
    DAILY = "daily", _("A daily digest (at 08:00)")


APPROVAL_RISKS = (("write", _("Write")), ("send", _("Send")), ("spend", _("Spend")), ("destructive", _("Destructive")))


class NotificationPreference(models.Model):
    """What one person wants to hear about outside the console's tab, how,
    and when not (quiet hours in their own time zone); whether they are
    away and who covers for them meanwhile. A person without a row gets
    only escalations, by email, at once."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    approval_risks = models.JSONField(default=list, blank=True, help_text=_("Approvals of these risks."))
    my_work_needs_me = models.BooleanField(default=True, help_text=_("My runs and turns that failed or wait for me."))
    my_work_finished = models.BooleanField(default=False, help_text=_("My runs and turns that finished."))
    cadence = models.CharField(max_length=8, choices=Cadence.choices, default=Cadence.NOW)
    by_email = models.BooleanField(default=True)
    time_zone = models.CharField(max_length=64, default="UTC")
    quiet_from = models.TimeField(null=True, blank=True)
    quiet_until = models.TimeField(null=True, blank=True)
    away_until = models.DateTimeField(null=True, blank=True)
    delegate = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The person's Slack member id (U…): only a click by this Slack user decides from a Slack button
    # bound to this person (dashboard/reach/slack.py); without it the buttons open the confirmation page.
    slack_user_id = models.CharField(max_length=32, blank=True, help_text=_("Your Slack member id (U…)."))
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"notification preferences of {self.user_id}"


class ChatWebhook(models.Model):
    """A chat webhook (Slack, Microsoft Teams, or generic JSON) that receives
    notifications: a person's own (their notifications), or a workspace's
    (its escalations and approvals; set by Administrators). The address is a
    secret (whoever holds it posts into the channel): stored encrypted like
    API keys, never shown again in full."""

    KIND_SLACK = "slack"
    KIND_TEAMS = "teams"
    KIND_JSON = "json"
    KINDS = [(KIND_SLACK, _("Slack")), (KIND_TEAMS, _("Microsoft Teams")), (KIND_JSON, _("Generic JSON"))]

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.CASCADE, related_name="+")
    workspace_id = models.CharField(max_length=64, blank=True, help_text=_("Set for a workspace's webhook."))
    kind = models.CharField(max_length=8, choices=KINDS)
    label = models.CharField(max_length=100)
    url_encrypted = models.TextField()
    url_hint = models.CharField(max_length=120, help_text=_("The host and the end of the address, for people."))
    created_at = models.DateTimeField(auto_now_add=True)
    # Generic JSON webhooks sign each body (Standard Webhooks): the secret,
    # shown once at creation, stored encrypted like the address.
    secret_encrypted = models.TextField(blank=True)
    # "<workspace id>|<item key>" of what was open when it was added: old
    # news, never sent to it (adding a webhook does not replay the past).
    known_items = models.JSONField(default=list, blank=True)
    # Consecutive failures: since when, and the last reason; past
    # REACH_WEBHOOK_PAUSE_AFTER_SECONDS it is paused (not called) until resumed.
    failing_since = models.DateTimeField(null=True, blank=True)
    last_failure = models.CharField(max_length=300, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["label", "id"]

    def __str__(self) -> str:
        return self.label

    @property
    def url(self) -> str:
        return decrypt_secret(self.url_encrypted)

    @property
    def channel(self) -> str:
        return f"webhook:{self.pk}"

    @property
    def secret(self) -> str:
        return decrypt_secret(self.secret_encrypted) if self.secret_encrypted else ""


class Delivery(models.Model):
    """One notification of one item to one recipient on one channel: the row
    is the schedule (`due_at`), stepped by the task `reach.deliver` (a lease
    makes one worker send it), retried with backoff. The unique constraint
    makes it one per item, person and channel, whatever the number of workers
    producing it."""

    STATUS_PENDING = "pending"
    STATUS_SENT = "sent"
    STATUS_FAILED = "failed"
    # Re-checked before sending and no longer news (decided or withdrawn): the reason is `last_error`.
    STATUS_SKIPPED = "skipped"
    STATUSES = [
        (STATUS_PENDING, _("Waiting to be sent")),
        (STATUS_SENT, _("Sent")),
        (STATUS_FAILED, _("Gave up")),
        (STATUS_SKIPPED, _("Not sent")),
    ]

    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.CASCADE, related_name="+")
    # "user:<id>" or "workspace:<id>": part of the unique key (never null).
    recipient = models.CharField(max_length=100)
    workspace_id = models.CharField(max_length=64)
    item_key = models.CharField(max_length=250)
    channel = models.CharField(max_length=32, help_text='"email", "webhook:<id>" or "push:<id>".')
    kind = models.CharField(max_length=32)
    title = models.CharField(max_length=300)
    path = models.CharField(max_length=500, help_text=_("Where the item opens in the console (a signed-in page)."))
    detail = models.CharField(max_length=500, blank=True, help_text=_("What an approval will do: its input, in short."))
    on_behalf_of = models.CharField(max_length=150, blank=True, help_text=_("The away person a delegate covers."))
    digest = models.BooleanField(default=False)
    due_at = models.DateTimeField()
    deferred_by = models.CharField(max_length=16, blank=True, help_text='"quiet hours" or "digest".')
    status = models.CharField(max_length=8, choices=STATUSES, default=STATUS_PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    lease_token = models.CharField(max_length=32, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["recipient", "workspace_id", "item_key", "channel"], name="reach_one_delivery_per_item"
            )
        ]
        indexes = [models.Index(fields=["status", "due_at"], name="reach_delivery_due")]

    def __str__(self) -> str:
        return f"{self.kind} {self.item_key} to {self.recipient} by {self.channel}"


class Escalation(models.Model):
    """An overdue item escalated once: the unique row, made in a transaction
    by whichever worker gets there first, is the "once"."""

    workspace_id = models.CharField(max_length=64)
    item_key = models.CharField(max_length=250)
    title = models.CharField(max_length=300)
    due_at = models.DateTimeField()
    escalated_at = models.DateTimeField(auto_now_add=True)
    notified = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "item_key"], name="reach_one_escalation_per_item")
        ]

    def __str__(self) -> str:
        return f"escalation of {self.item_key}"


class Claim(models.Model):
    """ "I'm on it", or an assignment: who handles an item, seen by every
    approver. One per item (a second claim replaces the first, said on the
    page). Gone with the item."""

    workspace_id = models.CharField(max_length=64)
    item_key = models.CharField(max_length=250)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace_id", "item_key"], name="reach_one_claim_per_item")]

    def __str__(self) -> str:
        return f"{self.item_key} claimed by {self.user_id}"


class PushSubscription(models.Model):
    """One person's browser on one device, subscribed to Web Push from the
    Notifications page: where the push service takes messages for it
    (`endpoint`) and the keys that encrypt them for that browser only. A
    browser subscribing again replaces its row (one per endpoint, whoever
    signed in last there). The push service saying the subscription is gone
    (404/410) drops it: kept with `dropped_at` so the page can say so."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    device = models.CharField(max_length=120, help_text=_("The browser and system it was made on, for people."))
    created_at = models.DateTimeField(auto_now_add=True)
    dropped_at = models.DateTimeField(null=True, blank=True)
    dropped_because = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"push subscription {self.pk} of {self.user_id} ({self.device})"

    @property
    def channel(self) -> str:
        return f"push:{self.pk}"

    def as_info(self) -> dict:
        """What pywebpush takes (the browser's PushSubscription.toJSON())."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


class DecisionToken(models.Model):
    """One person's Approve / Reject from one message about one approval:
    made when the message to that person is built, single use, short lived
    (REACH_DECISION_TOKEN_SECONDS), stored only as the sha256 of its secret
    (dashboard/reach/decision_tokens.py). The decision it makes carries
    `idempotency_key`, the same on every retry of it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    workspace_id = models.CharField(max_length=64)
    approval_id = models.CharField(max_length=64)
    agent_id = models.CharField(max_length=64, blank=True)
    channel = models.CharField(max_length=32, help_text='Where it was sent: "email" or "webhook:<id>".')
    via = models.CharField(max_length=16, help_text='"email", "slack" or "teams": the audit line names it.')
    token_hash = models.CharField(max_length=64, unique=True)
    idempotency_key = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    # Set by the one request that decides with it (a conditional UPDATE), cleared again when the
    # service could not be reached (the retry sends the same Idempotency-Key).
    used_at = models.DateTimeField(null=True, blank=True)
    decision = models.CharField(max_length=8, blank=True)
    outcome = models.CharField(max_length=300, blank=True, help_text=_("What came of it, in words."))

    class Meta:
        indexes = [models.Index(fields=["workspace_id", "approval_id"], name="reach_token_approval")]

    def __str__(self) -> str:
        return f"decision token for {self.approval_id} to {self.user_id}"
