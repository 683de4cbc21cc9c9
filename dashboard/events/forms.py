"""The endpoint form of outbound events (Administrators)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from dashboard.events.models import EventType
from dashboard.events.services import endpoint_address_check
from dashboard.signed_calls import AddressRefused


class EndpointForm(forms.Form):
    label = forms.CharField(
        max_length=100, label=gettext_lazy("Name"), help_text=gettext_lazy("For people: which tool receives them.")
    )
    url = forms.CharField(
        max_length=2000,
        label=gettext_lazy("Address"),
        help_text=gettext_lazy(
            "Where each event is POSTed (https). Stored encrypted, shown again only as its host and end."
        ),
        # An address may hold a token of the receiving tool: typed like a password, never shown again.
        widget=forms.PasswordInput(render_value=True, attrs={"autocomplete": "off"}),
    )
    event_types = forms.MultipleChoiceField(
        choices=EventType.choices, widget=forms.CheckboxSelectMultiple, label=gettext_lazy("Events it receives")
    )
    enabled = forms.BooleanField(
        required=False, initial=True, label=gettext_lazy("Enabled (called with every event it receives)")
    )

    def __init__(self, *args: Any, editing: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if editing:
            self.fields["url"].required = False
            self.fields["url"].help_text = "Leave empty to keep the stored address."

    def clean_url(self) -> str:
        url = self.cleaned_data["url"].strip()
        if not url:
            return ""
        try:
            return endpoint_address_check(url)
        except AddressRefused as exc:
            raise forms.ValidationError(str(exc)) from exc
