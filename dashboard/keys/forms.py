from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.forms.boundfield import BoundField
from django.utils.html import format_html
from django.utils.translation import gettext_lazy

KEY_PREFIX = "svc_sk_"


class SecretBoundField(BoundField):
    """The API key's field: its input carries `hx-preserve` unless the key
    itself was at fault. htmx then keeps the element the person pasted into
    across the form's swap, so a label error or a service outage never
    empties the box, while the secret is never rendered back into a page
    (PasswordInput(render_value=False)): nothing to leak into HTML, caches
    or logs. A refused or malformed key comes back empty for a fresh paste."""

    def build_widget_attrs(self, attrs: dict[str, Any], widget: forms.Widget | None = None) -> dict[str, Any]:
        attrs = super().build_widget_attrs(attrs, widget)
        return attrs if self.errors else {**attrs, "hx-preserve": "true"}


class SecretField(forms.CharField):
    bound_field_class = SecretBoundField


class AddApiKeyForm(forms.Form):
    # Marks the required fields with * (templates/forms/field.html); the optional one says so.
    required_css_class = "required"
    marks_optional = True

    label = forms.CharField(
        max_length=100,
        required=False,
        help_text=gettext_lazy(
            "Your own name for this key, e.g. “Marketing workspace”. Left empty, it is the workspace's name."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    # render_value=False: the typed secret is never echoed back into a page,
    # not even when the form comes back with an error (SecretBoundField keeps it in the browser).
    secret = SecretField(
        label=gettext_lazy("API key"),
        max_length=400,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off", "spellcheck": "false"}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Read per form, so a changed SERVICE_KEYS_URL (or a test's) shows at once.
        self.fields["secret"].help_text = format_html(
            'Starts with svc_sk_. <a href="{}" target="_blank" rel="noopener noreferrer">Create one in the '
            "workspace's API key settings</a> (opens the service in a new tab). "
            "It is checked with the service, then stored encrypted.",
            settings.SERVICE_KEYS_URL,
        )

    def clean_secret(self) -> str:
        secret = self.cleaned_data["secret"]
        if (
            not secret.startswith(KEY_PREFIX)
            or len(secret) <= len(KEY_PREFIX) + 4
            or any(ch.isspace() for ch in secret)
        ):
            raise forms.ValidationError(
                gettext_lazy(
                    "This doesn't look like an API key: it should start with svc_sk_ followed by more characters."
                )
            )
        return secret
