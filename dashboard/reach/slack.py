"""Slack: notifications as Block Kit messages with Approve / Reject, and the
interactivity endpoint their buttons call (`reach:slack_interactivity`).

Who decides is bound twice. The button carries a decision token made for
the message's recipient and that approval (dashboard/reach/decision_tokens.py),
and the click counts only when the Slack user who pressed it is the Slack
member id the recipient saved on their notification preferences. A webhook
posts into a channel that other people read: the token alone would let any
of them decide as the recipient, the member id alone would let a button
decide another approval than its message's. Without a saved member id (or
without SLACK_SIGNING_SECRET, or for a destructive or spend approval, or an
input too long to show whole in the message) the buttons open the console's
confirmation page instead, where the person signs in.

Requests are Slack's only when signed as Slack signs them: `v0=` and the
HMAC-SHA256, keyed by the app's signing secret, of `v0:<timestamp>:<body>`,
with a timestamp within 5 minutes; a signature seen before is refused
(kept in the shared cache for longer than that window). The message is
updated in place through the payload's `response_url` with who decided.
The decision is made within the request (Slack waits 3 s; the sandbox
answers in milliseconds): a slower service still decides, and Slack then
says the app did not answer while the message is updated afterwards.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from dashboard.api.errors import ApiError
from dashboard.reach.decision_tokens import (
    UNKNOWN,
    VIA_SLACK,
    ApprovalPreview,
    decision_path,
    token_find,
    token_person,
    token_redeem,
)
from dashboard.reach.models import Delivery, NotificationPreference

logger = logging.getLogger("dashboard.reach")

WINDOW_SECONDS = 300  # Slack's own advice: refuse a request older than five minutes
INPUT_SHOWN = 2500  # a section's text holds 3,000 characters; an input longer than this is not shown whole
REPLAY_KEY = "reach:slack-signature:"


def signature_of(*, secret: str, timestamp: str, body: bytes) -> str:
    """What Slack sends in X-Slack-Signature for this body and timestamp."""
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def request_refusal(*, timestamp: str, signature: str, body: bytes, now: float | None = None) -> str:
    """Why this request is not Slack's, in words ("" when it is): no signing
    secret set, an old or missing timestamp, a wrong signature, a replay."""
    secret = settings.SLACK_SIGNING_SECRET
    if not secret:
        return "Slack's buttons are not set up on this console (SLACK_SIGNING_SECRET)."
    try:
        sent = int(timestamp)
    except ValueError:
        return "The request has no timestamp."
    if abs((now or time.time()) - sent) > WINDOW_SECONDS:
        return "The request is older than five minutes."
    if not hmac.compare_digest(signature_of(secret=secret, timestamp=timestamp, body=body), signature):
        return "The request's signature is wrong."
    # The first to store it wins (an atomic add): the same signed request again is a replay.
    if not cache.add(REPLAY_KEY + hashlib.sha256(signature.encode()).hexdigest(), 1, timeout=2 * WINDOW_SECONDS):
        return "The request was seen before."
    return ""


def escaped(text: str) -> str:
    """Text as Slack's mrkdwn shows it literally (its three control characters)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _button(text: str, *, action_id: str, style: str, value: str = "", url: str = "") -> dict[str, Any]:
    button: dict[str, Any] = {"type": "button", "text": {"type": "plain_text", "text": text}, "action_id": action_id}
    if style:
        button["style"] = style
    if url:
        button["url"] = url
    else:
        button["value"] = value
    return button


def decision_blocks(
    *, index: int, preview: ApprovalPreview, secret: str, interactive: bool, link
) -> list[dict[str, Any]]:
    """The input and the Approve / Reject of one approval: buttons that
    decide here (`value` is the token), or buttons opening the confirmation page."""
    blocks: list[dict[str, Any]] = []
    if preview.input_text:
        shown = preview.input_text[:INPUT_SHOWN]
        more = "" if len(preview.input_text) <= INPUT_SHOWN else "\n… (the whole input is on the confirmation page)"
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": f"```{escaped(shown)}```{more}"}})
    if interactive and not preview.needs_confirmation and len(preview.input_text) <= INPUT_SHOWN:
        buttons = [
            _button("Approve", action_id=f"approve:{index}", style="primary", value=secret),
            _button("Reject", action_id=f"reject:{index}", style="danger", value=secret),
        ]
    else:
        buttons = [
            _button(
                "Approve…",
                action_id=f"open-approve:{index}",
                style="primary",
                url=link(decision_path(secret, "approve")),
            ),
            _button(
                "Reject…", action_id=f"open-reject:{index}", style="danger", url=link(decision_path(secret, "reject"))
            ),
        ]
    blocks.append({"type": "actions", "block_id": f"decide-{index}", "elements": buttons})
    return blocks


def interactive_for(user) -> bool:
    """Whether Slack's buttons decide in Slack for this recipient: the app is
    set up and the person told the console their Slack member id."""
    if not settings.SLACK_SIGNING_SECRET or user is None:
        return False
    return NotificationPreference.objects.filter(user=user).exclude(slack_user_id="").exists()


