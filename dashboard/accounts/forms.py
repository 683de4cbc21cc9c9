from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib.auth.forms import PasswordChangeForm, PasswordResetForm
from django.contrib.auth.password_validation import password_validators_help_texts
from django.utils.translation import gettext_lazy
from django.utils.translation import gettext_lazy as _

from dashboard.people.language import language_choices
from dashboard.people.roles import ROLE_DESCRIPTIONS, Role

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a text or a lazy translation


class SignInCodeForm(forms.Form):
    """The second sign-in step: a code from the app, or a recovery code."""

    code = forms.CharField(
        label=gettext_lazy("Code"),
        max_length=32,
        help_text=gettext_lazy("The 6-digit code your authenticator app shows now, or one of your recovery codes."),
        widget=forms.TextInput(
            # Letters too (recovery codes), so no numeric keypad; browsers offer a code received by SMS or an app.
            attrs={"autocomplete": "one-time-code", "autocapitalize": "none", "spellcheck": "false", "autofocus": True}
        ),
    )


class AppCodeForm(forms.Form):
    """A code from the authenticator app only (confirming the app being set up)."""

    code = forms.CharField(
        label=gettext_lazy("Code from the app"),
        max_length=16,
        help_text=gettext_lazy("The 6 digits the app shows for this console, spaces allowed."),
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )


class FactorCodeForm(forms.Form):
    """A code asked before a change to one's second factor, so a session left
    open cannot make it alone: a code from the app, or a recovery code (the
    phone may be what was lost). Two on one page: each has its own prefix."""

    code = forms.CharField(
        label=gettext_lazy("Code from the app, or a recovery code"),
        max_length=32,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "autocapitalize": "none"}),
    )

    def __init__(self, data: Any = None, *, prefix: str, help_text: StrOrPromise) -> None:
        super().__init__(data, prefix=prefix)
        self.fields["code"].help_text = help_text


def turn_off_form(data: Any = None) -> FactorCodeForm:
    return FactorCodeForm(data, prefix="off", help_text=gettext_lazy("Turning two-factor sign-in off asks for a code."))


def new_codes_form(data: Any = None) -> FactorCodeForm:
    return FactorCodeForm(
        data, prefix="new", help_text=gettext_lazy("The old recovery codes stop working; the new ones are shown once.")
    )


def _roles_field(label: str, help_text: str, *, described: bool = False) -> forms.MultipleChoiceField:
    """A box per console role (with what the role does, for the first of the policy's lists)."""
    return forms.MultipleChoiceField(
        label=label,
        choices=[
            (role.value, f"{role.label}: {ROLE_DESCRIPTIONS[role]}" if described else role.label) for role in Role
        ],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=help_text,
    )


class SignInPolicyForm(forms.Form):
    roles = _roles_field(
        "Roles that must use two-factor sign-in",
        "People of these roles without a second factor are asked to set one up right after their "
        "password, at their next sign-in, before they can use the console.",
        described=True,
    )
    passkey_roles = _roles_field(
        "Roles that must sign in with a passkey",
        "People of these roles without a passkey register one right after signing in, at their next "
        "sign-in (after their code, if they have an app). Recovery codes still sign them in.",
    )
    passwordless_roles = _roles_field(
        "Roles that may sign in with a passkey instead of a password",
        "The login page then offers “Sign in with a passkey”: the device's screen lock, fingerprint "
        "or PIN stands for both the password and the second factor.",
    )


class ConsolePasswordResetForm(PasswordResetForm):
    """Django's form, with its email field labelled in the console's words.
    The view never calls `save()` in the request (see views.password_reset):
    the task `accounts.send_password_reset` does, off the request's path."""

    email = forms.EmailField(
        label=gettext_lazy("Email"),
        max_length=254,
        help_text=gettext_lazy(
            "The address of your console account. If it has one, a link to choose a new password is sent there."
        ),
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )


class DisplayNameForm(forms.Form):
    """One's own display name (kept as the account's first name, as an accepted invitation keeps it)."""

    name = forms.CharField(
        label=gettext_lazy("Display name"),
        max_length=150,
        required=False,
        help_text=gettext_lazy(
            "How others see you in the console: People, the audit trail, assignments. Left empty, your username."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )


class LanguageForm(forms.Form):
    """One's own language: the console's pages, emails and notifications in it; blank follows the browser."""

    language = forms.ChoiceField(
        label=_("Language"),
        required=False,
        help_text=_("The console's pages, emails and notifications in this language."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["language"].choices = [("", _("The browser's language")), *language_choices()]  # type: ignore[attr-defined]  # a ChoiceField


class OwnPasswordForm(PasswordChangeForm):
    """One's own new password: the current one first (an open tab is not enough
    to take an account over), the new one twice, checked by the password validators."""

    required_css_class = "required"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["old_password"].label = _("Current password")
        self.fields["new_password2"].label = _("New password again")
        # Django's help is a list in HTML; the console's field template shows it as text.
        self.fields["new_password1"].help_text = " ".join(password_validators_help_texts())


class PasskeyAddForm(forms.Form):
    """Registering a passkey on one's own page: a name to tell it apart, and
    the browser's answer (filled in by static/js/passkeys.js)."""

    name = forms.CharField(
        label=gettext_lazy("Name of the passkey"),
        max_length=64,
        required=False,
        help_text=gettext_lazy("Where it lives, to tell it apart later: “Work laptop”, “Phone”, “YubiKey”."),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    credential = forms.CharField(required=False, max_length=64_000, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Its own ids: the account page also has the display name's `id_name`.
        kwargs.setdefault("auto_id", "id_passkey_%s")
        super().__init__(*args, **kwargs)


class PasskeyAnswerForm(forms.Form):
    """A passkey's answer to the console's challenge (static/js/passkeys.js fills it in)."""

    credential = forms.CharField(required=False, max_length=64_000, widget=forms.HiddenInput)


def passkey_remove_form(data: Any = None) -> FactorCodeForm:
    return FactorCodeForm(
        data,
        prefix="remove",
        help_text=gettext_lazy("Removing a passkey asks for a code (or confirm with another passkey)."),
    )
