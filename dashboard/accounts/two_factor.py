"""Two-factor sign-in: a TOTP app (django-otp's `TOTPDevice`) and ten
single-use recovery codes (django-otp's `StaticDevice` and its tokens).

Names agreed with the People pages (dashboard/people):
- `two_factor_enabled(user)`: the person has a confirmed authenticator app;
- `two_factor_required(user)`: their role is one an administrator made
  require it (`RequiredTwoFactorRole`, the sign-in policy);
- `two_factor_reset(*, user, by)`: an administrator removes a person's
  second factor (lost device), audited.

Every change to a second factor is in the audit trail
(`audit_account_event`, kind "account"): enabled, disabled, recovery codes
made again, reset by an administrator, a recovery code used, the second step
paused after too many wrong codes.

Why django-otp and not django-allauth's MFA: the login is Django's LoginView
with django-axes and optional mozilla-django-oidc; allauth's MFA lives inside
allauth's own login flow and accounts. django-otp is only the devices and
their checks (RFC 6238 with drift and replay protection, single-use static
tokens), so the console keeps its login and adds one step after the password.

A person signing in through OpenID Connect or SAML is not asked for a code: the
provider is where that identity's factors live (and where an organisation
enforces MFA); asking again would be a second, unrelated factor to manage.
"""

from __future__ import annotations

from base64 import b32encode
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils.html import escape
from django.utils.translation import gettext
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from dashboard.accounts.models import Passkey, RequiredTwoFactorRole
from dashboard.accounts.throttle import lock_clear, lock_failure, lock_remaining
from dashboard.audit.services import audit_account_event
from dashboard.people.backends import roles_held

RECOVERY_CODE_COUNT = 10
# The device names people see in the admin; one of each per person.
APP_DEVICE_NAME = "Authenticator app"
RECOVERY_DEVICE_NAME = "Recovery codes"
# The second step's wrong codes are counted per account under this scope (throttle.py).
CODE_LOCK_SCOPE = "second-step"


# --- reads -------------------------------------------------------------------


def two_factor_enabled(user: Any) -> bool:
    """Whether the person signs in with a code: a confirmed authenticator app."""
    return TOTPDevice.objects.filter(user_id=user.pk, confirmed=True).exists()


def two_factor_enabled_ids(user_ids: Iterable[int]) -> set[int]:
    """Of these accounts, those with two-factor sign-in on: one query for a list
    of people (the People page), instead of one per row."""
    return set(TOTPDevice.objects.filter(user_id__in=list(user_ids), confirmed=True).values_list("user_id", flat=True))


def two_factor_required_roles() -> list[str]:
    return list(RequiredTwoFactorRole.objects.values_list("role", flat=True))


def two_factor_required(user: Any) -> bool:
    """Whether a role of the person's (their default or one in a workspace) is
    one an administrator made require a second factor."""
    roles = roles_held(user)
    return bool(roles) and RequiredTwoFactorRole.objects.filter(role__in=roles).exists()


def recovery_codes_left(user: Any) -> int:
    return StaticToken.objects.filter(device__user_id=user.pk, device__confirmed=True).count()


def pending_app_device(user: Any) -> TOTPDevice:
    """The authenticator app being set up: an unconfirmed device, made on
    first need and kept until confirmed, so reloading the setup page shows
    the same secret (a person may have scanned it already)."""
    device = TOTPDevice.objects.filter(user_id=user.pk, confirmed=False).order_by("-pk").first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name=APP_DEVICE_NAME, confirmed=False)
    return device


def secret_text(device: TOTPDevice) -> str:
    """The secret for typing into an app by hand: base32 in groups of four."""
    secret = b32encode(device.bin_key).decode("ascii").rstrip("=")
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


def qr_code_svg(device: TOTPDevice) -> str:
    """The device's otpauth:// address as a QR code, inline SVG markup drawn
    here from the code's modules (no script, no image request, no inline
    style: the page's CSP stays as it is). A white margin of four modules,
    as scanners expect, on any page background."""
    import qrcode

    code = qrcode.QRCode(border=4, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(device.config_url)
    code.make(fit=True)
    matrix = code.get_matrix()
    size = len(matrix)
    path = "".join(f"M{x},{y}h1v1h-1z" for y, row in enumerate(matrix) for x, dark in enumerate(row) if dark)
    label = escape(gettext("QR code of the secret for your authenticator app"))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" width="220" height="220" '
        f'role="img" aria-label="{label}" shape-rendering="crispEdges" class="qr-code">'
        f'<rect width="{size}" height="{size}" fill="#fff"/><path d="{path}" fill="#000"/></svg>'
    )


# --- checking a code ---------------------------------------------------------


def normalise_code(code: str) -> str:
    """What a person types, as stored: spaces and dashes dropped (apps show
    "123 456", recovery codes are printed in two halves), lower case."""
    return "".join(ch for ch in code if ch not in " -\t").lower()


def _recovery_code_use(*, user: Any, code: str) -> bool:
    """Use up one recovery code. Deleted by one DELETE whose row count says
    whether it was there: two requests racing with the same code cannot both
    succeed (django-otp's `verify_token` reads, then deletes)."""
    match = StaticToken.objects.filter(device__user_id=user.pk, device__confirmed=True, token=code).first()
    if match is None:
        return False
    deleted, _ = StaticToken.objects.filter(pk=match.pk).delete()
    return deleted > 0


