"""Comments on records, @mentions and watching a record: kept by the console
(the service has no comments), for one workspace each.

Access follows the key: every read and write here is by the workspace id of
the person's working key (`request.workspace.id`, which raises for a refused
key), and a mention names only people who hold a working key of that
workspace (`dashboard.reach.selectors.workspace_people`). What reaches people
is a `RecordNews` row per person (their inbox, `record_news_items`, the
database only) and, for a mention, a notification by their preferences
(`dashboard.reach.producing.notify`): the channels, cadence, quiet hours and
delegate they chose; a mention is something waiting for them, so it follows
"My runs and turns that failed or wait for me", and a person who never saved
preferences gets none (only escalations, as everywhere).

Who may do what (the views guard it): writing or editing a comment publishes
to the workspace, so it needs a role that writes, like sharing a view;
withdrawing one's own comment is always allowed (as with what one shared);
an Administrator may delete anyone's comment (they moderate what the
workspace's people see; they cannot edit it, so nobody's words are changed
under their name). Watching is a person's own choice: every role.
"""

from __future__ import annotations

import hashlib
import logging
import re
import uuid
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString

from dashboard.inbox.sources import KIND_RECORD, InboxItem, InboxSource, InboxViewer
from dashboard.outbox.services import outbox_send
from dashboard.people.roles import MANAGE_PEOPLE
from dashboard.reach.producing import notify
from dashboard.reach.selectors import preferences_of, workspace_people
from dashboard.web.markdown import markdown_html
from objects.access_reads import people_told_of
from objects.models import RecordComment, RecordNews, RecordWatch
from objects.names import record_url, title_cache_key

logger = logging.getLogger("objects.comments")

MAX_BODY = 10_000  # characters of one comment
# "@dana", "@dana.lee", "@dana+ops": a Django username's characters; not an e-mail address's "@".
MENTION = re.compile(r"(?<![\w@.+-])@([\w.@+-]{1,150})")
KIND_MENTION_NEWS = "mention"  # the notifications' kind (dashboard/reach Delivery.kind)
# The inbox lists a person's newest this many.
INBOX_MOST = 100
# Set while a job's chunk runs (objects/job_news.py `by_job`): its watchers hear of the
# whole job once, when it ends, not of each record it writes.
CHANGES_BY_JOB: ContextVar[bool] = ContextVar("objects_changes_by_job", default=False)


def _where(*, workspace_id: str, object_key: str, record_id: str) -> dict[str, str]:
    return {"workspace_id": workspace_id, "object_key": object_key, "record_id": record_id}


def comment_anchor(comment: RecordComment) -> str:
    return f"{record_url(comment.object_key, comment.record_id)}#comment-{comment.pk}"


# --- mentions ------------------------------------------------------------------------


def mentioned_names(body: str) -> list[str]:
    """The usernames a comment names with "@", in order, once each (a
    sentence's full stop after a name is not part of it)."""
    names = [match.rstrip(".") for match in MENTION.findall(body)]
    return list(dict.fromkeys(name.lower() for name in names if name))


def mentioned_people(*, workspace_id: str, body: str) -> list:
    """The people a comment mentions who hold a working key of its workspace
    (no one else is told, whatever the comment names)."""
    names = set(mentioned_names(body))
    if not names:
        return []
    return [person for person in workspace_people(workspace_id) if person.get_username().lower() in names]


MENTION_SUGGESTIONS = 8  # people offered as one types "@da"


@dataclass(frozen=True)
class MentionCandidate:
    username: str
    name: str  # the full name, or "" when the account has none


def mention_candidates(*, workspace_id: str, typed: str) -> list[MentionCandidate]:
    """People the comment box offers after "@" and `typed`: those whose
    username or name begins with it (a word of the name), only among people
    holding a working key of the workspace (whom a mention reaches), by
    username (one query)."""
    typed = typed.strip().lstrip("@").lower()
    found = []
    for person in workspace_people(workspace_id):
        username = person.get_username()
        name = (person.get_full_name() if hasattr(person, "get_full_name") else "").strip()
        words = [username.lower(), *name.lower().split()]
        if not typed or any(word.startswith(typed) for word in words):
            found.append(MentionCandidate(username=username, name=name))
    found.sort(key=lambda candidate: candidate.username.lower())
    return found[:MENTION_SUGGESTIONS]


