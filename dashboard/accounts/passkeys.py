"""Passkeys (WebAuthn) with py_webauthn: registering one on one's own account
page, signing in with one as the second step after the password (beside the
app's code), or, where the sign-in policy lets a role, instead of the
password (a discoverable credential picked in the browser).

Each ceremony starts with options made here (`*_options`, JSON for
static/js/passkeys.js) and a challenge kept in the session under
`CHALLENGE_KEY`: for one purpose, one answer (taken out of the session
before it is checked, right or wrong), within PASSKEY_CHALLENGE_SECONDS.
The answer is checked by py_webauthn against the relying party's id and
origins (`relying_party`, from settings) and, at sign-in, the stored public
key and signature counter.

Every registration, removal and sign-in by passkey is in the audit trail
(kind "account").
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.http import HttpRequest
from django.utils import timezone
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from dashboard.accounts.models import Passkey, PasskeyRoleRule
from dashboard.audit.services import audit_account_event
from dashboard.people.backends import roles_held

CHALLENGE_KEY = "console_passkey_challenge"
# What a challenge is for: an answer made for one is refused for another.
REGISTER = "register"
SECOND_STEP = "second-step"
PASSWORDLESS = "passwordless"
CONFIRM = "confirm"  # confirming a change to one's own passkeys
PURPOSES = (REGISTER, SECOND_STEP, PASSWORDLESS, CONFIRM)
# A browser's answer is a few kilobytes; anything far larger is not one.
MAX_ANSWER_CHARS = 64_000
NAME_MAX = 64


class PasskeyRefused(Exception):
    """The browser's answer was not accepted; the message says why, in words."""


@dataclass(frozen=True)
class RelyingParty:
    id: str
    origins: list[str]
    name: str


def relying_party(request: HttpRequest) -> RelyingParty:
    """The relying party's id and the origins a browser may sign for:
    PASSKEY_RP_ID / PASSKEY_ORIGINS, else those of CONSOLE_BASE_URL, else the
    request's own (its host checked by ALLOWED_HOSTS)."""
    base = settings.CONSOLE_BASE_URL or request.build_absolute_uri("/").rstrip("/")
    parts = urlsplit(base)
    origins = list(settings.PASSKEY_ORIGINS) or [f"{parts.scheme}://{parts.netloc}"]
    return RelyingParty(
        id=settings.PASSKEY_RP_ID or (parts.hostname or ""), origins=origins, name=settings.PASSKEY_RP_NAME
    )


# --- reads -------------------------------------------------------------------


def passkeys_of(user: Any) -> list[Passkey]:
    return list(Passkey.objects.filter(user_id=user.pk))


def passkey_enabled(user: Any) -> bool:
    return Passkey.objects.filter(user_id=user.pk).exists()


def passkey_user_ids(user_ids: list[int]) -> set[int]:
    """Of these accounts, those with a passkey: one query for a list of people."""
    return set(Passkey.objects.filter(user_id__in=user_ids).values_list("user_id", flat=True))


def passkey_rule_roles(rule: str) -> list[str]:
    return list(PasskeyRoleRule.objects.filter(rule=rule).values_list("role", flat=True))


def _role_has(user: Any, rule: str, *, every: bool = False) -> bool:
    """Whether a role of the person's (`every`: each of them, their default
    and those in workspaces) is under `rule`."""
    roles = roles_held(user)
    if not roles:
        return False
    under = set(PasskeyRoleRule.objects.filter(role__in=roles, rule=rule).values_list("role", flat=True))
    return under == roles if every else bool(under)


def passkey_required(user: Any) -> bool:
    """Whether the person's role is one an administrator made register a passkey."""
    return _role_has(user, PasskeyRoleRule.REQUIRED)


def passwordless_allowed(user: Any) -> bool:
    """Whether the person's role may sign in with a passkey instead of a password."""
    # Each of their roles: a looser sign-in only where no role of theirs forbids it.
    return _role_has(user, PasskeyRoleRule.PASSWORDLESS, every=True)


def passwordless_offered() -> bool:
    """Whether the login page offers "Sign in with a passkey": some role may."""
    return PasskeyRoleRule.objects.filter(rule=PasskeyRoleRule.PASSWORDLESS).exists()


# --- challenges --------------------------------------------------------------


def _challenge_keep(session: Any, *, purpose: str, challenge: bytes, user: Any | None) -> None:
    session[CHALLENGE_KEY] = {
        "purpose": purpose,
        "challenge": bytes_to_base64url(challenge),
        "user": getattr(user, "pk", None),
        "at": time.time(),
    }


