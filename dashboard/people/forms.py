from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_lazy

from dashboard.people.roles import DEFAULT_ROLE, MANAGE_PEOPLE, ROLE_DESCRIPTIONS, Role

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a text or a lazy translation


def _role_choices() -> list[tuple[str, str]]:
    return [(role.value, f"{role.label}: {ROLE_DESCRIPTIONS[role.value]}") for role in Role]


class PeopleSearchForm(forms.Form):
    """The People page's search (a GET form: the URL holds it)."""

    q = forms.CharField(
        required=False,
        max_length=100,
        label=gettext_lazy("Search people"),
        help_text=gettext_lazy("Name, email or username."),
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
    )

    def query(self) -> str:
        return (self.cleaned_data.get("q") or "").strip() if self.is_valid() else ""


# How many addresses one invitation form sends at most (a team, not a mailing list).
INVITE_AT_ONCE = 50
# An invitation's role in one workspace: the field `role_in_<workspace id>`.
WORKSPACE_ROLE_PREFIX = "role_in_"
_SEPARATORS = re.compile(r"[\s,;]+")


class InviteForm(forms.Form):
    emails = forms.CharField(
        label=gettext_lazy("Email addresses"),
        help_text=lazy(
            lambda: (
                gettext("One or more, separated by commas or on lines of their own (up to %(most)d at once).")
                % {"most": INVITE_AT_ONCE}
            ),
            str,
        )(),
        max_length=INVITE_AT_ONCE * 160,
        widget=forms.Textarea(attrs={"rows": 3, "autocomplete": "off", "spellcheck": "false"}),
    )
    role = forms.ChoiceField(label=gettext_lazy("Role"), choices=_role_choices, initial=DEFAULT_ROLE)

    def __init__(self, *args: Any, workspaces: Sequence[Any] = (), inviter: Any = None, **kwargs: Any) -> None:
        """One "Role in <workspace>" choice per workspace the console knows
        where `inviter` manages people (blank: the default role there)."""
        super().__init__(*args, **kwargs)
        self.inviter = inviter
        self.workspaces = {
            workspace.id: workspace
            for workspace in workspaces
            if inviter is None or inviter.has_perm(MANAGE_PEOPLE, workspace.id)
        }
        for workspace in self.workspaces.values():
            self.fields[WORKSPACE_ROLE_PREFIX + workspace.id] = forms.ChoiceField(
                label=gettext("Role in %(workspace)s") % {"workspace": workspace.label},
                choices=[("", gettext("Their default role")), *((role.value, role.label) for role in Role)],
                required=False,
            )

    def main_fields(self) -> list[Any]:
        return [self[name] for name in ("emails", "role")]

    def workspace_fields(self) -> list[Any]:
        return [self[WORKSPACE_ROLE_PREFIX + workspace_id] for workspace_id in self.workspaces]

    def clean(self) -> dict[str, Any]:
        """A role named for a workspace the form does not offer (not known,
        or one where the inviter does not manage people: a page open from
        before, or a forged post) is refused by name, never dropped."""
        cleaned = super().clean() or {}
        for name in self.data:
            workspace_id = name[len(WORKSPACE_ROLE_PREFIX) :]
            if name.startswith(WORKSPACE_ROLE_PREFIX) and workspace_id not in self.workspaces and self.data.get(name):
                self.add_error(
                    None,
                    gettext(
                        "You can't give a role in %(workspace)s: you don't manage people there, "
                        "or the console no longer knows it. Choose the roles again."
                    )
                    % {"workspace": workspace_id[:64]},
                )
        return cleaned

    def workspace_roles(self) -> list[dict[str, str]]:
        """The roles chosen per workspace: [{"workspace_id", "role", "name"}], in the form's order."""
        return [
            {"workspace_id": workspace.id, "role": role, "name": workspace.name}
            for workspace in self.workspaces.values()
            if (role := self.cleaned_data.get(WORKSPACE_ROLE_PREFIX + workspace.id))
        ]

    def clean_emails(self) -> list[tuple[str, str]]:
        """Each address typed once (case aside), in order, with what is wrong
        with it ("" for nothing): a wrong one is refused by name, never silently
        dropped, and does not stop the others."""
        seen: dict[str, tuple[str, str]] = {}
        for address in _SEPARATORS.split(self.cleaned_data["emails"]):
            address = address.strip().strip("<>\"'")
            if address and address.casefold() not in seen:
                seen[address.casefold()] = (address, _address_problem(address))
        if not seen:
            raise ValidationError(gettext_lazy("Enter at least one email address."))
        if len(seen) > INVITE_AT_ONCE:
            raise ValidationError(
                gettext(
                    "At most %(INVITE_AT_ONCE)s addresses at once: this holds %(len)s. Invite the rest in a second go."
                )
                % {"INVITE_AT_ONCE": INVITE_AT_ONCE, "len": len(seen)}
            )
        return list(seen.values())


def _address_problem(address: str) -> str:
    shown = address if len(address) <= 80 else address[:79] + "…"
    if len(address) > 150:
        # The address becomes the new account's username, and usernames hold 150 characters.
        return f"{shown} is longer than the 150 characters a username holds."
    try:
        validate_email(address)
    except ValidationError:
        return f"“{shown}” is not an email address."
    try:
        UnicodeUsernameValidator()(address)
    except ValidationError:
        return (
            f"{shown} can't be a console username (letters, digits and @ . + - _ only). "
            "Ask the person for another address."
        )
    return ""


class RoleForm(forms.Form):
    role = forms.ChoiceField(label=gettext_lazy("Role"), choices=_role_choices)
    # The role change asks once more ("confirm") before it is made: a role
    # decides what someone may do in every area.
    confirm = forms.BooleanField(
        required=False,
        label=gettext_lazy("Yes, change the role"),
        help_text=gettext_lazy("A role change applies from their next request."),
    )


DEFAULT_THERE = ""


class WorkspaceRoleForm(forms.Form):
    """A person's role in one workspace: one of the workspaces the console
    knows (someone stored a key of it), and a role or their default again."""

    workspace_id = forms.ChoiceField(label="Workspace")
    role = forms.ChoiceField(label="Role there")

    def __init__(self, *args: Any, workspaces: list[Any], default_label: StrOrPromise, **kwargs: Any) -> None:
        # Its own ids: the page's role form has a `role` field too.
        kwargs.setdefault("auto_id", "id_workspace_role_%s")
        super().__init__(*args, **kwargs)
        workspace_field: Any = self.fields["workspace_id"]
        workspace_field.choices = [(workspace.id, workspace.label) for workspace in workspaces]
        role_field: Any = self.fields["role"]
        role_field.choices = [(DEFAULT_THERE, f"Their default ({default_label})"), *_role_choices()]
        role_field.required = False


class AcceptForm(forms.Form):
    """The invitee's account: their name, and a password checked by Django's
    validators (the username is the invited address: the same rule as single
    sign-on, and nothing to clash with)."""

    name = forms.CharField(
        label=gettext_lazy("Your name"),
        required=False,
        max_length=150,
        help_text=gettext_lazy("How teammates see you in the console."),
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    password1 = forms.CharField(
        label=gettext_lazy("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label=gettext_lazy("Password again"),
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
            self.add_error("password2", gettext("The two passwords differ. Type the same password twice."))
        elif first:
            # The validators compare the password with the account it is for.
            would_be = User(username=self.email, email=self.email, first_name=cleaned.get("name") or "")
            try:
                password_validation.validate_password(first, would_be)
            except ValidationError as error:
                self.add_error("password1", error)
        return cleaned
