"""The form that makes a personal access token: what the person's role and
keys allow now, nothing more."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext, gettext_lazy, ngettext

from dashboard.keys.models import ApiKey
from dashboard.tokens.policy import token_days_ceiling, token_days_most
from dashboard.tokens.scopes import SCOPES, scopes_allowed
from dashboard.tokens.services import networks_read

LIFETIMES = (7, 30, 90, 180, 365)


class TokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=100,
        help_text=gettext_lazy("What uses it: “Release script”, “My IDE assistant”. Shown in the audit trail."),
    )
    workspace_id = forms.ChoiceField(
        label=gettext_lazy("Workspace"),
        help_text=gettext_lazy("A token acts in one workspace, through your key of it."),
    )
    scopes = forms.MultipleChoiceField(
        label=gettext_lazy("Scopes"),
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("Never more than your role allows when it is used."),
        error_messages={
            "required": gettext_lazy("Choose at least one scope."),
            "invalid_choice": gettext_lazy("Your role does not allow the scope “%(value)s”."),
        },
    )
    days = forms.TypedChoiceField(label=gettext_lazy("Expires after"), coerce=int)
    ask_first = forms.BooleanField(
        label=gettext_lazy("Ask first"),
        required=False,
        help_text=gettext_lazy(
            "Every write made with this token waits for an Approver's decision (an assistant you let act, "
            "but not alone)."
        ),
    )
    allowed_from = forms.CharField(
        label=gettext_lazy("Allowed addresses (optional)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "spellcheck": "false"}),
        help_text=gettext_lazy("Addresses or networks, one per line (203.0.113.7, 10.0.0.0/8). Empty: from anywhere."),
    )

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        keys = [key for key in ApiKey.objects.filter(user=user).order_by("-is_active", "label") if key.is_working]
        workspaces = {key.workspace_id: key for key in keys}.values()
        workspace_field: Any = self.fields["workspace_id"]
        workspace_field.choices = [(key.workspace_id, key.workspace_name or key.workspace_id) for key in workspaces]
        scope_field: Any = self.fields["scopes"]
        scope_field.choices = [(scope, f"{scope}: {SCOPES[scope]}") for scope in scopes_allowed(user)]
        longest = token_days_most()
        # The usual lifetimes below the maximum, and the maximum itself (14 days is offered when it is the most).
        days = [d for d in LIFETIMES if d < longest] + [longest]
        days_field: Any = self.fields["days"]
        days_field.choices = [(d, ngettext("%(days)d day", "%(days)d days", d) % {"days": d}) for d in days]
        self.fields["days"].help_text = ngettext(
            "At most %(days)d day (set by your administrators).",
            "At most %(days)d days (set by your administrators).",
            longest,
        ) % {"days": longest}
        self.fields["days"].initial = 30 if 30 in days else days[-1]

    def clean_allowed_from(self) -> list[str]:
        try:
            return networks_read(self.cleaned_data.get("allowed_from") or "")
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc


class TokenPolicyForm(forms.Form):
    """The Administrators' longest token life, within the operator's ceiling."""

    max_days = forms.IntegerField(
        label=gettext_lazy("Longest life of a token (days)"),
        min_value=1,
        required=False,
        help_text=gettext_lazy("Empty: the operator's ceiling. Lowering it shortens the tokens that would outlive it."),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        ceiling = token_days_ceiling()
        field: Any = self.fields["max_days"]
        field.widget.attrs.update({"min": 1, "max": ceiling, "inputmode": "numeric"})
        field.help_text = gettext(
            "At most %(days)d days (TOKEN_MAX_DAYS, set by whoever runs the console). "
            "Empty: that. Lowering it shortens the tokens in force that would outlive it."
        ) % {"days": ceiling}
        self.initial.setdefault("max_days", token_days_most())

    def clean_max_days(self) -> int | None:
        days = self.cleaned_data.get("max_days")
        ceiling = token_days_ceiling()
        if days is not None and days > ceiling:
            raise forms.ValidationError(
                gettext("At most %(ceiling)s days: the operator's ceiling (TOKEN_MAX_DAYS).") % {"ceiling": ceiling}
            )
        return days
