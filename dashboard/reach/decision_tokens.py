"""Decisions from a message: one person's Approve / Reject, made for them
when a message about one approval is built, usable once and briefly.

A token is `wcdt_` and 43 random characters (the prefix makes a leaked one
recognisable in a log or a secret scanner); the console keeps only its
sha256, so its table tells nothing that decides. It is refused, in words,
once used, expired (`REACH_DECISION_TOKEN_SECONDS`), or when its person is
deactivated, is no longer an Approver, or holds no working key of the
workspace any more; an approval decided elsewhere is refused by the
decision flow itself (the service's 409, "Already decided by Dana").

The core names no area: the area that owns approvals registers an
`ApprovalDecider` (agents/message_decisions.py) that shows an approval
and decides it through its one decision flow, with the token's own
Idempotency-Key. Here: minting, finding, refusing, and the one request
that may use a token (a conditional UPDATE claims it; a failure to reach
the service gives it back, so the retry is the same logical decision).
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.conf import settings
from django.contrib.auth.models import PermissionsMixin
from django.urls import reverse
from django.utils import timezone

from dashboard.frame.workspace import READ_ONLY_ROLES
from dashboard.keys.models import ApiKey
from dashboard.people.backends import may_in
from dashboard.people.roles import DECIDE_APPROVALS, WRITE
from dashboard.reach.models import DecisionToken

PREFIX = "wcdt_"
VIA_EMAIL, VIA_SLACK, VIA_TEAMS, VIA_PUSH = "email", "slack", "teams", "push"
DECISIONS = ("approve", "reject")


UNKNOWN = "This decision link is not known: it may be cut short, or from a message older than its time to live."


@dataclass(frozen=True)
class ApprovalPreview:
    """What a message says of an approval (the console's stored rows, no remote call)."""

    approval_id: str
    agent_id: str
    summary: str
    risk: str
    needs_confirmation: bool
    agent_name: str = ""
    input_text: str = ""  # the exact input as text (JSON), for a chat message


@dataclass(frozen=True)
class ApprovalShown:
    """An approval as the confirmation page shows it: the area's card (its
    template and context) and its state, read from the service just now."""

    status: str
    summary: str
    needs_confirmation: bool
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    words: str = ""  # decided already: "Already decided by Dana (approved)"
    # What approving needs first (dashboard/accounts/step_up.py): "" nothing, "code" a fresh second factor
    # (the page asks for it beside the buttons), "set-up" one the person does not have.
    step_up: str = ""


@dataclass(frozen=True)
class Decided:
    decided: bool  # the service accepted this decision
    status: str  # "approved" / "rejected" / "" (unknown)
    words: str  # what to tell the person: the audit line, or why not
    # Nothing more can come of this token (decided, decided before, gone). Not final: the flow
    # refused before sending (e.g. a fresh second factor first), and the token stays usable.
    final: bool = True
    needs_code: bool = False  # refused for want of a fresh second factor: the page asks for the code
    counted: bool = False  # a vote counted under the workspace's rule: nothing sent yet, more are needed


class ApprovalDecider(Protocol):
    def previews(self, *, workspace_id: str, approval_ids: list[str]) -> dict[str, ApprovalPreview]: ...

    def shown(self, *, key: ApiKey, token: DecisionToken, session: Any = None) -> ApprovalShown | None: ...

    def decide(
        self, *, key: ApiKey, token: DecisionToken, decision: str, session: Any = None, code: str = ""
    ) -> Decided: ...


_deciders: list[ApprovalDecider] = []


def register_approval_decider(decider: ApprovalDecider) -> None:
    """The area owning approvals says how they are shown and decided (its apps.ready)."""
    if decider not in _deciders:
        _deciders.append(decider)


def approval_decider() -> ApprovalDecider | None:
    return _deciders[-1] if _deciders else None


def approval_of(item_key: str) -> str:
    """The approval id a delivery is about ("approval:<id>", or its escalation), else ""."""
    key = item_key.removeprefix("escalation:")
    return key.removeprefix("approval:") if key.startswith("approval:") else ""


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_mint(
    *, user, workspace_id: str, approval_id: str, agent_id: str, channel: str, via: str, now: datetime | None = None
) -> str:
    """A new token for this person and approval; returns its secret (shown
    only in the message being built, never stored)."""
    now = now or timezone.now()
    secret = PREFIX + secrets.token_urlsafe(32)
    DecisionToken.objects.create(
        user=user,
        workspace_id=workspace_id,
        approval_id=approval_id,
        agent_id=agent_id,
        channel=channel[:32],
        via=via,
        token_hash=_hash(secret),
        idempotency_key=str(uuid.uuid4()),
        expires_at=now + timedelta(seconds=int(settings.REACH_DECISION_TOKEN_SECONDS)),
    )
    return secret


def token_find(secret: str) -> DecisionToken | None:
    if not secret.startswith(PREFIX) or len(secret) > 100:
        return None
    return DecisionToken.objects.filter(token_hash=_hash(secret)).select_related("user").first()


def decision_path(secret: str, decision: str = "") -> str:
    """The confirmation page of a token (GET shows, POST decides)."""
    path = reverse("reach:decide", args=[secret])
    return f"{path}?d={decision}" if decision in DECISIONS else path


def recipient_key(token: DecisionToken) -> ApiKey | None:
    """The person's own working key of the token's workspace (the active one first): the decision acts as it."""
    keys = ApiKey.objects.filter(user_id=token.user_id, workspace_id=token.workspace_id, refused_at__isnull=True)
    for key in keys.order_by("-is_active", "-last_verified_at", "-pk"):
        if key.is_readable:
            return key
    return None


def _name(user) -> str:
    return (user.get_full_name() if hasattr(user, "get_full_name") else "") or user.get_username()


def token_person(token: DecisionToken) -> str:
    """Whose link it is, in words: the name people know them by."""
    return _name(token.user)


def token_refusal(token: DecisionToken, *, now: datetime | None = None) -> str:
    """Why this token decides nothing now ("" when it may): used, expired, or
    its person deactivated, no longer an Approver, or without a working key."""
    now = now or timezone.now()
    person = token.user
    name = _name(person)
    if token.used_at is not None:
        said = f" ({token.outcome})" if token.outcome else ""
        return f"This link was used already{said}: a link decides once."
    if token.expires_at <= now:
        return "This link has expired: open the approval in the console to decide it."
    if not person.is_active:
        return f"This link is for {name}, whose account is deactivated: it decides nothing."
    # The role in the approval's workspace (a link is decided outside any request's workspace).
    workspace = token.workspace_id
    if not (
        isinstance(person, PermissionsMixin)
        and may_in(person, WRITE, workspace)
        and may_in(person, DECIDE_APPROVALS, workspace)
    ):
        return f"{name} is no longer an Approver in this workspace: this link decides nothing."
    key = recipient_key(token)
    if key is None:
        return f"{name} holds no working key of this workspace any more: this link decides nothing."
    if key.member_role.strip().lower() in READ_ONLY_ROLES:
        return f"{name}'s role in this workspace only reads: this link decides nothing."
    return ""


@dataclass(frozen=True)
class Redeemed:
    decided: bool
    words: str
    status: str = ""
    needs_code: bool = False
    counted: bool = False


def token_redeem(
    *, token: DecisionToken, decision: str, session: Any = None, code: str = "", now: datetime | None = None
) -> Redeemed:
    """Decide with this token, once: refused in words when it may not; else
    claimed by one conditional UPDATE (ten clicks, one decision), decided by
    the registered area through its decision flow with the token's
    Idempotency-Key. The service unreachable: the claim is given back and the
    error raised (the caller words it; a retry is the same decision)."""
    now = now or timezone.now()
    if decision not in DECISIONS:
        return Redeemed(False, "Choose Approve or Reject.")
    decider = approval_decider()
    problem = token_refusal(token, now=now) or ("" if decider is not None else "Approvals cannot be decided here.")
    if problem:
        return Redeemed(False, problem)
    key = recipient_key(token)
    claimed = DecisionToken.objects.filter(pk=token.pk, used_at__isnull=True, expires_at__gt=now).update(
        used_at=now, decision=decision
    )
    if not claimed or key is None or decider is None:
        token.refresh_from_db()
        return Redeemed(False, token_refusal(token, now=now) or "This link was used already: a link decides once.")
    try:
        decided = decider.decide(key=key, token=token, decision=decision, session=session, code=code)
    except Exception:
        DecisionToken.objects.filter(pk=token.pk).update(used_at=None, decision="")
        raise
    if decided.decided or decided.final:
        DecisionToken.objects.filter(pk=token.pk).update(outcome=decided.words[:300])
    else:
        DecisionToken.objects.filter(pk=token.pk).update(used_at=None, decision="")
    return Redeemed(decided.decided, decided.words, decided.status, decided.needs_code, decided.counted)


def message_decisions(rows: list, *, via: str) -> dict[int, tuple[ApprovalPreview, str]]:
    """Tokens for the approvals among these delivery rows, made now for their
    recipient (row id -> the approval as the console keeps it, and the
    token's secret): only a person's delivery (a workspace's channel has no
    one person to decide), of an approval still waiting, to an Approver.
    Queries flat in the rows: one read of the kept approvals per workspace,
    one permission read per person, one insert."""
    decider = approval_decider()
    if decider is None:
        return {}
    wanted = [(row, approval_of(row.item_key)) for row in rows if row.user is not None and approval_of(row.item_key)]
    may: dict[tuple[int, str], bool] = {}
    previews: dict[str, dict[str, ApprovalPreview]] = {}
    now = timezone.now()
    made: dict[int, tuple[ApprovalPreview, str]] = {}
    tokens = []
    for row, approval_id in wanted:
        person = row.user
        # The role in the approval's workspace, once per person and workspace.
        asked = (person.pk, row.workspace_id)
        if asked not in may:
            may[asked] = bool(
                person.is_active
                and isinstance(person, PermissionsMixin)
                and person.has_perm(DECIDE_APPROVALS, row.workspace_id)
            )
        if not may[asked]:
            continue
        if row.workspace_id not in previews:
            ids = [approval for other, approval in wanted if other.workspace_id == row.workspace_id]
            previews[row.workspace_id] = decider.previews(workspace_id=row.workspace_id, approval_ids=ids)
        preview = previews[row.workspace_id].get(approval_id)
        if preview is None:
            continue
        secret = PREFIX + secrets.token_urlsafe(32)
        tokens.append(
            DecisionToken(
                user=person,
                workspace_id=row.workspace_id,
                approval_id=approval_id,
                agent_id=preview.agent_id,
                channel=row.channel[:32],
                via=via,
                token_hash=_hash(secret),
                idempotency_key=str(uuid.uuid4()),
                expires_at=now + timedelta(seconds=int(settings.REACH_DECISION_TOKEN_SECONDS)),
            )
        )
        made[row.pk] = (preview, secret)
    DecisionToken.objects.bulk_create(tokens)
    return made
