"""The team's brief library (issue #36, item 5): saved messages to start a
studio's turn from (studio.models.Brief, BriefVersion).

A brief's words may hold `{{variables}}` ("A launch site for {{product}},
for {{audience}}"): before a turn starts from it, a small form asks for each
one, the words are filled in and put in the Studio's new-conversation form,
where the person reads them and sends (nothing is sent from here).

Who sees what: a brief belongs to the workspace of the key it was made with
(`request.workspace.id`); a private one only to the person who made it, a
shared one to everyone holding a working key of that workspace. Another
workspace's brief, or someone else's private one, is a 404 with no hint it
exists. Anyone who may write edits a shared brief (each edit is a version
naming who made it); only its maker or an Administrator removes it.

Pure parts (`variables_of`, `brief_filled`, `text_problem`) know nothing of
the database. Reads: `briefs_visible`, `brief_get`. Writes: `brief_create`,
`brief_update`, `brief_delete`; a refusal is a `BriefRefused` whose message
is the words to show.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from django.db import transaction
from django.db.models import Q, QuerySet
from django.db.models.functions import Lower
from django.http import Http404

from studio.forms import LONGEST_MESSAGE, MESSAGE_MAX_LENGTH, STUDIO_LABELS, too_long
from studio.models import Brief, BriefVersion

NAME_MAX_LENGTH = 100
MAX_BRIEFS = 500  # per workspace and person: the library stays one page
MAX_VARIABLES = 20
VARIABLE_MAX_LENGTH = 40
VALUE_MAX_LENGTH = 2000
VERSIONS_SHOWN = 50

# `{{ name }}`: letters first, then letters, digits, spaces, - or _.
_BRACES = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_NAME = re.compile(r"[^\W\d_][\w -]*", re.UNICODE)


class BriefRefused(ValueError):
    """A write that was not made; str() is the reason in words, `field` the
    form field it is about ("name", "text", "shared")."""

    def __init__(self, message: str, *, field: str = "text") -> None:
        super().__init__(message)
        self.field = field


def _variable(inside: str) -> str | None:
    name = " ".join(inside.split())
    if name and len(name) <= VARIABLE_MAX_LENGTH and _NAME.fullmatch(name):
        return name
    return None


def variables_of(text: str) -> list[str]:
    """The brief's variables in the order they first appear, each once
    (`{{ Audience }}` and `{{audience}}` are one: the first spelling names it)."""
    found: dict[str, str] = {}
    for match in _BRACES.finditer(text or ""):
        name = _variable(match.group(1))
        if name is not None:
            found.setdefault(name.casefold(), name)
    return list(found.values())


def text_problem(text: str, *, studio: str) -> str | None:
    """Why these words cannot be saved as a brief, in words (None when they can)."""
    if not (text or "").strip():
        return "Write the brief's words."
    for match in _BRACES.finditer(text):
        if _variable(match.group(1)) is None:
            shown = match.group(0) if len(match.group(0)) <= 50 else match.group(0)[:47] + "…"
            return (
                f"“{shown}” is not a variable: a variable is a name in double braces, "
                f"starting with a letter, at most {VARIABLE_MAX_LENGTH} characters, such as {{{{audience}}}}."
            )
    if len(variables_of(text)) > MAX_VARIABLES:
        return f"A brief takes at most {MAX_VARIABLES} variables."
    limit = MESSAGE_MAX_LENGTH.get(studio, LONGEST_MESSAGE)
    if len(text) > limit:
        return too_long(studio, text)
    return None


def brief_filled(text: str, values: Mapping[str, str]) -> str:
    """The words with each `{{variable}}` replaced by its value (matched
    whatever the case and spacing inside the braces); a variable without a
    value is left as written."""
    by_name = {name.casefold(): value for name, value in values.items()}

    def fill(match: re.Match[str]) -> str:
        name = _variable(match.group(1))
        if name is None or name.casefold() not in by_name:
            return match.group(0)
        return by_name[name.casefold()]

    return _BRACES.sub(fill, text)


def studio_words(studio: str) -> str:
    return STUDIO_LABELS.get(studio, "Any studio")


# --- reads ---------------------------------------------------------------------


def briefs_visible(*, workspace_id: str, user_id: int | None, query: str = "") -> QuerySet[Brief]:
    """The briefs this person sees here: theirs and the workspace's shared
    ones, by name; `query` matches the name or the words."""
    if not workspace_id:
        return Brief.objects.none()
    briefs = Brief.objects.filter(workspace_id=workspace_id).filter(Q(shared=True) | Q(created_by_id=user_id))
    words = " ".join((query or "").split())[:200]
    if words:
        briefs = briefs.filter(Q(name__icontains=words) | Q(text__icontains=words))
    return briefs.select_related("created_by").order_by(Lower("name"), "id")


def brief_get(*, workspace_id: str, user_id: int | None, brief_id: int) -> Brief:
    """A brief this person may see; 404 for any other, with no hint it exists."""
    found = briefs_visible(workspace_id=workspace_id, user_id=user_id).filter(pk=brief_id).first()
    if found is None:
        raise Http404("No such brief.")
    return found


def brief_versions(*, brief: Brief) -> list[BriefVersion]:
    return list(brief.versions.select_related("made_by").order_by("-number")[:VERSIONS_SHOWN])


def may_remove(*, brief: Brief, user_id: int | None, is_administrator: bool) -> bool:
    return is_administrator or (user_id is not None and brief.created_by_id == user_id)


# --- writes --------------------------------------------------------------------


def _clean(*, name: str, text: str, studio: str) -> tuple[str, str, str]:
    name = " ".join((name or "").split())
    if not name:
        raise BriefRefused("Give the brief a name.", field="name")
    if len(name) > NAME_MAX_LENGTH:
        raise BriefRefused(f"A brief's name takes at most {NAME_MAX_LENGTH} characters.", field="name")
    studio = studio if studio in MESSAGE_MAX_LENGTH else ""
    if problem := text_problem(text, studio=studio):
        raise BriefRefused(problem)
    return name, text, studio


def brief_create(*, workspace_id: str, user_id: int, name: str, text: str, studio: str, shared: bool) -> Brief:
    name, text, studio = _clean(name=name, text=text, studio=studio)
    with transaction.atomic():
        if Brief.objects.filter(workspace_id=workspace_id, created_by_id=user_id).count() >= MAX_BRIEFS:
            raise BriefRefused(
                f"You have {MAX_BRIEFS} briefs here, the most one person keeps: remove one first.", field="name"
            )
        brief = Brief.objects.create(
            workspace_id=workspace_id,
            name=name,
            text=text,
            studio=studio,
            shared=shared,
            created_by_id=user_id,
        )
        BriefVersion.objects.create(brief=brief, number=1, name=name, text=text, made_by_id=user_id)
    return brief


def brief_update(*, brief: Brief, user_id: int, name: str, text: str, studio: str, shared: bool) -> Brief:
    """Save an edit as the brief's next version (nothing new when nothing
    changed). Only its maker makes a private brief shared or a shared one private."""
    name, text, studio = _clean(name=name, text=text, studio=studio)
    if shared != brief.shared and brief.created_by_id != user_id:
        raise BriefRefused("Only the person who made this brief can change who sees it.", field="shared")
    with transaction.atomic():
        locked = Brief.objects.select_for_update().get(pk=brief.pk)
        words_changed = (locked.name, locked.text) != (name, text)
        if not words_changed and (locked.studio, locked.shared) == (studio, shared):
            return locked
        if words_changed:
            locked.version += 1
            BriefVersion.objects.create(brief=locked, number=locked.version, name=name, text=text, made_by_id=user_id)
        locked.name, locked.text, locked.studio, locked.shared = name, text, studio, shared
        locked.save(update_fields=["name", "text", "studio", "shared", "version", "updated_at"])
    return locked


def brief_delete(*, brief: Brief, user_id: int | None, is_administrator: bool) -> None:
    if not may_remove(brief=brief, user_id=user_id, is_administrator=is_administrator):
        raise BriefRefused("Only the person who made this brief, or an Administrator, can remove it.")
    brief.delete()