def two_factor_check(*, user: Any, code: str, purpose: str) -> str:
    """Check a code from the app ("app") or a recovery code ("recovery");
    "" when it is neither. A used recovery code is gone and audited, saying
    what it was used for (`purpose`: "sign in")."""
    code = normalise_code(code)
    if not code:
        return ""
    if code.isdigit():
        device = TOTPDevice.objects.filter(user_id=user.pk, confirmed=True).first()
        # verify_token refuses a code already used (last_t), so a code seen over a shoulder cannot be replayed.
        return "app" if device is not None and device.verify_token(code) else ""
    if _recovery_code_use(user=user, code=code):
        left = recovery_codes_left(user)
        audit_account_event(
            actor=user,
            subject=user,
            action="two_factor.recovery_code_used",
            summary=f"Used a recovery code to {purpose} ({left} left)",
            details={"recovery_codes_left": left, "purpose": purpose},
        )
        return "recovery"
    return ""


def code_attempts_paused(user: Any) -> int | None:
    """Seconds until this account's second step takes codes again, or None."""
    return lock_remaining(scope=CODE_LOCK_SCOPE, ident=str(user.pk))


def code_failure_record(*, user: Any, limit: int, cool_off_seconds: float) -> int | None:
    """Count a wrong code; at `limit` wrong codes the account's second step is
    paused for the cool-off (audited), and the seconds it lasts are returned."""
    paused = lock_failure(scope=CODE_LOCK_SCOPE, ident=str(user.pk), limit=limit, cool_off_seconds=cool_off_seconds)
    if paused is not None:
        audit_account_event(
            actor=user,
            subject=user,
            action="two_factor.paused",
            summary=f"Too many wrong sign-in codes: the second step is paused for {paused // 60 or 1} min",
            details={"limit": limit},
        )
    return paused


# --- changes -----------------------------------------------------------------


def _recovery_codes_make(user: Any) -> list[str]:
    """Replace the person's recovery codes with ten new ones (the old stop working)."""
    StaticDevice.objects.filter(user_id=user.pk).delete()
    device = StaticDevice.objects.create(user=user, name=RECOVERY_DEVICE_NAME, confirmed=True)
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODE_COUNT)]
    StaticToken.objects.bulk_create([StaticToken(device=device, token=code) for code in codes])
    return codes


def two_factor_enable(*, user: Any, device: TOTPDevice, code: str) -> list[str] | None:
    """Confirm the app being set up with a code it shows now: on, with ten
    fresh recovery codes (returned, to be shown once). None: the code was wrong."""
    code = normalise_code(code)
    if not code.isdigit() or not device.verify_token(code):
        return None
    with transaction.atomic():
        # One app per person: a set-up that replaces an older app (after a reset) leaves only the new one.
        TOTPDevice.objects.filter(user_id=user.pk).exclude(pk=device.pk).delete()
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        codes = _recovery_codes_make(user)
        audit_account_event(
            actor=user, subject=user, action="two_factor.enabled", summary="Turned on two-factor sign-in"
        )
    return codes


def recovery_codes_first(*, user: Any) -> list[str] | None:
    """Ten recovery codes for a person who has none yet (their first passkey:
    a lost passkey must not lock them out); None when they already have them."""
    if StaticDevice.objects.filter(user_id=user.pk, confirmed=True).exists():
        return None
    return _recovery_codes_make(user)


def recovery_codes_regenerate(*, user: Any) -> list[str]:
    with transaction.atomic():
        codes = _recovery_codes_make(user)
        audit_account_event(
            actor=user,
            subject=user,
            action="two_factor.recovery_codes_regenerated",
            summary="Made new recovery codes (the old ones no longer work)",
        )
    return codes


def _devices_remove(user: Any) -> None:
    TOTPDevice.objects.filter(user_id=user.pk).delete()
    StaticDevice.objects.filter(user_id=user.pk).delete()


def two_factor_disable(*, user: Any) -> None:
    """The person turns it off (the view has checked a code and the policy).
    Their recovery codes stay while they have a passkey: they stand in for it."""
    with transaction.atomic():
        TOTPDevice.objects.filter(user_id=user.pk).delete()
        if not Passkey.objects.filter(user_id=user.pk).exists():
            StaticDevice.objects.filter(user_id=user.pk).delete()
        audit_account_event(
            actor=user, subject=user, action="two_factor.disabled", summary="Turned off two-factor sign-in"
        )


def two_factor_reset(*, user: Any, by: Any) -> None:
    """An administrator removes a person's second factor (a lost device, no
    recovery code left): their app, passkeys and recovery codes go, and a paused
    second step is lifted. They next sign in with their password alone, or, when their
    role requires a second factor, are sent to set one up right after it."""
    with transaction.atomic():
        had = two_factor_enabled(user)
        _devices_remove(user)
        passkeys, _ = Passkey.objects.filter(user_id=user.pk).delete()
        audit_account_event(
            actor=by,
            subject=user,
            action="two_factor.reset",
            summary=f"Reset the two-factor sign-in of {user.get_username()}",
            details={"was_enabled": had, "passkeys_removed": passkeys},
        )
    lock_clear(scope=CODE_LOCK_SCOPE, ident=str(user.pk))
