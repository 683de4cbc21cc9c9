from __future__ import annotations

from django import forms

KEY_PREFIX = "svc_sk_"


class AddApiKeyForm(forms.Form):
    label = forms.CharField(
        max_length=100,
        help_text="Your own name for this key, e.g. “Marketing workspace”.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    # render_value=False: the typed secret is never echoed back into a page,
    # not even when the form comes back with an error.
    secret = forms.CharField(
        label="API key",
        max_length=400,
        strip=True,
        help_text="Starts with svc_sk_. Create one in the workspace's API settings. It is checked with the service, then stored encrypted.",
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off", "spellcheck": "false"}),
    )

    def clean_secret(self) -> str:
        secret = self.cleaned_data["secret"]
        if (
            not secret.startswith(KEY_PREFIX)
            or len(secret) <= len(KEY_PREFIX) + 4
            or any(ch.isspace() for ch in secret)
        ):
            raise forms.ValidationError(
                "This doesn't look like an API key: it should start with svc_sk_ followed by more characters."
            )
        return secret
