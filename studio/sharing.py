"""Share links (issue #21, item 8): a read-only page of a document or a set
of images for people without an account.

- **A snapshot, not a window**: what is shared is read from the service
  once, when the link is made, with the maker's key, and copied into
  `ShareLink.snapshot`. Opening the link reads only that row: no remote
  call, nobody's key, nothing the viewer can steer towards the workspace.
  A document shared is what it was at that moment (or the kept version
  picked); a later revision needs a new link.
- **The token is the credential**: 32 random bytes (`secrets`), shown once
  in the address; only its SHA-256 is stored, so a database read gives no
  working link. An unknown, revoked or expired token is the same 404 page
  in words (a stranger learns nothing about which links once existed).
- **Expiring and revocable**: 1, 7 (the default) or 30 days, the maker
  picks; a list of one's links in the workspace with Revoke.
- **Images**: the service's asset `url` is the address of the stored file
  (the contract), fetched without a key, so the page shows those addresses
  where the CSP's img-src allows their host, and names the host with a link
  otherwise (the frame's `images` template library), as the console does.
- Making and revoking a link are console writes about the workspace's
  content, audited in its trail (`audit_console_write`).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from dashboard.audit.services import audit_console_write
from dashboard.keys.models import ApiKey
from dashboard.web.reading import as_dict, text
from studio.documents import read_document
from studio.models import ShareLink

DAYS_CHOICES = (1, 7, 30)
DEFAULT_DAYS = 7
MAX_IMAGES = 100  # a board's first page of images (studio.library.IMAGE_LIMIT)
# Opens of share links per address per minute: enough for a person reading
# and sharing on, low enough that guessing tokens (hopeless at 256 bits
# anyway) or scraping costs a crawler its minute.
OPEN_LIMIT = 60
OPEN_WINDOW_SECONDS = 60


def share_token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def document_snapshot(raw: Any) -> dict[str, Any]:
    """What a shared document keeps of `GET /v1/documents/{id}` (or of a kept
    version's body): its name, type and content as sent, never ids or links
    back into the workspace."""
    doc = as_dict(raw)
    return {
        "name": text(doc.get("name") or doc.get("title")),
        "doc_type": text(doc.get("doc_type") or doc.get("type")),
        "content": doc.get("content") if isinstance(doc.get("content"), (str, dict)) else text(doc.get("content")),
        "format": text(doc.get("format")),
    }


def images_snapshot(images: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a shared image keeps: its file's address, size and prompt (no
    asset or board id: the viewer has no use for them)."""
    return [
        {
            "url": image["url"],
            "prompt": image.get("prompt", ""),
            "width": image.get("width"),
            "height": image.get("height"),
        }
        for image in images[:MAX_IMAGES]
        if image.get("url")
    ]


def share_create(
    *,
    user: Any,
    workspace_id: str,
    key: ApiKey | None,
    kind: str,
    title: str,
    source_id: str,
    snapshot: dict[str, Any],
    days: int,
    version_pk: int | None = None,
) -> tuple[ShareLink, str]:
    """Keep the snapshot behind a new token; the token (shown once) and the row."""
    if days not in DAYS_CHOICES:
        days = DEFAULT_DAYS
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    with transaction.atomic():
        link = ShareLink.objects.create(
            token_hash=share_token_hash(token),
            workspace_id=workspace_id,
            created_by=user,
            kind=kind,
            title=(title or "Untitled")[:300],
            source_id=source_id[:128],
            version_pk=version_pk,
            snapshot=snapshot,
            expires_at=now + timedelta(days=days),
        )
        what = "document" if kind == ShareLink.DOCUMENT else "images"
        audit_console_write(
            actor=user,
            workspace_id=workspace_id,
            key=key,
            area="studio",
            action="share_created",
            path=reverse("studio:shares"),
            summary=f"Shared the {what} “{link.title}” by link until {link.expires_at:%Y-%m-%d %H:%M} UTC",
            details={"share": link.pk, "kind": kind, "source": source_id, "days": days},
        )
    return link, token


def share_revoke(*, user: Any, workspace_id: str, key: ApiKey | None, pk: int) -> ShareLink | None:
    """Revoke one of `user`'s links in this workspace (None: no such link).
    Revoking twice changes nothing and is recorded once."""
    with transaction.atomic():
        link = ShareLink.objects.select_for_update().filter(pk=pk, workspace_id=workspace_id, created_by=user).first()
        if link is None or link.revoked_at is not None:
            return link
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
        audit_console_write(
            actor=user,
            workspace_id=workspace_id,
            key=key,
            area="studio",
            action="share_revoked",
            path=reverse("studio:share_revoke", args=[link.pk]),
            summary=f"Revoked the share link to “{link.title}”",
            details={"share": link.pk, "kind": link.kind},
        )
    return link


def share_for_token(token: str, *, now: datetime | None = None) -> ShareLink | None:
    """The open link behind `token` (None when unknown, revoked or expired)."""
    if not token or len(token) > 128:
        return None
    link = ShareLink.objects.filter(token_hash=share_token_hash(token)).first()
    if link is None or not link.is_open(now or timezone.now()):
        return None
    return link


def shares_of(*, user: Any, workspace_id: str) -> list[ShareLink]:
    """One person's share links in one workspace, newest first (one query)."""
    return list(ShareLink.objects.filter(workspace_id=workspace_id, created_by=user).defer("snapshot")[:200])


def shared_page(link: ShareLink) -> dict[str, Any]:
    """What the public page shows of a link's snapshot."""
    snapshot = as_dict(link.snapshot)
    if link.kind == ShareLink.DOCUMENT:
        return {"document": read_document(snapshot.get("document"))}
    return {"images": [as_dict(image) for image in snapshot.get("images") or [] if as_dict(image).get("url")]}
