from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError

from dashboard.people.roles import DEFAULT_ROLE, ROLE_DESCRIPTIONS, Role


def _role_choices() -> list[tuple[str, str]]:
    return [(role.value, f"{role.label}: {ROLE_DESCRIPTIONS[role.value]}") for role in Role]


class PeopleSearchForm(forms.Form):
    """The People page's search (a GET form: the URL holds it)."""

    q = forms.CharField(
        required=False,
        max_length=100,
        label="Search people",
        help_text="Name, email or username.",
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
    )

    def query(self) -> str:
        return (self.cleaned_data.get("q") or "").strip() if self.is_valid() else ""


class InviteForm(forms.Form):
    email = forms.EmailField(
        label="Email address",
        # The address becomes the new account's username, and usernames hold 150 characters.
        max_length=150,
        widget=forms.EmailInput(attrs={"autocomplete": "off"}),
    )
    role = forms.ChoiceField(label="Role", choices=_role_choices, initial=DEFAULT_ROLE)

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip()
        try:
            UnicodeUsernameValidator()(email)
        except ValidationError:
            raise ValidationError(
                "This address can't be a console username (letters, digits and @ . + - _ only). "
                "Ask the person for another address."
            ) from None
        return email


class RoleForm(forms.Form):
    role = forms.ChoiceField(label="Role", choices=_role_choices)
    # The role change asks once more ("confirm") before it is made: a role
    # decides what someone may do in every area.
    confirm = forms.BooleanField(
        required=False, label="Yes, change the role", help_text="A role change applies from their next request."
    )


class AcceptForm(forms.Form):
    """The invitee's account: their name, and a password checked by Django's
    validators (the username is the invited address: the same rule as single
    sign-on, and nothing to clash with)."""

    name = forms.CharField(
        label="Your name",
        required=False,
        max_length=150,
        help_text="How teammates see you in the console.",
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    password1 = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label="Password again",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def __init__(self, *args: Any, email: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.email = email

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        first, second = cleaned.get("password1"), cleaned.get("password2")
        if first and second and first != second:
            self.add_error("password2", "The two passwords differ. Type the same password twice.")
        elif first:
            # The validators compare the password with the account it is for.
            would_be = User(username=self.email, email=self.email, first_name=cleaned.get("name") or "")
            try:
                password_validation.validate_password(first, would_be)
            except ValidationError as error:
                self.add_error("password1", error)
        return cleaned
