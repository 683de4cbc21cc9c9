"""Writes about people: invitations (send one or many, re-send, a new link
to copy, revoke, accept), roles,
deactivation and reactivation, an administrator's removal of someone's
stored keys, and the sessions a person is signed in with.

Every change is audited (`audit_account_event`, kind "account") in the same
transaction as the change, so the trail and the change stand or fall together.
A refusal a person can act on (an address already invited, the last
administrator) is a `PeopleRefusal` whose message the page shows in place.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from dashboard.audit.services import audit_account_event
from dashboard.keys.models import ApiKey
from dashboard.keys.services import api_key_delete
from dashboard.live.models import TrackedOperation
from dashboard.people.administrators import (
    PeopleRefusal,
    display_name,
    refuse_if_last_administrator,
)
from dashboard.people.devices import device_of
from dashboard.people.language import role_words
from dashboard.people.models import Invitation, Person, SignedInSession, Theme, WorkspaceRole, token_hash
from dashboard.people.roles import Role
from dashboard.people.workspace_roles import checked_workspace_roles, invitation_roles_words

logger = logging.getLogger("dashboard.people")

# Read by the sign-out notice (dashboard/people/middleware.py): why a session ended.
SIGNED_OUT_REASON = "people_signed_out_reason"
DEACTIVATED_REASON = "An administrator deactivated your account, so you were signed out. Ask them to reactivate it."


class InvitationNotSent(PeopleRefusal):
    """The email server did not take the message: nothing was saved."""


# --- the sessions a person is signed in with ------------------------------------------


def session_record(
    *, user: AbstractBaseUser, session_key: str | None, user_agent: str = "", address: str = "", audited: bool = True
) -> None:
    """At login: remember the session with its browser and address (and forget
    this person's rows older than a login can last, so the table stays as
    small as the sessions alive); the sign-in goes into the audit trail when `audited`."""
    if not session_key:
        return
    cutoff = timezone.now() - timedelta(hours=settings.SESSION_MAX_HOURS)
    device = device_of(user_agent)
    with transaction.atomic():
        SignedInSession.objects.filter(user_id=user.pk, created_at__lt=cutoff).delete()
        SignedInSession.objects.update_or_create(
            session_key=session_key,
            defaults={
                "user_id": user.pk,
                "user_agent": user_agent[:300],
                "address": address[:64],
                "last_seen_at": timezone.now(),
            },
        )
        if not audited:
            return
        audit_account_event(
            actor=user,
            subject=user,
            action="signed_in",
            summary=f"{display_name(user)} signed in: {device}{f' from {address}' if address else ''}"[:300],
            details={"device": device, "address": address[:64]},
        )


def session_seen(*, session_key: str | None) -> None:
    """The session made a request (called at most once a minute per session, with its idle clock)."""
    if session_key:
        SignedInSession.objects.filter(session_key=session_key).update(last_seen_at=timezone.now())


def sessions_sign_out_others(*, user: AbstractBaseUser, keep_session_key: str | None) -> int:
    """ "Sign out other sessions": every session of `user` but the one in hand
    ends now, each told why on its next request. Audited; how many ended."""
    with transaction.atomic():
        ended = sessions_end(
            user=user,
            reason="You were signed out from another of your sessions. Log in again.",
            keep_session_key=keep_session_key,
        )
        audit_account_event(
            actor=user,
            subject=user,
            action="sessions_signed_out",
            # An audit summary is stored, append-only, for operators: English, both forms written out.
            summary=f"{display_name(user)} signed out {ended} other " + ("session" if ended == 1 else "sessions"),
            details={"sessions": ended},
        )
    return ended


def session_renamed(*, old_key: str | None, new_key: str | None) -> None:
    """The session took a new key (Django cycles it when the password changes
    in it): its row follows, so it stays listed and is never signed out as another."""
    if old_key and new_key and old_key != new_key:
        SignedInSession.objects.filter(session_key=old_key).update(session_key=new_key)


def session_forget(*, session_key: str | None) -> None:
    """At logout: the session is over anyway."""
    if session_key:
        SignedInSession.objects.filter(session_key=session_key).delete()


def sessions_end(*, user: AbstractBaseUser, reason: str, keep_session_key: str | None = None) -> int:
    """End every session `user` is signed in with (but `keep_session_key`, the
    one a person acts from when they sign out their others), now: each loses its login
    (Django's three auth keys) and keeps `reason`, which the next request from
    that tab (a page or an htmx request) shows on the login page it is sent to.
    Returns how many sessions were ended.

    Rewritten rather than deleted, so the tab can be told why. A request of
    theirs in flight at this very moment that saves its session could write
    the login back; it still opens nothing (ModelBackend refuses an inactive
    account on every request), it only outlives a reactivation, as any
    session within SESSION_MAX_HOURS would."""
    engine = import_module(settings.SESSION_ENGINE)
    ended = 0
    ended_rows = SignedInSession.objects.filter(user_id=user.pk).exclude(session_key=keep_session_key or "")
    for key in ended_rows.values_list("session_key", flat=True):
        store = engine.SessionStore(session_key=key)
        if not store.exists(key):
            continue
        for name in (SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY):
            store.pop(name, None)
        store[SIGNED_OUT_REASON] = reason
        store.save()
        ended += 1
    ended_rows.delete()
    return ended


# --- roles ---------------------------------------------------------------------------


def _role_set(
    *,
    user: AbstractBaseUser,
    role: str,
    by: AbstractBaseUser | None,
    doing: str,
    why: str = "",
    details: dict[str, Any],
    actor_name: str = "",
) -> Person:
    """The one way a person's role row changes: locked, the last active
    Administrator refused (PeopleRefusal naming `doing`), audited (`why`
    ends the sentence)."""
    with transaction.atomic():
        person, _ = Person.objects.select_for_update().get_or_create(user_id=user.pk)
        before = person.role
        if before == role:
            return person
        if before == Role.ADMINISTRATOR:
            refuse_if_last_administrator(user, doing)
        person.role = role
        person.save(update_fields=["role", "updated_at"])
        audit_account_event(
            actor=by,
            subject=user,
            action="role_changed",
            summary=f"Role of {display_name(user)} changed from {role_words(before)} to {role_words(role)}{why}",
            details={"from": before, "to": role, **details},
            actor_name=actor_name,
        )
    return person


def person_role_change(*, user: AbstractBaseUser, role: str, by: AbstractBaseUser) -> Person:
    """Give `user` the console role `role`, from their next request (the role is read once per request)."""
    if role not in Role.values:
        raise PeopleRefusal("Choose one of the roles listed.")
    if getattr(user, "is_superuser", False):
        # role_of() makes a superuser an Administrator whatever their row says:
        # changing the row would show a role that does not apply.
        raise PeopleRefusal(
            f"{display_name(user)} is a superuser (made with createsuperuser), so always an Administrator. "
            "Remove their superuser status in the admin first to give them another role."
        )
    return _role_set(user=user, role=role, by=by, doing="taking that role away", details={})


def person_role_from_identity_provider(
    *, user: AbstractBaseUser, role: str, groups: list[str], directory: str = ""
) -> Person:
    """Set `user`'s role to what their identity provider's groups give (oidc_roles.py), at a sign-in or
    when a `directory` ("Okta (directory)") changes their groups over SCIM. The directory decides, audited
    as such, except that a superuser stays an Administrator and the only active Administrator is not
    demoted (nobody could manage people), said in the trail."""
    if getattr(user, "is_superuser", False):
        return Person.objects.get_or_create(user_id=user.pk)[0]
    details = {"groups": groups[:50], "by": "directory" if directory else "identity_provider"}
    actor = None if directory else user
    try:
        return _role_set(
            user=user,
            role=role,
            by=actor,
            doing="the identity provider's role",
            why=" by the directory's groups (SCIM)" if directory else " by the identity provider's groups, at sign-in",
            details=details,
            actor_name=directory,
        )
    except PeopleRefusal:
        audit_account_event(
            actor=actor,
            subject=user,
            action="role_kept",
            summary=f"{display_name(user)} stays Administrator, the only active one, although the identity "
            f"provider's groups now give {role_words(role)}",
            details={"from": Role.ADMINISTRATOR, "to": role, **details},
            actor_name=directory,
        )
        return Person.objects.get(user_id=user.pk)


# --- deactivation --------------------------------------------------------------------


def person_deactivate(*, user: AbstractBaseUser, by: AbstractBaseUser | None, directory: str = "") -> int:
    """Deactivate `user`: they can't sign in, every session of theirs ends now,
    their stored keys are used by nothing any more (kept encrypted; an
    administrator may delete them), and the work the console followed with
    those keys stops, saying why. Their audit history stays. Returns the
    sessions ended. `by` is the Administrator, or None when a `directory`
    (its name, "Okta (directory)") deactivates them over SCIM."""
    if by is not None and user.pk == by.pk:
        raise PeopleRefusal("You can't deactivate your own account. Ask another Administrator.")
    with transaction.atomic():
        if not user.is_active:
            return 0
        refuse_if_last_administrator(user, "deactivating them")
        get_user_model().objects.filter(pk=user.pk).update(is_active=False)
        user.is_active = False
        ended = sessions_end(user=user, reason=DEACTIVATED_REASON)
        stopped = tracked_work_stop(user=user)
        audit_account_event(
            actor=by,
            subject=user,
            action="deactivated",
            summary=f"{display_name(user)} deactivated" + (f" by {directory}" if directory else ""),
            details={"sessions_ended": ended, "tracked_work_stopped": stopped}
            | ({"by": "directory"} if directory else {}),
            actor_name=directory,
        )
    return ended


def tracked_work_stop(*, user: AbstractBaseUser) -> int:
    """Stop following every unfinished operation started with `user`'s stored
    keys (the poller and stream followers use the row's key). The lease token
    changes, so a poll or stream already under way writes nothing over this;
    the row says why in words, on the page that shows it."""
    now = timezone.now()
    message = (
        f"Stopped following: {user.get_username()}'s account was deactivated, so their stored API key "
        "is no longer used. Whatever the service did stays there."
    )
    return TrackedOperation.objects.filter(owner_key__user_id=user.pk, is_final=False).update(
        status=TrackedOperation.STATUS_STOPPED,
        is_final=True,
        next_poll_at=None,
        last_error=message,
        last_error_request_id="",
        lease_until=None,
        lease_token=uuid.uuid4().hex,
        updated_at=now,
    )


def person_reactivate(*, user: AbstractBaseUser, by: AbstractBaseUser | None, directory: str = "") -> None:
    """Let `user` sign in again; their stored keys work again for them (work
    stopped at deactivation stays stopped: it says why)."""
    with transaction.atomic():
        if user.is_active:
            return
        get_user_model().objects.filter(pk=user.pk).update(is_active=True)
        user.is_active = True
        summary = f"{display_name(user)} reactivated" + (f" by {directory}" if directory else "")
        audit_account_event(actor=by, subject=user, action="reactivated", summary=summary, actor_name=directory)


def person_keys_delete(*, user: AbstractBaseUser, by: AbstractBaseUser) -> int:
    """Delete every API key `user` stored (an administrator's cleanup, e.g.
    after someone left). Audit entries keep the keys' labels and prefixes.
    Returns how many were deleted."""
    with transaction.atomic():
        keys = list(ApiKey.objects.filter(user_id=user.pk).order_by("pk"))
        for key in keys:
            api_key_delete(user=user, pk=key.pk)
        if keys:
            audit_account_event(
                actor=by,
                subject=user,
                action="keys_deleted",
                # Stored for operators (the audit trail): English, both forms written out.
                summary=f"{len(keys)} stored "
                + ("API key" if len(keys) == 1 else "API keys")
                + f" of {display_name(user)} deleted",
                details={"keys": [f"{key.label} ({key.masked}, {key.workspace_name})" for key in keys]},
            )
    return len(keys)


# --- invitations ---------------------------------------------------------------------


def _existing_account(email: str) -> Any:
    return get_user_model().objects.filter(Q(email__iexact=email) | Q(username__iexact=email)).order_by("pk").first()


def _pending_invitation(email: str, now: datetime) -> Invitation | None:
    return (
        Invitation.objects.filter(
            email__iexact=email, accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now
        )
        .order_by("-pk")
        .first()
    )


def invitation_link(*, token: str, base_url: str) -> str:
    """The absolute address of the accept page: CONSOLE_BASE_URL when set (a
    proxy's public name), else `base_url` (the request that sends it)."""
    base = settings.CONSOLE_BASE_URL or base_url.rstrip("/")
    return f"{base}{reverse('people:accept', args=[token])}"


def _send(invitation: Invitation, *, token: str, base_url: str, by: AbstractBaseUser) -> None:
    context = {
        "invitation": invitation,
        "link": invitation_link(token=token, base_url=base_url),
        "inviter": display_name(by),
        "days": settings.INVITATION_DAYS,
    }
    message = EmailMessage(
        subject="You're invited to Workspace Console",
        body=render_to_string("people/invitation_email.txt", context),
        to=[invitation.email],
    )
    try:
        message.send()
    except Exception as exc:  # smtplib, socket and SSL errors alike: the server did not take it
        logger.warning("people: the invitation to %s was not sent: %s", invitation.email, type(exc).__name__)
        raise InvitationNotSent(
            f"The email server did not take the message ({type(exc).__name__}), so nothing was saved. "
            "Try again in a moment, or ask whoever runs the console to check its email settings."
        ) from exc


def _new_token(invitation: Invitation, now: datetime) -> str:
    token = secrets.token_urlsafe(32)
    invitation.token_hash = token_hash(token)
    invitation.expires_at = now + timedelta(days=settings.INVITATION_DAYS)
    invitation.sent_at = now
    invitation.send_count += 1
    return token


def invitation_create(
    *,
    email: str,
    role: str,
    by: AbstractBaseUser,
    base_url: str,
    workspace_roles: list[dict[str, str]] | None = None,
) -> Invitation:
    """Invite `email` with `role` (and `workspace_roles`, made when it is
    accepted) and send the link. Refused (in words) for an
    address that has an account or a pending invitation, and when the email
    server does not take the message (then nothing is saved)."""
    email = email.strip()
    in_workspaces = checked_workspace_roles(workspace_roles)
    now = timezone.now()
    existing = _existing_account(email)
    if existing is not None:
        state = "" if existing.is_active else " (deactivated: reactivate it on their page)"
        raise PeopleRefusal(f"{email} already has an account, {existing.get_username()}{state}.")
    pending = _pending_invitation(email, now)
    if pending is not None:
        raise PeopleRefusal(
            f"{email} was already invited on {pending.created_at:%d %b %Y}. Re-send or revoke that invitation below."
        )
    with transaction.atomic():
        invitation = Invitation(email=email, role=role, invited_by_id=by.pk, workspace_roles=in_workspaces)
        token = _new_token(invitation, now)
        invitation.save()
        audit_account_event(
            actor=by,
            subject=None,
            action="invitation_sent",
            summary=f"Invited {email} as {invitation_roles_words(invitation)}",
            details={"email": email, "role": role, "invitation": invitation.pk}
            | ({"workspace_roles": in_workspaces} if in_workspaces else {}),
        )
        # Sent inside the transaction: a refused message rolls the invitation back.
        _send(invitation, token=token, base_url=base_url, by=by)
    return invitation


@dataclass
class InvitedMany:
    """What inviting several addresses at once did: the invitations sent, and
    each address not invited with why, in the person's words."""

    sent: list[Invitation] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


def invitations_create(
    *,
    addresses: list[tuple[str, str]],
    role: str,
    by: AbstractBaseUser,
    base_url: str,
    workspace_roles: list[dict[str, str]] | None = None,
) -> InvitedMany:
    """Invite each address (an (address, problem) pair: a problem found by the
    form refuses it unsent) with `role`: each one as `invitation_create`
    invites it, in a transaction of its own, so one refused address (an
    account, a pending invitation, the email server) never stops the others."""
    done = InvitedMany()
    for address, problem in addresses:
        if problem:
            done.refused.append((address, problem))
            continue
        try:
            done.sent.append(
                invitation_create(email=address, role=role, by=by, base_url=base_url, workspace_roles=workspace_roles)
            )
        except PeopleRefusal as refusal:
            done.refused.append((address, refusal.message))
    return done


def invitation_new_link(*, invitation: Invitation, by: AbstractBaseUser, base_url: str) -> str:
    """A new link for an invitation not yet accepted or revoked, to hand over
    another way (a chat, in person) rather than by email: the link sent before
    stops working, a new expiry runs from now, and it is audited. Answers the
    link, which is shown once and stored nowhere (only its hash is)."""
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if invitation.accepted_at is not None:
            raise PeopleRefusal(f"{invitation.email} has already accepted this invitation.")
        if invitation.revoked_at is not None:
            raise PeopleRefusal(f"This invitation of {invitation.email} was revoked. Invite them again instead.")
        token = _new_token(invitation, timezone.now())
        invitation.save(update_fields=["token_hash", "expires_at", "sent_at", "send_count"])
        audit_account_event(
            actor=by,
            subject=None,
            action="invitation_link_made",
            summary=f"A new link for the invitation of {invitation.email} made to copy (the earlier link no longer works)",
            details={"email": invitation.email, "invitation": invitation.pk},
        )
    return invitation_link(token=token, base_url=base_url)


def invitation_resend(*, invitation: Invitation, by: AbstractBaseUser, base_url: str) -> Invitation:
    """A new link (and a new expiry) for an invitation not yet accepted or
    revoked; the link sent before stops working."""
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if invitation.accepted_at is not None:
            raise PeopleRefusal(f"{invitation.email} has already accepted this invitation.")
        if invitation.revoked_at is not None:
            raise PeopleRefusal(f"This invitation of {invitation.email} was revoked. Invite them again instead.")
        token = _new_token(invitation, timezone.now())
        invitation.save(update_fields=["token_hash", "expires_at", "sent_at", "send_count"])
        audit_account_event(
            actor=by,
            subject=None,
            action="invitation_resent",
            summary=f"Invitation of {invitation.email} sent again (the earlier link no longer works)",
            details={"email": invitation.email, "invitation": invitation.pk},
        )
        _send(invitation, token=token, base_url=base_url, by=by)
    return invitation


def invitation_revoke(*, invitation: Invitation, by: AbstractBaseUser) -> Invitation:
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if invitation.accepted_at is not None:
            raise PeopleRefusal(
                f"{invitation.email} has already accepted; deactivate their account on their page instead."
            )
        if invitation.revoked_at is not None:
            return invitation
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
        audit_account_event(
            actor=by,
            subject=None,
            action="invitation_revoked",
            summary=f"Invitation of {invitation.email} revoked",
            details={"email": invitation.email, "invitation": invitation.pk},
        )
    return invitation


def _accept(invitation: Invitation, *, user_fields: dict[str, Any], password: str | None, how: str) -> Any:
    """Make the invitee's account and use the invitation up, once: the row is
    locked and checked again, so two tabs accepting at once make one account."""
    User = get_user_model()
    with transaction.atomic():
        locked = Invitation.objects.select_for_update().get(pk=invitation.pk)
        now = timezone.now()
        if not locked.is_pending(now) or locked.token_hash != invitation.token_hash:
            raise PeopleRefusal("This invitation link can no longer be used.")
        if _existing_account(locked.email) is not None:
            raise PeopleRefusal(f"{locked.email} already has an account. Log in with it instead.")
        user = User(username=locked.email, email=locked.email, **user_fields)
        if password is None:
            user.set_unusable_password()
        else:
            user.set_password(password)
        user.save()
        person, _ = Person.objects.update_or_create(user_id=user.pk, defaults={"role": locked.role})
        in_workspaces = checked_workspace_roles(locked.workspace_roles)
        WorkspaceRole.objects.bulk_create(
            WorkspaceRole(person=person, workspace_id=entry["workspace_id"], role=entry["role"])
            for entry in in_workspaces
        )
        locked.accepted_at = now
        locked.accepted_user = user
        locked.save(update_fields=["accepted_at", "accepted_user"])
        audit_account_event(
            actor=user,
            subject=user,
            action="invitation_accepted",
            summary=f"{locked.email} accepted the invitation ({how}) as {invitation_roles_words(locked)}",
            details={"email": locked.email, "role": locked.role, "invitation": locked.pk, "how": how}
            | ({"workspace_roles": in_workspaces} if in_workspaces else {}),
        )
    return user


def invitation_accept(*, invitation: Invitation, name: str, password: str) -> Any:
    """Accept with a password the invitee chose (already checked by Django's
    password validators in the form). The username is the invited address."""
    return _accept(invitation, user_fields={"first_name": name.strip()[:150]}, password=password, how="password")


def invitation_accept_with_sso(*, invitation: Invitation) -> Any:
    """Accept to sign in with the OpenID Connect or SAML provider: the account
    is made now, without a password, under the invited address; the provider's
    sign-in links to it by that email (dashboard/accounts/oidc.py and saml.py
    match accounts by email), so only someone the provider vouches for as that
    address gets in."""
    return _accept(invitation, user_fields={}, password=None, how="single sign-on")


def person_getting_started_hide(*, user: Any, hidden: bool) -> None:
    """Hide Home's getting-started checklist for this person, or show it
    again. Their own display choice: no audit entry, nothing sent."""
    Person.objects.update_or_create(user_id=user.pk, defaults={"getting_started_hidden": hidden})


def person_theme_set(*, user: Any, theme: str) -> None:
    """Keep the person's theme (light, dark or the device's). A display
    preference of their own: no audit entry, no role needed, nothing sent to
    the service. The row is made when missing, like `person_of`."""
    Person.objects.update_or_create(user_id=user.pk, defaults={"theme": Theme(theme)})
    user.__dict__.pop("_console_theme", None)
