"""What the Studio adds to the inbox (dashboard/inbox/sources.py), from the
console's database only: this person's turns whose director asks questions
(needs_input), video turns that left pending requests (actions that need a
confirmation and payment), and turns that failed lately. A turn answered by
a later turn of the same conversation (or on the same artifact) has left."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import ngettext

from dashboard.inbox.selectors import failures_since
from dashboard.inbox.sources import (
    ACTION_ANSWER,
    KIND_FAILED,
    KIND_QUESTION,
    KIND_VIDEO,
    InboxItem,
    InboxSource,
    InboxViewer,
)
from dashboard.live.models import TrackedOperation
from dashboard.web.reading import as_dict, as_list, text
from studio.live import TURN_KIND, read_turn

SOURCE = "studio"


def _threads(op: TrackedOperation, turn: dict) -> set[str]:
    """What a later turn continues: the conversation, the artifact."""
    context = op.context or {}
    return {
        value
        for value in (
            f"conversation:{turn['conversation_id']}" if turn["conversation_id"] else "",
            f"artifact:{text(context.get('artifact_id') or turn['artifact'].get('id'))}"
            if (context.get("artifact_id") or turn["artifact"].get("id"))
            else "",
        )
        if value
    }


def _short(message: str, limit: int = 120) -> str:
    message = " ".join(message.split())
    return f"{message[:limit]}…" if len(message) > limit else message


def items(viewer: InboxViewer) -> list[InboxItem]:
    cutoff = failures_since()
    ops = [op for op in viewer.operations if op.kind == TURN_KIND]
    later: set[str] = set()  # threads a newer turn continues (newest first)
    found = []
    for op in ops:
        snapshot = op.snapshot if isinstance(op.snapshot, dict) else {}
        turn = read_turn(op, snapshot)
        threads = _threads(op, turn)
        answered = bool(threads & later)
        later |= threads
        if answered or not op.is_final:
            continue
        studio = turn["studio"] or "Studio"
        pending = as_list(as_dict(turn["video"]).get("pending_requests"))
        common = {
            "started_by": op.started_by.get_username(),
            "url": reverse("studio:turn", args=[op.pk]),
            "area": SOURCE,
        }
        if op.status == "needs_input":
            question = next((q["text"] for q in turn["questions"] if q.get("text")), "") or turn["message"]
            title = (
                f"The {studio} director asks: {_short(question)}"
                if question
                else f"The {studio} director needs an answer"
            )
            # Which brief it is about: two turns waiting read alike otherwise.
            if op.title and _short(op.title, 80) != _short(question, 80):
                title = f"{title} (about “{_short(op.title, 80)}”)"
            found.append(
                InboxItem(
                    key=f"turn:{op.pk}",
                    kind=KIND_QUESTION,
                    title=title,
                    since=op.updated_at,
                    action=ACTION_ANSWER,
                    **common,
                )
            )
        elif pending and op.status == "completed":
            count = len(pending)
            title = ngettext(
                "%(count)s video request waits for your go-ahead (%(title)s)",
                "%(count)s video requests wait for your go-ahead (%(title)s)",
                count,
            ) % {"count": count, "title": _short(op.title, 80)}
            found.append(InboxItem(key=f"turn:{op.pk}", kind=KIND_VIDEO, title=title, since=op.updated_at, **common))
        elif op.status in ("failed", TrackedOperation.STATUS_STOPPED) and op.updated_at >= cutoff:
            reason = turn["error_message"] or op.last_error
            title = f"A {studio} turn failed" + (f": {_short(reason)}" if reason else "") + f" ({_short(op.title, 80)})"
            found.append(InboxItem(key=f"turn:{op.pk}", kind=KIND_FAILED, title=title, since=op.updated_at, **common))
    return found


STUDIO_INBOX = InboxSource(name=SOURCE, items=items)
