"""Forms of notifications: one's own preferences, a chat webhook, a claim, a push subscription."""

from __future__ import annotations

from typing import Any
from zoneinfo import available_timezones

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext_lazy as _

from dashboard.reach.models import APPROVAL_RISKS, Cadence, ChatWebhook
from dashboard.reach.services import WebhookAddressError, push_endpoint_check, webhook_address_check


class PreferencesForm(forms.Form):
    approval_risks = forms.MultipleChoiceField(
        choices=APPROVAL_RISKS,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label=gettext_lazy("Approvals waiting, of these risks (Approvers and Administrators)"),
    )
    my_work_needs_me = forms.BooleanField(
        required=False, label=gettext_lazy("My runs and turns that failed or wait for me")
    )
    my_work_finished = forms.BooleanField(required=False, label=gettext_lazy("My runs and turns that finished"))
    cadence = forms.ChoiceField(choices=Cadence.choices, label=gettext_lazy("When"), widget=forms.RadioSelect)
    by_email = forms.BooleanField(required=False, label=gettext_lazy("By email (to the address of your account)"))
    slack_user_id = forms.RegexField(
        regex=r"^[UW][A-Z0-9]{2,30}$",
        strip=True,
        required=False,
        max_length=32,
        label=gettext_lazy("Your Slack member id"),
        help_text=(
            _(
                "In Slack: your profile, ⋮, Copy member ID (U…). With it, Approve and Reject in your Slack "
                "messages decide in Slack when you press them, and only when you do."
            )
        ),
        error_messages={"invalid": "A Slack member id looks like U024BE7LH: copy it from your Slack profile."},
    )
    time_zone = forms.CharField(
        max_length=64,
        label=gettext_lazy("Your time zone"),
        help_text=gettext_lazy("An IANA name such as Europe/Berlin: quiet hours and the daily digest follow it."),
    )
    quiet_from = forms.TimeField(
        required=False, label=gettext_lazy("Quiet from"), widget=forms.TimeInput(attrs={"type": "time"})
    )
    quiet_until = forms.TimeField(
        required=False, label=gettext_lazy("Quiet until"), widget=forms.TimeInput(attrs={"type": "time"})
    )
    away_until = forms.DateTimeField(
        required=False,
        label=gettext_lazy("Away until"),
        help_text=gettext_lazy("While you are away your notifications and assignments go to your delegate."),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    delegate = forms.ModelChoiceField(
        queryset=get_user_model().objects.none(), required=False, label=gettext_lazy("Delegate")
    )

    def __init__(self, *args: Any, user=None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        people = get_user_model().objects.filter(is_active=True).order_by("username")
        delegate = self.fields["delegate"]
        assert isinstance(delegate, forms.ModelChoiceField)
        delegate.queryset = people.exclude(pk=user.pk) if user is not None else people
        delegate.empty_label = _("Nobody")

    def clean_time_zone(self) -> str:
        zone = self.cleaned_data["time_zone"].strip()
        if zone not in available_timezones():
            raise forms.ValidationError(
                gettext_lazy("This is not a time zone name: try one like Europe/Berlin or America/New_York.")
            )
        return zone

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if bool(cleaned.get("quiet_from")) != bool(cleaned.get("quiet_until")):
            self.add_error("quiet_until", gettext("Give both ends of the quiet hours, or neither."))
        if cleaned.get("away_until") and not cleaned.get("delegate"):
            self.add_error("delegate", gettext("Choose who covers for you while you are away."))
        return cleaned


class WebhookForm(forms.Form):
    kind = forms.ChoiceField(choices=ChatWebhook.KINDS, label=gettext_lazy("Chat app"))
    label = forms.CharField(
        max_length=100, label=gettext_lazy("Name"), help_text=gettext_lazy("For you: which channel it posts to.")
    )
    url = forms.CharField(
        max_length=2000,
        label=gettext_lazy("Webhook address"),
        help_text=gettext_lazy("A secret: stored encrypted, never shown again in full."),
        widget=forms.PasswordInput(render_value=True, attrs={"autocomplete": "off"}),
    )

    def clean_url(self) -> str:
        try:
            return webhook_address_check(self.cleaned_data["url"])
        except WebhookAddressError as exc:
            raise forms.ValidationError(str(exc)) from exc


class ClaimForm(forms.Form):
    item_key = forms.CharField(max_length=250, widget=forms.HiddenInput)
    action = forms.ChoiceField(choices=[("claim", "claim"), ("release", "release"), ("assign", "assign")])
    assignee = forms.IntegerField(required=False)
    next = forms.CharField(required=False, widget=forms.HiddenInput)


class PushSubscribeForm(forms.Form):
    """A browser's PushSubscription, as the Notifications page's script fills it in."""

    endpoint = forms.URLField(max_length=1000, assume_scheme="https")
    p256dh = forms.CharField(max_length=200)
    auth = forms.CharField(max_length=100)

    def clean_endpoint(self) -> str:
        try:
            return push_endpoint_check(self.cleaned_data["endpoint"])
        except WebhookAddressError as exc:
            raise forms.ValidationError(str(exc)) from exc


class StepUpCodeForm(forms.Form):
    """The fresh second factor a message's confirmation page asks for beside its
    buttons (dashboard/accounts/step_up.py decides whether it is needed and checks it)."""

    step_up_code = forms.CharField(
        label=gettext_lazy("Code from your authenticator app (or a recovery code), to approve"),
        required=False,
        max_length=64,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "one-time-code", "spellcheck": "false"}),
    )

    def __init__(self, *args: Any, refused: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if refused:
            self.is_valid()
            self.add_error("step_up_code", refused)
