"""Where the object's access policy (objects/access.py) meets the reads:
who the signed-in person is to the policy (the ONE call of `role_of`),
what they may see and change of an object (`person_access`, kept on the
request's workspace), one record as they may see it (`record_read`), the
records read outside a filter plan (`records_seen`: the palette, the link
picker, the duplicates and trash pages) and why a write is refused.

Every read of a page's records goes through `records.filter_plan`, which
narrows the plan here; a view never checks the policy itself."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext_lazy

from dashboard.api import errors
from dashboard.web.reading import as_dict
from objects import access, selectors
from objects.fields import FieldDef, field_defs
from objects.filters import redacted
from objects.forms import RecordForm

if TYPE_CHECKING:
    from dashboard.frame.workspace import Workspace
    from objects.history import HistoryRow


def access_policy(*, workspace_id: str, object_key: str) -> access.Policy:
    """The object's access policy (an empty one when none was set)."""
    return access.Policy.from_json(selectors.access_policy_stored(workspace_id=workspace_id, object_key=object_key))


def person_of(user: Any, *, workspace_id: str | None = None) -> access.Person:
    """Who reads, as the policy names people: the ONE place it asks for the
    person's console role (`role_of`: in `workspace_id` when named, else in
    the workspace the request acts in)."""
    from dashboard.people.backends import role_of

    if not getattr(user, "is_authenticated", False):
        return access.Person(role="")
    return access.Person.of(role=role_of(user, workspace_id), email=user.email or "", username=user.get_username())


def people_told_of(*, workspace_id: str, object_key: str, people: list) -> list:
    """Of `people`, those who hear of a record of this object (a mention, a
    comment, a change: the news names the record). The record's values are
    not at hand where news is made (a job, a watch), so a person under a
    record rule of the object's access policy hears of none of its records
    (fail closed); without a policy, everyone (no query: it is cached)."""
    policy = access_policy(workspace_id=workspace_id, object_key=object_key)
    if policy.empty:
        return people
    return [
        person
        for person in people
        if not access.access_of(policy, person_of(person, workspace_id=workspace_id)).restricted
    ]


def person_access(*, workspace: Workspace, object_key: str) -> access.Access:
    """What the signed-in person may see and change of the object's records
    (kept on the request's workspace: asked by every part of a page)."""
    kept: dict[str, access.Access] = workspace.__dict__.setdefault("_objects_access", {})
    if object_key not in kept:
        policy = access_policy(workspace_id=workspace.id, object_key=object_key)
        kept[object_key] = access.EVERYTHING if policy.empty else access.access_of(policy, person_of(workspace.user))
    return kept[object_key]


class HiddenRecord(errors.NotFoundError):
    """A record the policy hides reads as one that is not there: its address tells nothing."""

    default_message = "No such record."


def record_read(*, workspace: Workspace, object_key: str, record_id: str) -> dict:
    """One record as this person may see it (objects/access.py): a record the
    policy hides is "not found", a hidden field's value is left out. Every
    page and answer of one record reads it here."""
    record = as_dict(selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id))
    person = person_access(workspace=workspace, object_key=object_key)
    if person.everything:
        return record
    check = access.record_check(person, policy_fields(workspace=workspace, object_key=object_key), zone=workspace.zone)
    if not access.sees(check, record):
        raise HiddenRecord(status=404)
    return redacted(record, person.hidden)


def record_seen_or_hidden(*, workspace: Workspace, object_key: str, record_id: str) -> None:
    """Raises `HiddenRecord` for a record the policy hides from this person,
    before a write by its id (a delete): knowing an id is not seeing the
    record. No call when the policy narrows nothing for them."""
    if not person_access(workspace=workspace, object_key=object_key).everything:
        record_read(workspace=workspace, object_key=object_key, record_id=record_id)


def records_seen(*, workspace: Workspace, object_key: str, records: list[Any]) -> list[dict]:
    """Of records read without a filter plan (the command palette, the link
    picker), those this person may see, without their hidden fields' values."""
    person = person_access(workspace=workspace, object_key=object_key)
    records = [r for r in records if isinstance(r, dict)]
    if person.everything:
        return records
    check = access.record_check(person, policy_fields(workspace=workspace, object_key=object_key), zone=workspace.zone)
    return [redacted(r, person.hidden) for r in records if access.sees(check, r)]


# What a link to or from a record the policy hides shows in its title's place
# (no address). The link belongs to the record the person sees, so it is
# listed, honestly, rather than left out (which would tell them the record
# has fewer links than it has); neither the other record's title nor its id is shown.
UNSEEN_RECORD = gettext_lazy("A record you cannot see")  # str() where shown: the reader's language
# Linked records read per page to check them against their object's policy;
# those past it are not read and count as hidden (fail closed).
MAX_SEEN_LOOKUPS = 50


def linked_hidden(*, workspace: Workspace, refs: Any) -> set[tuple[str, str]]:
    """Of linked records, (object key, record id), those their object's
    access policy hides from this person. One read each, only for an object
    whose policy narrows records for them (no call otherwise); one that cannot
    be read, or past MAX_SEEN_LOOKUPS, counts as hidden."""
    hidden: set[tuple[str, str]] = set()
    checks: dict[str, Any] = {}
    reads = 0
    for object_key, record_id in dict.fromkeys(refs):
        if object_key not in checks:
            person = person_access(workspace=workspace, object_key=object_key)
            checks[object_key] = (
                access.record_check(
                    person, policy_fields(workspace=workspace, object_key=object_key), zone=workspace.zone
                )
                if person.restricted
                else None
            )
        check = checks[object_key]
        if check is None:
            continue
        reads += 1
        try:
            seen = reads <= MAX_SEEN_LOOKUPS and access.sees(
                check,
                as_dict(selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id)),
            )
        except errors.ApiError:
            seen = False
        if not seen:
            hidden.add((object_key, record_id))
    return hidden


def history_links_seen(workspace: Workspace, history: list[HistoryRow]) -> list[HistoryRow]:
    """A record's history (objects/history.py), its links to records their
    object's policy hides named as such, without an address."""
    items = [item for row in history for item in row.links if item.ref[1]]
    unseen = linked_hidden(workspace=workspace, refs=[item.ref for item in items])
    for item in items:
        if item.ref in unseen:
            item.title, item.url = str(UNSEEN_RECORD), ""
    return history


def policy_fields(*, workspace: Workspace, object_key: str) -> list[FieldDef]:
    """Every field of the object, hidden ones too: a rule may name one the reader does not see."""
    return field_defs(
        selectors.object_definition_get(client=workspace.client, workspace_id=workspace.id, object_key=object_key)
    )


def record_form(*, workspace: Workspace, object_key: str, definition: dict, data: Any, **kwargs: Any) -> RecordForm:
    """A record's form, its fields read-only for this person by the object's access policy disabled."""
    read_only = person_access(workspace=workspace, object_key=object_key).read_only
    return RecordForm(data, definition=definition, zone=workspace.zone, read_only=read_only, **kwargs)


def write_refused(*, workspace: Workspace, object_key: str, keys: Any) -> str:
    """Why this person may not write these fields (hidden from them or
    read-only for them by the object's access policy), or ""."""
    refused = access.refused_fields(person_access(workspace=workspace, object_key=object_key), keys)
    if not refused:
        return ""
    names = ", ".join(sorted(refused))
    return f"The object's access policy does not let your role change {names}: ask an Administrator."
