"""What the Studio adds to the home page (dashboard/frame/home.py): the
person's recent conversations and what they work on (the artifact), from
their tracked `studio.turn` rows (the console's database only), and the
"New turn" quick action."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from dashboard.frame.home import HomeAction, HomeSection, HomeViewer, waited_words
from dashboard.live.models import TrackedOperation
from dashboard.web.reading import as_dict, text
from studio.forms import STUDIO_LABELS
from studio.library import KIND_OF_STUDIO
from studio.live import TURN_KIND
from studio.reading import usable_id
from studio.selectors import conversation_id_of

CONVERSATIONS_SHOWN = 5


@dataclass(frozen=True)
class RecentConversation:
    latest: TrackedOperation
    studio: str  # "Website"
    artifact_name: str
    artifact_url: str  # its library page, when the console can show one
    turn_count: int
    when: str  # "3 h" since the latest turn


def _artifact(studio: str, ops: list[TrackedOperation]) -> tuple[str, str]:
    """(name, library url) of the artifact the conversation works on: its newest turn that names one."""
    for op in ops:
        artifact = as_dict(as_dict(op.snapshot).get("artifact"))
        name, artifact_id = text(artifact.get("name") or artifact.get("title")), text(artifact.get("id"))
        if name or artifact_id:
            kind = KIND_OF_STUDIO.get(studio)
            url = (
                reverse("studio:library_item", args=[kind.slug, artifact_id])
                if kind is not None and usable_id(artifact_id)
                else ""
            )
            return name, url
    return "", ""


def recent_conversations(viewer: HomeViewer) -> HomeSection | None:
    """The person's latest conversations, newest activity first, from their
    latest tracked work (`viewer.operations`: the query the inbox's items share)."""
    rows = [op for op in viewer.operations if op.kind == TURN_KIND]
    grouped: dict[str, list[TrackedOperation]] = {}
    for op in rows:
        grouped.setdefault(conversation_id_of(op) or f"turn-{op.pk}", []).append(op)
    conversations = []
    for ops in list(grouped.values())[:CONVERSATIONS_SHOWN]:
        latest = ops[0]
        studio = text(as_dict(latest.snapshot).get("studio") or as_dict(latest.context).get("studio"))
        name, url = _artifact(studio, ops)
        conversations.append(
            RecentConversation(
                latest=latest,
                studio=STUDIO_LABELS.get(studio, studio.capitalize() or "Studio"),
                artifact_name=name,
                artifact_url=url,
                turn_count=len(ops),
                when=waited_words(latest.created_at, viewer.now),
            )
        )
    context: dict[str, Any] = {"conversations": conversations}
    return HomeSection(
        title="Your recent Studio conversations",
        template="studio/home_section.html",
        context=context,
        has_items=bool(conversations),
        empty="Conversations you have with a studio director, and what they make, appear here.",
        more=("All conversations", reverse("studio:index") + "#recent-heading"),
        actions=(HomeAction("New turn", reverse("studio:index") + "#start-turn-heading"),) if viewer.can_write else (),
    )
