"""Step-up for risky decisions: approving a destructive or spend action, from
any path, asks for a fresh second factor (the authenticator app's code, or
a recovery code: dashboard/accounts/two_factor.py) unless one was given in
the same session within STEP_UP_SECONDS (the risks: STEP_UP_RISKS). The time of the last one is kept on
the session (`STEP_UP_SESSION_KEY`). A person whose only second factor is a
passkey (dashboard/accounts/passkeys.py) confirms with it on the step-up
page (`step_up_passkey`: no code to type), which marks the session the same
way, then approves. A person without a second factor is told to set one up
and cannot approve those. A rejection never needs it.

The decision flow (agents/decisions.py) asks `step_up_needed` and, with a
code, `step_up_verify`; a path without a session (a worker, a message
opened without signing in) has no fresh factor: it asks for the code, or
refuses in words."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from dashboard.accounts import passkeys, two_factor
from dashboard.accounts.throttle import lock_clear

STEP_UP_SESSION_KEY = "agents_step_up_at"

NOT_NEEDED = ""
CODE = "code"  # ask for a code
SET_UP = "set-up"  # the person has no second factor: they cannot approve this
PASSKEY = "passkey"  # their second factor is a passkey: confirm with it on the step-up page first

FIELD_WORDS = "Enter the code from your authenticator app (or a recovery code) to approve this {risk} action."


def passkey_words(risk: str) -> str:
    return (
        f"Approving this {risk} action needs a fresh check that it is you: confirm with your passkey, then approve it."
    )


def set_up_words() -> str:
    return (
        "Approving destructive or spend actions needs a second factor: set up two-factor sign-in first "
        "(Two-factor sign-in, under your account)."
    )


def _risk(approval: Any) -> str:
    return str(approval.get("risk") or "") if isinstance(approval, dict) else str(approval or "")


def step_up_risks() -> frozenset[str]:
    """The risks whose approve asks for it (settings.STEP_UP_RISKS)."""
    return frozenset(settings.STEP_UP_RISKS)


def step_up_fresh(session: Any) -> bool:
    """Whether this session gave a second factor within STEP_UP_SECONDS."""
    if session is None:
        return False
    try:
        given = float(session.get(STEP_UP_SESSION_KEY) or 0)
    except (TypeError, ValueError):
        return False
    return 0 <= time.time() - given <= settings.STEP_UP_SECONDS


def step_up_needed(*, user: Any, approval: Any, session: Any) -> str:
    """What approving `approval` (a read approval, or its risk word) needs
    first: NOT_NEEDED, CODE (a fresh code) or SET_UP (no second factor: the
    person cannot approve it). Any path may ask (the message path refuses in
    words, or asks for the code)."""
    if _risk(approval) not in step_up_risks():
        return NOT_NEEDED
    if two_factor.two_factor_enabled(user):
        return NOT_NEEDED if step_up_fresh(session) else CODE
    if passkeys.passkey_enabled(user):
        return NOT_NEEDED if step_up_fresh(session) else PASSKEY
    return SET_UP


def step_up_mark(session: Any) -> None:
    """A fresh second factor was given in this session (a code, or a passkey on the step-up page)."""
    session[STEP_UP_SESSION_KEY] = time.time()


def step_up_verify(*, user: Any, code: str, session: Any) -> str:
    """Check a step-up code; on success the session remembers the time and ""
    is returned, else the refusal in words (wrong codes count towards the
    same pause as the sign-in's second step)."""
    paused = two_factor.code_attempts_paused(user)
    if paused is None and two_factor.two_factor_check(user=user, code=code, purpose="approve a risky action"):
        lock_clear(scope=two_factor.CODE_LOCK_SCOPE, ident=str(user.pk))
        if session is not None:
            step_up_mark(session)
        return ""
    if paused is None:
        cool_off = settings.AXES_COOLOFF_TIME
        paused = two_factor.code_failure_record(
            user=user,
            limit=settings.AXES_FAILURE_LIMIT,
            cool_off_seconds=cool_off.total_seconds() if cool_off is not None else 15 * 60,
        )
    if paused is not None:
        return f"Too many wrong codes: try again in {max(1, paused // 60)} min."
    return "That code is not right. Try the newest code from your authenticator app."