def _challenge_take(session: Any, *, purpose: str, user: Any | None) -> bytes:
    """The challenge sent for `purpose` (to `user`), taken out of the session:
    a second answer to it is refused, whatever the first one was."""
    kept = session.pop(CHALLENGE_KEY, None)
    if not isinstance(kept, dict) or kept.get("purpose") != purpose:
        raise PasskeyRefused("The passkey request was not started here, or already used. Try again.")
    if kept.get("user") != getattr(user, "pk", None):
        raise PasskeyRefused("The passkey request was for another sign-in. Try again.")
    try:
        at = float(kept.get("at", 0))
        challenge = base64url_to_bytes(str(kept.get("challenge", "")))
    except (TypeError, ValueError):
        raise PasskeyRefused("The passkey request was not started here. Try again.") from None
    if not 0 <= time.time() - at <= settings.PASSKEY_CHALLENGE_SECONDS:
        raise PasskeyRefused("The passkey request took too long and has expired. Try again.")
    return challenge


def _descriptors(passkeys: list[Passkey]) -> list[PublicKeyCredentialDescriptor]:
    known = {transport.value for transport in AuthenticatorTransport}
    return [
        PublicKeyCredentialDescriptor(
            id=base64url_to_bytes(passkey.credential_id),
            transports=[AuthenticatorTransport(t) for t in passkey.transports if t in known] or None,
        )
        for passkey in passkeys
    ]


def _answer(answer: str) -> dict[str, Any]:
    if not answer or len(answer) > MAX_ANSWER_CHARS:
        raise PasskeyRefused("The browser sent no passkey answer. Try again.")
    try:
        parsed = json.loads(answer)
    except ValueError:
        raise PasskeyRefused("The browser's passkey answer could not be read. Try again.") from None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("id"), str):
        raise PasskeyRefused("The browser's passkey answer could not be read. Try again.")
    return parsed


# --- registering -------------------------------------------------------------


def registration_options(request: HttpRequest, *, user: Any) -> str:
    """Options for navigator.credentials.create(): a discoverable credential
    (so it can also sign in without a username), none of the person's own
    passkeys again. The user handle is the account's id, never a name."""
    party = relying_party(request)
    options = generate_registration_options(
        rp_id=party.id,
        rp_name=party.name,
        user_id=str(user.pk).encode("ascii"),
        user_name=user.get_username(),
        user_display_name=user.get_full_name() or user.get_username(),
        timeout=settings.PASSKEY_CHALLENGE_SECONDS * 1000,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=_descriptors(passkeys_of(user)),
    )
    _challenge_keep(request.session, purpose=REGISTER, challenge=options.challenge, user=user)
    return options_to_json(options)


def default_name(user: Any) -> str:
    return f"Passkey {Passkey.objects.filter(user_id=user.pk).count() + 1}"


def passkey_register(request: HttpRequest, *, user: Any, answer: str, name: str) -> Passkey:
    """Check the browser's answer to the registration options and keep the
    passkey (audited). Raises PasskeyRefused, saying why."""
    challenge = _challenge_take(request.session, purpose=REGISTER, user=user)
    parsed = _answer(answer)
    party = relying_party(request)
    try:
        verified = verify_registration_response(
            credential=parsed,
            expected_challenge=challenge,
            expected_rp_id=party.id,
            expected_origin=party.origins,
        )
    except (WebAuthnException, ValueError, TypeError, KeyError):
        # py_webauthn refuses a wrong answer with its exceptions; a malformed one may fail while it is read.
        raise PasskeyRefused("The passkey could not be checked, so it was not added. Try again.") from None
    credential_id = bytes_to_base64url(verified.credential_id)
    if Passkey.objects.filter(credential_id=credential_id).exists():
        raise PasskeyRefused("That passkey is already registered.")
    response = parsed.get("response")
    transports = response.get("transports") if isinstance(response, dict) else None
    if not isinstance(transports, list):
        transports = []
    name = (name.strip() or default_name(user))[:NAME_MAX]
    with transaction.atomic():
        passkey = Passkey.objects.create(
            user=user,
            name=name,
            credential_id=credential_id,
            public_key=verified.credential_public_key,
            sign_count=verified.sign_count,
            transports=[str(t)[:32] for t in transports if isinstance(t, str)][:8],
            backed_up=verified.credential_backed_up,
        )
        audit_account_event(
            actor=user,
            subject=user,
            action="passkey.registered",
            summary=f"Registered a passkey: {name}",
            details={"passkey": name, "backed_up": verified.credential_backed_up},
        )
    return passkey


