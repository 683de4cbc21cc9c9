"""Writes of signing in that are not the second factor's (two_factor.py)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.utils import translation

from dashboard.accounts.forms import ConsolePasswordResetForm
from dashboard.audit.services import audit_account_event
from dashboard.outbox.services import outbox_send
from dashboard.people.language import language_of_person
from dashboard.people.services import sessions_end

# A task that was sent twice (the outbox may: a publish racing the sweeper)
# sends its email once: the first run claims its id for a day.
SENT_CLAIM_SECONDS = 24 * 3600


def password_reset_request(*, email: str, base_url: str, request_id: str) -> None:
    """Ask for a reset link to be sent to `email`, whether or not an account
    has it: the request stores one outbox message either way and returns,
    so its answer and its timing say nothing about the address. The worker
    looks the address up and sends the email (`password_reset_send`), and a
    slow mail server never holds up the page."""
    outbox_send(
        task="accounts.send_password_reset",
        kwargs={"email": email, "base_url": base_url, "request_id": request_id},
        # A link asked for an hour ago and never sent is better not sent: the person has moved on.
        expires=3600,
    )


def password_reset_send(*, email: str, base_url: str, request_id: str) -> int:
    """Send Django's reset email to each active account with this address and
    a usable password (one made by single sign-on has none: it gets nothing).
    The link starts with `base_url` (CONSOLE_BASE_URL, else the address the
    request came to, as invitations do). Returns how many were sent; the link
    itself is made here, never carried in a task's arguments."""
    if not cache.add(f"password-reset:sent:{request_id}", True, timeout=SENT_CLAIM_SECONDS):
        return 0
    form = ConsolePasswordResetForm(data={"email": email})
    if not form.is_valid():
        return 0
    users = list(form.get_users(form.cleaned_data["email"]))
    if not users:
        return 0
    parts = urlsplit(base_url)
    # In the language the account chose (a worker sends it: there is no browser to ask).
    with translation.override(language_of_person(users[0])):
        form.save(
            domain_override=parts.netloc,
            use_https=parts.scheme == "https",
            extra_email_context={"base_url": base_url.rstrip("/")},
            subject_template_name="registration/password_reset_subject.txt",
            email_template_name="registration/password_reset_email.txt",
        )
    for user in users:
        audit_account_event(
            actor=None, subject=user, action="password.reset_sent", summary="A password reset link was sent by email"
        )
    return len(users)


def password_reset_done(*, user: Any) -> None:
    """After a new password was set from a link. Every other session of the
    person would end anyway at its next request (its stored hash of the old
    password no longer matches); ending them here too makes their open tabs
    say why on the login page they land on. Audited."""
    ended = sessions_end(
        user=user,
        reason="Your password was changed with a reset link, so this session ended. Log in with the new password.",
    )
    audit_account_event(
        actor=user,
        subject=user,
        action="password.reset",
        summary="Chose a new password from a reset link",
        details={"sessions_ended": ended},
    )


# --- one's own name and password ---------------------------------------------------


def own_name_change(*, user: AbstractBaseUser, name: str) -> bool:
    """Set the person's display name (the account's first name; the last name
    is cleared, so the one name shown is the one typed). Audited; False when
    nothing changed (nothing is written then)."""
    name = name.strip()[:150]
    before = user.get_full_name()  # type: ignore[attr-defined]
    if name == before:
        return False
    with transaction.atomic():
        user.first_name, user.last_name = name, ""  # type: ignore[attr-defined]
        user.save(update_fields=["first_name", "last_name"])
        audit_account_event(
            actor=user,
            subject=user,
            action="name_changed",
            summary=f"{user.get_username()} changed their display name to “{name or user.get_username()}”",
            details={"from": before, "to": name},
        )
    return True


def own_password_change(*, user: AbstractBaseUser, new_password: str, keep_session_key: str | None) -> int:
    """Set the person's new password (the form checked the current one) and
    sign out every other session they are signed in with: whoever knew the old
    password and opened a tab with it is out now. Audited, never with the
    password. Returns how many other sessions were signed out."""
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        ended = sessions_end(
            user=user,
            reason="Your password was changed, so this session was signed out. Log in with the new password.",
            keep_session_key=keep_session_key,
        )
        audit_account_event(
            actor=user,
            subject=user,
            action="password_changed",
            # An audit summary is stored, append-only, for operators: English, both forms written out.
            summary=f"{user.get_username()} changed their password; {ended} other "
            + ("session" if ended == 1 else "sessions")
            + " signed out",
            details={"other_sessions_signed_out": ended},
        )
    return ended