def slack_message(rows: list[Delivery], *, link, decisions: dict[int, tuple[ApprovalPreview, str]]) -> dict[str, Any]:
    """The Block Kit message for these rows: a line each, linking to the
    item; an approval with its input and its buttons (`decisions`: row id ->
    the approval and its token, made for this message)."""
    blocks: list[dict[str, Any]] = []
    interactive = interactive_for(rows[0].user) if decisions else False
    for index, row in enumerate(rows):
        away = f" (for {row.on_behalf_of}, who is away)" if row.on_behalf_of else ""
        detail = f"\n{escaped(row.detail)}" if row.detail else ""
        line = f"*<{link(row.path)}|{escaped(row.title)}>*{away}{detail}"
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": line}})
        if row.pk in decisions:
            preview, secret = decisions[row.pk]
            blocks += decision_blocks(index=index, preview=preview, secret=secret, interactive=interactive, link=link)
    text = "\n".join(
        f"• <{link(row.path)}|{escaped(row.title)}>" + (f" {escaped(row.detail)}" if row.detail else "") for row in rows
    )
    return {"text": text, "blocks": blocks[:50]}  # Slack takes 50 blocks in a message


def _answer_slack(response_url: str, body: dict[str, Any]) -> None:
    """Post to the payload's response_url: only Slack's own https address
    (plain http only in development, REACH_WEBHOOK_ALLOW_HTTP), never elsewhere."""
    parts = urlsplit(response_url)
    slack_host = parts.scheme == "https" and (parts.hostname or "").endswith(".slack.com")
    if not (slack_host or (settings.REACH_WEBHOOK_ALLOW_HTTP and parts.scheme in ("http", "https"))):
        logger.warning("reach: Slack response_url refused (%s)", parts.hostname)
        return
    try:
        httpx.post(response_url, json=body, timeout=float(settings.REACH_WEBHOOK_TIMEOUT))
    except httpx.HTTPError as exc:
        logger.warning("reach: Slack response_url not reached (%s)", type(exc).__name__)


def _tell(response_url: str, words: str) -> None:
    """Only the person who pressed sees it; the message stays."""
    _answer_slack(response_url, {"response_type": "ephemeral", "replace_original": False, "text": words})


def _action(payload: dict[str, Any]) -> dict[str, Any]:
    actions = payload.get("actions")
    first = actions[0] if isinstance(actions, list) and actions else {}
    return first if isinstance(first, dict) else {}


def _clicked(payload: dict[str, Any], *, response_url: str) -> None:
    action = _action(payload)
    decision = str(action.get("action_id") or "").split(":", 1)[0]
    if decision not in ("approve", "reject"):
        return  # a button that opens the confirmation page: Slack tells us of the click, nothing to do
    user = payload.get("user")
    slack_user = str(user.get("id") or "") if isinstance(user, dict) else ""
    token = token_find(str(action.get("value") or ""))
    if token is None or token.via != VIA_SLACK:
        _tell(response_url, UNKNOWN)
        return
    saved = NotificationPreference.objects.filter(user_id=token.user_id).values_list("slack_user_id", flat=True).first()
    if not slack_user or not saved or slack_user != saved:
        _tell(
            response_url,
            f"This button is for {token_person(token)}: it decides nothing for anyone else. "
            "Open the approval in the console to decide it yourself.",
        )
        return
    try:
        redeemed = token_redeem(token=token, decision=decision)
    except ApiError as exc:
        _tell(response_url, f"The service could not be reached ({exc.message}): nothing was decided. Press again.")
        return
    if not redeemed.decided:
        _tell(response_url, redeemed.words)
        return
    verb = "Rejected" if redeemed.status == "rejected" else "Approved"
    said = f"{verb} by {token_person(token)} from Slack. {redeemed.words}"
    _answer_slack(
        response_url,
        {
            "replace_original": True,
            "text": said,
            "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": said}}],
        },
    )


@csrf_exempt  # Slack signs its requests (checked below); it holds no session nor CSRF token
@login_not_required
@require_POST
def interactivity(request: HttpRequest) -> HttpResponse:
    """Slack's Request URL for interactivity: a verified click decides (once,
    as the button's person); anything else is refused with 401 and words."""
    body = request.body
    refusal = request_refusal(
        timestamp=request.headers.get("X-Slack-Request-Timestamp", ""),
        signature=request.headers.get("X-Slack-Signature", ""),
        body=body,
    )
    if refusal:
        return HttpResponse(refusal, status=401, content_type="text/plain; charset=utf-8")
    try:
        payload = json.loads(request.POST.get("payload", ""))
    except ValueError:
        return HttpResponse("The request carries no payload.", status=400, content_type="text/plain; charset=utf-8")
    if not isinstance(payload, dict) or payload.get("type") != "block_actions":
        return HttpResponse(status=200)
    _clicked(payload, response_url=str(payload.get("response_url") or ""))
    return HttpResponse(status=200)
