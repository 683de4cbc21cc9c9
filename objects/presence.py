"""Presence on records: "Dana is viewing" / "Dana is editing Amount" on a
record's page and a marker on the grid's rows others have open.

No new infrastructure: the record page and the grid already poll the
console; their presence region polls every ~2 s while the page is visible
(static/js/objects.js), and that poll is the heartbeat. One row per open
page (RecordPresence, keyed by the person and a token made when the page was
rendered), upserted by each poll; a page that stops beating is gone for
others after PRESENCE_SECONDS, and leaving it (pagehide, a hidden tab: a
beacon) deletes its row at once. Reads are one query on the console's
database, never a remote call; the answer is 204 while what a page shows of
the others is unchanged (its version in the poll URL).

Access follows the key: the views pass the workspace of a working key only,
so presence of a workspace is never shown to, nor written by, anyone else.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone

from objects.models import RecordPresence
from objects.selectors import object_definition_cache_key

# A page whose beats stopped (closed without a beacon, the laptop shut) is
# gone for others this long after its last one: 4 polls missed at ~2 s.
PRESENCE_SECONDS = 8
# Rows older than this are deleted by `objects.presence_prune` (beat): they
# are shown to no one already, this only bounds the table.
PRESENCE_KEEP_SECONDS = 3600
# How often a visible page beats (static/js/objects.js reads it from the region).
PRESENCE_POLL_SECONDS = 2

# A page's token as presence_token() makes it; anything else is refused.
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,32}")
# A record id or field key as an address carries it (dashboard/web/converters.py).
_REMOTE_ID = re.compile(r"[^/\x00-\x1f\x7f-\x9f]{1,200}")


def presence_token() -> str:
    """A page's own token: its row among the person's open pages."""
    return secrets.token_urlsafe(16)


def presence_vals(*, token: str, record_id: str) -> str:
    """What every poll of a region sends (its hx-vals): the page's token and
    the record page's record (the grid's open editor is added by presence.js)."""
    return json.dumps({"token": token, "record": record_id} if record_id else {"token": token})


def valid_token(raw: str) -> str:
    """`raw` when it is a token presence_token() could have made, else ""."""
    return raw if _TOKEN.fullmatch(raw or "") else ""


def valid_remote_id(raw: str) -> str:
    return raw if _REMOTE_ID.fullmatch(raw or "") else ""


def person_name(user: Any) -> str:
    """A person as the console names them elsewhere: their name, else their username."""
    return (user.get_full_name() or "").strip() or user.get_username()


def field_label_cached(*, workspace_id: str, object_key: str, field_key: str) -> str:
    """The label of `field_key` from the object's cached definition (the page
    that beats has just read it), "" when the object has no such field. Never
    a remote call: a definition not in the cache names the field by its key."""
    if not field_key:
        return ""
    definition = cache.get(object_definition_cache_key(workspace_id=workspace_id, object_key=object_key))
    if not isinstance(definition, dict):
        return field_key
    for raw in definition.get("fields") or []:
        if isinstance(raw, dict) and raw.get("key") == field_key:
            return str(raw.get("label") or field_key)[:200]
    return ""


# ---- writes ----


def presence_beat(
    *,
    user: Any,
    token: str,
    workspace_id: str,
    object_key: str,
    record_id: str,
    field_key: str = "",
    now: datetime | None = None,
) -> None:
    """This page of `user` has `record_id` open (editing `field_key`, or
    only viewing): one upsert. A page with no record open (the grid with no
    editor) has no row: it is deleted."""
    if not (workspace_id and token):
        return
    if not record_id:
        presence_end(user=user, token=token)
        return
    label = field_label_cached(workspace_id=workspace_id, object_key=object_key, field_key=field_key)
    # One statement whether or not the page has a row yet (its token is its own).
    RecordPresence.objects.bulk_create(
        [
            RecordPresence(
                user=user,
                token=token,
                workspace_id=workspace_id,
                object_key=object_key,
                record_id=record_id,
                field_key=field_key if label else "",
                field_label=label,
                seen_at=now or timezone.now(),
            )
        ],
        update_conflicts=True,
        unique_fields=["user", "token"],
        update_fields=["workspace_id", "object_key", "record_id", "field_key", "field_label", "seen_at"],
    )


def presence_end(*, user: Any, token: str) -> int:
    """This page was left: gone for others at once (only the person's own row)."""
    if not token:
        return 0
    deleted, _ = RecordPresence.objects.filter(user_id=user.pk, token=token).delete()
    return deleted


def presence_prune(*, now: datetime | None = None) -> int:
    """Rows no one is shown any more (beat, hourly)."""
    cutoff = (now or timezone.now()) - timedelta(seconds=PRESENCE_KEEP_SECONDS)
    deleted, _ = RecordPresence.objects.filter(seen_at__lt=cutoff).delete()
    return deleted


# ---- reads ----


@dataclass(frozen=True)
class Present:
    """One other person on one record: viewing, or editing a field."""

    user_id: int
    name: str
    record_id: str
    field_label: str = ""

    @property
    def words(self) -> str:
        return f"{self.name} is editing {self.field_label}" if self.field_label else f"{self.name} is viewing"


@dataclass(frozen=True)
class Presence:
    """Who else has records of one object open, as a page shows them."""

    people: tuple[Present, ...]
    version: str

    def of(self, record_id: str) -> list[Present]:
        return [present for present in self.people if present.record_id == record_id]

    @property
    def names(self) -> list[str]:
        """Each person once, by name (the grid's line)."""
        seen: dict[int, str] = {}
        for present in self.people:
            seen.setdefault(present.user_id, present.name)
        return sorted(seen.values(), key=str.casefold)

    @property
    def by_record(self) -> dict[str, list[Present]]:
        grouped: dict[str, list[Present]] = {}
        for present in self.people:
            grouped.setdefault(present.record_id, []).append(present)
        return grouped


def presence_of_others(
    *, viewer: Any, workspace_id: str, object_key: str, record_id: str = "", now: datetime | None = None
) -> Presence:
    """The others (never `viewer`) with a fresh beat on `record_id` of the
    object (every record of it when none is given), one entry per person and
    record (editing wins over viewing), by name: one query, whoever is there.
    The version changes when who is there, or what they edit, does."""
    if not workspace_id:
        return Presence(people=(), version="none")
    since = (now or timezone.now()) - timedelta(seconds=PRESENCE_SECONDS)
    rows = (
        RecordPresence.objects.filter(workspace_id=workspace_id, object_key=object_key, seen_at__gte=since)
        .filter(Q(record_id=record_id) if record_id else Q())
        .exclude(user_id=viewer.pk)
        .select_related("user")
        .order_by("record_id", "user_id", "-seen_at")
    )
    chosen: dict[tuple[str, int], Present] = {}
    for row in rows:
        key = (row.record_id, row.user_id)
        if key not in chosen or (row.field_label and not chosen[key].field_label):
            chosen[key] = Present(
                user_id=row.user_id, name=person_name(row.user), record_id=row.record_id, field_label=row.field_label
            )
    people = tuple(sorted(chosen.values(), key=lambda p: (p.record_id, p.name.casefold(), p.user_id)))
    shown = "\n".join(f"{p.record_id}\t{p.user_id}\t{p.name}\t{p.field_label}" for p in people)
    version = hashlib.blake2s(shown.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return Presence(people=people, version=version)