# --- reads ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CommentRow:
    comment: RecordComment
    html: SafeString
    mine: bool
    may_delete: bool


def record_comments(*, user, workspace_id: str, object_key: str, record_id: str) -> list[CommentRow]:
    """The record's comments, oldest first, rendered (one query, however many)."""
    moderator = user.has_perm(MANAGE_PEOPLE, workspace_id)
    rows = RecordComment.objects.filter(**_where(workspace_id=workspace_id, object_key=object_key, record_id=record_id))
    return [
        CommentRow(
            comment=row,
            html=markdown_html(row.body),
            mine=row.author_id == user.pk,
            may_delete=row.author_id == user.pk or moderator,
        )
        for row in rows
    ]


def comment_of(*, workspace_id: str, object_key: str, record_id: str, pk: int) -> RecordComment | None:
    """One comment of the record, only in the workspace of the person's key."""
    return RecordComment.objects.filter(
        pk=pk, **_where(workspace_id=workspace_id, object_key=object_key, record_id=record_id)
    ).first()


def watching(*, user, workspace_id: str, object_key: str, record_id: str) -> tuple[bool, int]:
    """(whether this person watches the record, how many people do): one query."""
    found = RecordWatch.objects.filter(
        **_where(workspace_id=workspace_id, object_key=object_key, record_id=record_id)
    ).aggregate(count=Count("pk"), mine=Count("pk", filter=Q(user_id=user.pk)))
    return bool(found["mine"]), int(found["count"])


# --- writes --------------------------------------------------------------------------


def _tell(
    people: Iterable,
    *,
    workspace_id: str,
    object_key: str,
    record_id: str,
    kind: str,
    title: str,
    actor: str,
    comment: RecordComment | None = None,
) -> list[RecordNews]:
    # The object's access policy: nobody hears of a record it may hide from them.
    people = people_told_of(workspace_id=workspace_id, object_key=object_key, people=list(people))
    rows = [
        RecordNews(
            user=person,
            kind=kind,
            title=title[:300],
            actor=actor[:150],
            comment=comment,
            **_where(workspace_id=workspace_id, object_key=object_key, record_id=record_id),
        )
        for person in people
    ]
    if rows:
        RecordNews.objects.bulk_create(rows)
        told: set[int] = {row.user.pk for row in rows}
        transaction.on_commit(lambda: news_changed_of(told, workspace_id=workspace_id))
    return rows


def _mention(people: list, *, comment: RecordComment, record_title: str, actor: str) -> None:
    """Mentioned people: an inbox item each, and a notification by their preferences
    (only those the object's access policy lets hear of the record)."""
    people = people_told_of(workspace_id=comment.workspace_id, object_key=comment.object_key, people=people)
    title = f"{actor} mentioned you on {record_title}"
    where = _where(workspace_id=comment.workspace_id, object_key=comment.object_key, record_id=comment.record_id)
    _tell(people, kind=RecordNews.Kind.MENTION, title=title, actor=actor, comment=comment, **where)
    now, made = timezone.now(), 0
    for person in people:
        preference = preferences_of(person)
        if preference.pk is None or not preference.my_work_needs_me:
            continue
        made += notify(
            user=person,
            preference=preference,
            workspace_id=comment.workspace_id,
            item_key=f"comment:{comment.pk}:mention:{person.pk}",
            kind=KIND_MENTION_NEWS,
            title=title,
            path=comment_anchor(comment),
            now=now,
            digest=True,
            detail=comment.body[:200],
        )
    if made:
        transaction.on_commit(lambda: outbox_send(task="reach.deliver_due", args=[]))


def _watches(*, workspace_id: str, object_key: str, record_id: str, besides: set[int]) -> list[RecordWatch]:
    """The record's watches by active people, but `besides`, newest first (one query)."""
    rows = (
        RecordWatch.objects.filter(**_where(workspace_id=workspace_id, object_key=object_key, record_id=record_id))
        .exclude(user_id__in=besides)
        .select_related("user")
        .order_by("-created_at", "-pk")
    )
    return [watch for watch in rows if watch.user.is_active]


