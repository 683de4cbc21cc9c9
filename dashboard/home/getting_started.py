"""Home's getting-started checklist: the first hour of a console, for its
Administrators (those who manage people). Each step ticks itself from the
console's real state, read from its database on each visit of Home, never
from a box someone ticked:

- someone invited: an invitation was sent (any, accepted or not), or
  another active account exists;
- the sign-in policy set: a role must use two-factor sign-in, or an
  Administrator saved the policy (its audit entry: "no role" is a choice too);
- email configured: the operator set EMAIL_URL (settings.EMAIL_CONFIGURED);
  until then invitations and resets go to the development Mail page;
- each person's key stored: every active account has an API key stored;
- notifications: this person saved their notification preferences, or a
  chat webhook of a workspace was added.

Hidden by the person (`Person.getting_started_hidden`), it is one line on
Home that shows it again. Six small queries while shown, one while hidden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a text or a lazy translation

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from dashboard.people.roles import MANAGE_PEOPLE


@dataclass(frozen=True)
class Step:
    slug: str
    title: StrOrPromise
    done: bool
    detail: StrOrPromise  # what is done or what to do, in words
    url: str = ""
    link: StrOrPromise = ""  # the link's words


@dataclass(frozen=True)
class Checklist:
    hidden: bool
    steps: tuple[Step, ...] = ()

    @property
    def done(self) -> int:
        return sum(step.done for step in self.steps)


def _invited(user: Any) -> Step:
    from dashboard.people.models import Invitation

    invited = Invitation.objects.exists()
    others = get_user_model()._default_manager.filter(is_active=True).exclude(pk=user.pk).exists()
    return Step(
        "invite",
        _("Invite someone"),
        invited or others,
        _("Your team is invited.")
        if invited or others
        else _("Invite the people who will work here, several at once."),
        reverse("people:index") + "#invite-heading",
        _("Invite people"),
    )


def _policy() -> Step:
    from dashboard.accounts.models import RequiredTwoFactorRole
    from dashboard.audit.models import AuditEntry

    done = (
        RequiredTwoFactorRole.objects.exists()
        or AuditEntry.objects.filter(kind=AuditEntry.KIND_ACCOUNT, action="sign_in_policy.changed").exists()
    )
    return Step(
        "policy",
        _("Set the sign-in policy"),
        done,
        _("The roles that must use two-factor sign-in are chosen.")
        if done
        else _("Choose the roles that must use two-factor sign-in."),
        reverse("sign_in_policy"),
        _("Sign-in policy"),
    )


def _email() -> Step:
    done = bool(settings.EMAIL_CONFIGURED)
    development = settings.EMAIL_BACKEND == "dashboard.people.mail.DevelopmentMailBackend"
    return Step(
        "email",
        _("Configure email"),
        done,
        _("The console sends its email (invitations, resets, notifications) through your server.")
        if done
        else _("Whoever runs the console sets EMAIL_URL (docs/operations.md). Until then nothing is emailed")
        + ("; invitations and resets wait on the development Mail page." if development else "."),
        reverse("people:mail") if development and not done else "",
        _("Mail (development)"),
    )


def _keys(user: Any) -> Step:
    from dashboard.keys.models import ApiKey

    active = get_user_model()._default_manager.filter(is_active=True)
    people = active.count()
    with_key = active.filter(pk__in=ApiKey.objects.values("user_id")).count()
    done = people > 0 and with_key == people
    mine = ApiKey.objects.filter(user_id=user.pk).exists()
    return Step(
        "keys",
        _("Each person's API key stored"),
        done,
        ngettext(
            "%(with_key)d of %(people)d person has stored an API key.",
            "%(with_key)d of %(people)d people have stored an API key.",
            people,
        )
        % {"with_key": with_key, "people": people}
        + ("" if done else " Each person adds their own; until then they see no workspace."),
        reverse("keys:add") if not mine else reverse("people:index"),
        _("Add your API key") if not mine else _("Who has a key (People)"),
    )


def _notifications(user: Any) -> Step:
    from dashboard.reach.models import ChatWebhook, NotificationPreference

    done = (
        NotificationPreference.objects.filter(user_id=user.pk).exists()
        or ChatWebhook.objects.exclude(workspace_id="").exists()
    )
    return Step(
        "notifications",
        _("Set up notifications"),
        done,
        _("Approvals and failures reach people outside the tab.")
        if done
        else _("Choose what reaches you by email, and add a chat webhook for the team."),
        reverse("reach:preferences"),
        _("Notifications"),
    )


def getting_started(user: Any) -> Checklist | None:
    """The checklist for this person, or None for someone who does not manage people."""
    if not user.has_perm(MANAGE_PEOPLE):
        return None
    from dashboard.people.models import Person

    hidden = Person.objects.filter(user_id=user.pk, getting_started_hidden=True).exists()
    if hidden:
        return Checklist(hidden=True)
    steps = (_invited(user), _policy(), _email(), _keys(user), _notifications(user))
    return Checklist(hidden=False, steps=steps)