def passkey_remove(*, user: Any, passkey_id: int) -> str | None:
    """Remove one of the person's own passkeys (audited); its name, or None
    when they have none by that id. The view has checked the step-up."""
    with transaction.atomic():
        passkey = Passkey.objects.select_for_update().filter(user_id=user.pk, pk=passkey_id).first()
        if passkey is None:
            return None
        passkey.delete()
        audit_account_event(
            actor=user,
            subject=user,
            action="passkey.removed",
            summary=f"Removed a passkey: {passkey.name}",
            details={"passkey": passkey.name},
        )
    return passkey.name


# --- signing in ----------------------------------------------------------------


def authentication_options(request: HttpRequest, *, purpose: str, user: Any | None = None) -> str:
    """Options for navigator.credentials.get(). With a `user` (the second
    step, confirming a change): only their passkeys. Without one (signing in
    without a password): any passkey of this console the browser holds, and
    the authenticator must verify the person (a PIN, a fingerprint), since it
    then stands for both factors."""
    party = relying_party(request)
    options = generate_authentication_options(
        rp_id=party.id,
        timeout=settings.PASSKEY_CHALLENGE_SECONDS * 1000,
        allow_credentials=_descriptors(passkeys_of(user)) if user is not None else [],
        user_verification=(
            UserVerificationRequirement.REQUIRED if user is None else UserVerificationRequirement.PREFERRED
        ),
    )
    _challenge_keep(request.session, purpose=purpose, challenge=options.challenge, user=user)
    return options_to_json(options)


def passkey_authenticate(request: HttpRequest, *, purpose: str, answer: str, user: Any | None = None) -> Passkey:
    """Check an answer to `authentication_options`: the challenge, the
    relying party, the signature with the stored key and the counter (an
    equal or lower one than last time is a copied authenticator: refused and
    audited). Without a `user`, the passkey names its owner (the user handle
    must agree) and the authenticator must have verified the person. Returns
    the passkey, its counter and last use updated. Raises PasskeyRefused."""
    challenge = _challenge_take(request.session, purpose=purpose, user=user)
    parsed = _answer(answer)
    found = Passkey.objects.select_related("user").filter(credential_id=parsed["id"])
    if user is not None:
        found = found.filter(user_id=user.pk)
    passkey = found.first()
    if passkey is None:
        raise PasskeyRefused("That passkey is not registered here (it may have been removed). Try another.")
    if user is None:
        response = parsed.get("response")
        handle = response.get("userHandle") if isinstance(response, dict) else None
        if not isinstance(handle, str) or _handle_user_id(handle) != passkey.user_id:
            raise PasskeyRefused("That passkey does not belong to the account it names.")
    party = relying_party(request)
    try:
        verified = verify_authentication_response(
            credential=parsed,
            expected_challenge=challenge,
            expected_rp_id=party.id,
            expected_origin=party.origins,
            credential_public_key=bytes(passkey.public_key),
            credential_current_sign_count=passkey.sign_count,
            require_user_verification=user is None,
        )
    except (WebAuthnException, ValueError, TypeError, KeyError) as error:
        if isinstance(error, WebAuthnException) and "sign count" in str(error):
            audit_account_event(
                actor=None,
                subject=passkey.user,
                action="passkey.counter_refused",
                summary=f"A sign-in with the passkey {passkey.name} was refused: its counter went back (a copy?)",
                details={"passkey": passkey.name},
            )
            raise PasskeyRefused(
                "This passkey's counter went back, as a copied one's would, so it was refused. "
                "Remove it and register it again, or use another way to sign in."
            ) from None
        raise PasskeyRefused("The passkey could not be checked. Try again.") from None
    now = timezone.now()
    # The counter only moves forward, even with two sign-ins racing.
    Passkey.objects.filter(pk=passkey.pk).update(
        sign_count=Greatest(F("sign_count"), verified.new_sign_count),
        last_used_at=now,
        backed_up=verified.credential_backed_up,
    )
    passkey.sign_count, passkey.last_used_at = verified.new_sign_count, now
    return passkey


def passkey_sign_in_record(*, passkey: Passkey, how: str) -> None:
    """Audit a sign-in by passkey: `how` is "second step" or "without a password"."""
    audit_account_event(
        actor=passkey.user,
        subject=passkey.user,
        action="passkey.signed_in",
        summary=f"Signed in with the passkey {passkey.name} ({how})",
        details={"passkey": passkey.name, "how": how},
    )


def _handle_user_id(handle: str) -> int | None:
    try:
        value = base64url_to_bytes(handle).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return None
    return int(value) if value.isdigit() and len(value) < 19 else None