def _still_in(workspace_id: str, people: list) -> list:
    """Only people holding a working key of the workspace hear of it (access follows the key)."""
    holders = {person.pk for person in workspace_people(workspace_id)}
    return [person for person in people if person.pk in holders]


def comment_post(
    *,
    user,
    workspace_id: str,
    object_key: str,
    record_id: str,
    record_title: str,
    body: str,
    uid: uuid.UUID | None = None,
) -> RecordComment:
    """A new comment: mentioned people are told (inbox and notification),
    then the record's other watchers (inbox). The same form sent again
    (`uid`) gives back its first comment and tells nobody twice."""
    actor = user.get_username()
    if uid is not None and (first := RecordComment.objects.filter(uid=uid, author=user).first()) is not None:
        return first
    try:
        with transaction.atomic():
            return _comment_made(
                user=user,
                actor=actor,
                workspace_id=workspace_id,
                object_key=object_key,
                record_id=record_id,
                record_title=record_title,
                body=body,
                uid=uid,
            )
    except IntegrityError:
        # Both sends at once: the other one made it.
        return RecordComment.objects.get(uid=uid, author=user)


def _comment_made(
    *, user, actor: str, workspace_id: str, object_key: str, record_id: str, record_title: str, body: str, uid
) -> RecordComment:
    comment = RecordComment.objects.create(
        author=user,
        author_name=actor,
        body=body,
        uid=uid,
        **_where(workspace_id=workspace_id, object_key=object_key, record_id=record_id),
    )
    mentioned = [person for person in mentioned_people(workspace_id=workspace_id, body=body) if person.pk != user.pk]
    _mention(mentioned, comment=comment, record_title=record_title, actor=actor)
    besides = {user.pk, *(person.pk for person in mentioned)}
    watches = _watches(workspace_id=workspace_id, object_key=object_key, record_id=record_id, besides=besides)
    watchers = _still_in(workspace_id, [watch.user for watch in watches]) if watches else []
    _tell(
        watchers,
        workspace_id=workspace_id,
        object_key=object_key,
        record_id=record_id,
        kind=RecordNews.Kind.COMMENT,
        title=f"{actor} commented on {record_title}",
        actor=actor,
        comment=comment,
    )
    return comment


def comment_edit(*, comment: RecordComment, user, body: str, record_title: str) -> RecordComment:
    """The author's new text; people it now mentions for the first time are told."""
    before = set(mentioned_names(comment.body))
    with transaction.atomic():
        comment.body = body
        comment.edited_at = timezone.now()
        comment.save(update_fields=["body", "edited_at"])
        new = [
            person
            for person in mentioned_people(workspace_id=comment.workspace_id, body=body)
            if person.pk != user.pk and person.get_username().lower() not in before
        ]
        _mention(new, comment=comment, record_title=record_title, actor=user.get_username())
    return comment


def comment_delete(*, comment: RecordComment) -> None:
    """The comment goes, and the inbox items it made with it (their people's
    header counts are read again)."""
    told = set(RecordNews.objects.filter(comment=comment, seen_at__isnull=True).values_list("user_id", flat=True))
    workspace_id = comment.workspace_id
    with transaction.atomic():
        comment.delete()
        transaction.on_commit(lambda: news_changed_of(told, workspace_id=workspace_id))


def watch_set(*, user, workspace_id: str, object_key: str, record_id: str, on: bool, record_title: str = "") -> None:
    where = _where(workspace_id=workspace_id, object_key=object_key, record_id=record_id)
    if on:
        RecordWatch.objects.update_or_create(
            user=user,
            workspace_id=workspace_id,
            object_key=object_key,
            record_id=record_id,
            defaults={"record_title": record_title[:300]},
        )
    else:
        RecordWatch.objects.filter(user=user, **where).delete()


def record_changed_tell(*, user, workspace_id: str, object_key: str, record_id: str, action_label: str) -> int:
    """A change made through the console (objects/services.py
    `record_change_log`, the one place every edit is written): each watcher
    but the one who made it gets an inbox item (two queries). The record is
    named by the title it was watched under, else the cached one, else "a
    record of <object>"."""
    if not record_id or CHANGES_BY_JOB.get():
        return 0
    watches = _watches(
        workspace_id=workspace_id, object_key=object_key, record_id=record_id, besides={getattr(user, "pk", None) or 0}
    )
    if not watches:
        return 0
    watchers = _still_in(workspace_id, [watch.user for watch in watches])
    actor = user.get_username() if getattr(user, "is_authenticated", False) else "someone"
    known = next((watch.record_title for watch in watches if watch.record_title), "")
    named = known or _known_title(workspace_id=workspace_id, object_key=object_key, record_id=record_id)
    title = f"{actor} changed {named}"
    verb = f" ({action_label.lower()})" if action_label else ""
    return len(
        _tell(
            watchers,
            workspace_id=workspace_id,
            object_key=object_key,
            record_id=record_id,
            kind=RecordNews.Kind.CHANGE,
            title=f"{title}{verb}",
            actor=actor,
        )
    )


def _known_title(*, workspace_id: str, object_key: str, record_id: str) -> str:
    cached = cache.get(title_cache_key(workspace_id=workspace_id, object_key=object_key, record_id=record_id))
    if isinstance(cached, str) and cached:
        return cached
    return f"a record of {object_key}"


def record_news_seen(*, user, workspace_id: str, object_key: str, record_id: str) -> int:
    """The person opened the record: its items leave their inbox (one statement)."""
    seen = RecordNews.objects.filter(
        user=user, seen_at__isnull=True, **_where(workspace_id=workspace_id, object_key=object_key, record_id=record_id)
    ).update(seen_at=timezone.now())
    if seen:
        news_changed(user_id=user.pk, workspace_id=workspace_id)
    return seen


# --- the inbox (dashboard/inbox/sources.py) ----------------------------------------------


def news_url(row: RecordNews) -> str:
    """Where an item opens: the comment, the record's history, or for a job
    that changed several records the person watches, the object's records."""
    if not row.record_id:
        return reverse("objects:records", args=[row.object_key])
    url = record_url(row.object_key, row.record_id)
    return f"{url}#comment-{row.comment_id}" if row.comment_id else f"{url}#history"


def record_news_items(viewer: InboxViewer) -> list[InboxItem]:
    """The person's items about records in the workspace of their working key, newest first."""
    if not viewer.workspace_id:
        return []
    rows = RecordNews.objects.filter(user=viewer.user, workspace_id=viewer.workspace_id, seen_at__isnull=True).order_by(
        "-created_at", "-pk"
    )[:INBOX_MOST]
    items = []
    for row in rows:
        items.append(
            InboxItem(
                key=f"record-news:{row.pk}",
                kind=KIND_RECORD,
                title=row.title,
                started_by=row.actor,
                since=row.created_at,
                url=news_url(row),
                area="objects",
            )
        )
    return items


MARK_SECONDS = 7 * 24 * 3600


def _mark_key(*, user_id: int, workspace_id: str) -> str:
    # Workspace ids are the service's: hashed, so any id makes a key every cache accepts.
    digest = hashlib.sha256(f"{user_id}|{workspace_id}".encode()).hexdigest()[:32]
    return f"objects:news:{digest}"


def news_changed_of(user_ids: set[int], *, workspace_id: str) -> None:
    for user_id in user_ids:
        news_changed(user_id=user_id, workspace_id=workspace_id)


def news_changed(*, user_id: int, workspace_id: str) -> None:
    """The person's record items changed: the header's count is read again on its next poll."""
    cache.set(_mark_key(user_id=user_id, workspace_id=workspace_id), uuid.uuid4().hex, MARK_SECONDS)


def record_news_stamp(viewer: InboxViewer) -> str:
    """No query: a mark in the shared cache that each new or seen item renews."""
    return str(cache.get(_mark_key(user_id=viewer.user.pk, workspace_id=viewer.workspace_id)) or "")


RECORDS_INBOX = InboxSource(name="objects", items=record_news_items, stamp=record_news_stamp)
