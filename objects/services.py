"""Writes of the Objects area: objects and their fields, records,
relationships, column choices. Every remote write takes the Idempotency-Key
minted when its form was rendered (or, in a job, derived from the job's).
A record is written only here: `record_create`, `record_update` (a settled
edit plan: `record_update_plan`) and `record_delete`, from the pages and
from bulk jobs and imports alike."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.cache import cache
from django.db import transaction
from django.urls import reverse

from dashboard.api.paths import api_path
from dashboard.events.models import EventType
from dashboard.events.services import console_link, event_emit
from dashboard.web.reading import as_dict
from objects.access import Policy
from objects.comments import record_changed_tell
from objects.edits import EditPlan
from objects.fields import FieldDef
from objects.links import link_from
from objects.models import ColumnPreference, ComputedColumn, ObjectAccessPolicy, RecordChange, SavedView
from objects.names import title_forget
from objects.selectors import (
    access_policy_cache_key,
    object_definition_cache_key,
    record_links_cache_key,
    record_links_cached,
    relation_keys_remember,
)
from objects.tallies import records_written

if TYPE_CHECKING:
    from dashboard.api import ServiceClient
    from dashboard.frame.workspace import Workspace


def object_definition_forget(*, workspace_id: str, object_key: str) -> None:
    """Drop the cached definition so the next read (records page, form) sees an edit at once."""
    cache.delete(object_definition_cache_key(workspace_id=workspace_id, object_key=object_key))


def object_create(*, client: ServiceClient, workspace_id: str, body: dict, idempotency_key: str) -> dict:
    """`POST /v1/objects`; the same idempotency key for a re-posted form, so a
    retried create never makes a twin (the service answers 409 naming it)."""
    created = client.post("/v1/objects", json=body, idempotency_key=idempotency_key)
    object_definition_forget(workspace_id=workspace_id, object_key=created.get("key") or body.get("plural_name", ""))
    return created


def object_update(
    *, client: ServiceClient, workspace_id: str, object_key: str, changes: dict, idempotency_key: str
) -> dict:
    """`PATCH /v1/objects/{key}` with only what changed; drops the cached definition."""
    try:
        return client.patch(api_path("/v1/objects/{}", object_key), json=changes, idempotency_key=idempotency_key)
    finally:
        # Even a failed PATCH may have applied (timeout after commit): never trust the old copy.
        object_definition_forget(workspace_id=workspace_id, object_key=object_key)


def record_create(
    *,
    client: ServiceClient,
    object_key: str,
    values: dict,
    idempotency_key: str,
    user=None,
    workspace_id: str = "",
    fields: list[FieldDef] | None = None,
    source_record_id: str = "",
) -> dict:
    """`POST /v1/objects/{key}/records`; a retry with the same key returns the
    first record. With `user`, the creation enters the record's history
    (a duplicate names the record it was copied from)."""
    created = client.post(
        api_path("/v1/objects/{}/records", object_key), json={"values": values}, idempotency_key=idempotency_key
    )
    record_id = str(as_dict(created).get("id") or "")
    records_written(workspace_id=workspace_id, object_key=object_key)  # its counts are stale at once
    # A retry with the same key is the service's replay of the first record: its creation is in the history once.
    if (
        user is not None
        and workspace_id
        and not RecordChange.objects.filter(
            workspace_id=workspace_id,
            object_key=object_key,
            record_id=record_id,
            action__in=[RecordChange.Action.CREATE, RecordChange.Action.DUPLICATE],
        ).exists()
    ):
        record_change_log(
            user=user,
            workspace_id=workspace_id,
            object_key=object_key,
            record_id=record_id,
            action=RecordChange.Action.DUPLICATE if source_record_id else RecordChange.Action.CREATE,
            before={},
            after=values,
            fields=fields or [],
            source_record_id=source_record_id,
        )
    return created


def record_update(
    *,
    client: ServiceClient,
    object_key: str,
    record_id: str,
    changes: dict,
    idempotency_key: str,
    user=None,
    workspace_id: str = "",
    before: dict | None = None,
    fields: list[FieldDef] | None = None,
    action: str = RecordChange.Action.EDIT,
) -> dict:
    """`PATCH` with only the changed keys (`None` clears a field). With
    `user` and `before` (the values re-read just before, which this PATCH
    replaces), the change enters the record's history. The record's cached
    title is dropped either way."""
    try:
        updated = client.patch(
            api_path("/v1/objects/{}/records/{}", object_key, record_id),
            json={"values": changes},
            idempotency_key=idempotency_key,
        )
    finally:
        if workspace_id:
            # Even a failed PATCH may have applied (timeout after commit).
            title_forget(workspace_id=workspace_id, object_key=object_key, record_id=record_id)
            records_written(workspace_id=workspace_id, object_key=object_key)
    if user is not None and workspace_id and before is not None:
        record_change_log(
            user=user,
            workspace_id=workspace_id,
            object_key=object_key,
            record_id=record_id,
            action=action,
            before=before,
            after=changes,
            fields=fields or [],
        )
    return updated


def record_update_plan(
    *,
    client: ServiceClient,
    object_key: str,
    record_id: str,
    plan: EditPlan,
    idempotency_key: str,
    user,
    workspace_id: str,
    fields: list[FieldDef],
    action: str = RecordChange.Action.EDIT,
) -> dict | None:
    """A settled edit plan (objects/edits.py: a record form, a cell, an undo)
    PATCHed into the record's history; nothing to send, no call (None).
    Remote errors propagate."""
    if not plan.changes:
        return None
    return record_update(
        client=client,
        object_key=object_key,
        record_id=record_id,
        changes=plan.changes,
        idempotency_key=idempotency_key,
        user=user,
        workspace_id=workspace_id,
        before=plan.before,
        fields=fields,
        action=action,
    )


def record_delete(
    *, client: ServiceClient, object_key: str, record_id: str, idempotency_key: str, workspace_id: str = ""
) -> None:
    """Deletes the record and every relationship to or from it."""
    try:
        client.delete(api_path("/v1/objects/{}/records/{}", object_key, record_id), idempotency_key=idempotency_key)
    finally:
        if workspace_id:
            title_forget(workspace_id=workspace_id, object_key=object_key, record_id=record_id)
            records_written(workspace_id=workspace_id, object_key=object_key)
            # Its links go with it: the records at their other ends list them no more.
            links = record_links_cached(workspace_id=workspace_id, object_key=object_key, record_id=record_id) or []
            ends = [link_from(link, object_key=object_key, record_id=record_id) for link in links]
            record_links_forget(
                workspace_id=workspace_id,
                ends=[(object_key, record_id)] + [(end.object_key, end.record_id) for end in ends],
            )


def record_change_log(
    *,
    user,
    workspace_id: str,
    object_key: str,
    record_id: str,
    action: str,
    before: dict,
    after: dict,
    fields: list[FieldDef],
    source_record_id: str = "",
) -> RecordChange:
    """One entry of a record's history: each field written, before and after."""
    labels = {f.key: f.label for f in fields}
    with transaction.atomic():
        change = RecordChange.objects.create(
            workspace_id=workspace_id,
            object_key=object_key,
            record_id=record_id,
            user=user if getattr(user, "is_authenticated", False) else None,
            actor=getattr(user, "get_username", lambda: "")() or "",
            action=action,
            changes=[
                {"field": key, "label": labels.get(key, key), "before": before.get(key), "after": value}
                for key, value in after.items()
            ],
            source_record_id=source_record_id,
        )
        # The workspace's outbound event, stored with the history entry (the fields' names: the
        # receiver reads the values through the API, under its own key and role).
        event_emit(
            workspace_id=workspace_id,
            type=EventType.RECORD_CHANGED,
            key=f"record.changed:{change.pk}",
            data={
                "object_key": object_key,
                "record_id": record_id,
                "action": action,
                "fields": [{"field": key, "label": labels.get(key, key)} for key in after],
                "changed_by": change.actor,
                "url": console_link(reverse("objects:record", args=[object_key, record_id])) if record_id else "",
            },
        )
        # The record's watchers hear of every change made through the console: here, where each is written.
        record_changed_tell(
            user=user,
            workspace_id=workspace_id,
            object_key=object_key,
            record_id=record_id,
            action_label=RecordChange.Action(action).label if action in RecordChange.Action.values else "",
        )
    return change


def relationship_log(
    *,
    user,
    workspace_id: str,
    source: tuple[str, str],
    target: tuple[str, str],
    relation_key: str,
    titles: dict[tuple[str, str], str],
) -> None:
    """A new link enters the history of both records ((object key, record
    id) each): "linked to" on the source, "linked from" on the target, each
    naming the other record by its title at the time."""
    actor = getattr(user, "get_username", lambda: "")() or ""
    person = user if getattr(user, "is_authenticated", False) else None
    RecordChange.objects.bulk_create(
        [
            RecordChange(
                workspace_id=workspace_id,
                object_key=here[0],
                record_id=here[1],
                user=person,
                actor=actor,
                action=RecordChange.Action.LINK,
                changes=[
                    {
                        "relation_key": relation_key,
                        "direction": direction,
                        "object": there[0],
                        "id": there[1],
                        "title": titles.get(there, ""),
                    }
                ],
            )
            for here, there, direction in ((source, target, "to"), (target, source, "from"))
        ]
    )


def record_change_mark_undone(*, change: RecordChange) -> None:
    from django.utils import timezone

    RecordChange.objects.filter(pk=change.pk, undone_at__isnull=True).update(undone_at=timezone.now())


def relationship_create(
    *,
    client: ServiceClient,
    object_key: str,
    record_id: str,
    relation_key: str,
    target_object: str,
    target_id: str,
    label: str,
    metadata: dict,
    idempotency_key: str,
    workspace_id: str = "",
) -> dict:
    """Links this record (the source) to a target; the same link again returns the existing one."""
    body: dict = {"relation_key": relation_key, "target": {"object": target_object, "id": target_id}}
    if label:
        body["label"] = label
    if metadata:
        body["metadata"] = metadata
    created = client.post(
        api_path("/v1/objects/{}/records/{}/relationships", object_key, record_id),
        json=body,
        idempotency_key=idempotency_key,
    )
    if workspace_id:
        # The link form offers the relation keys in use, each table its own: a new one joins them at once.
        relation_keys_remember(workspace_id=workspace_id, keys=[relation_key])
        relation_keys_remember(workspace_id=workspace_id, keys=[relation_key], object_key=object_key)
        relation_keys_remember(workspace_id=workspace_id, keys=[relation_key], object_key=target_object)
        record_links_forget(workspace_id=workspace_id, ends=[(object_key, record_id), (target_object, target_id)])
    return created


def record_links_forget(*, workspace_id: str, ends: list[tuple[str, str]]) -> None:
    """Drop the cached links of records ((object key, id) each) a console write changed."""
    cache.delete_many([record_links_cache_key(workspace_id=workspace_id, object_key=o, record_id=r) for o, r in ends])


def column_preference_set(
    *, user, workspace_id: str, object_key: str, hidden_fields: list[str], link_columns: list[str] | None = None
):
    """Remembers which columns this person hides in this object's table (and
    which linked-record columns they show, in the order chosen)."""
    defaults: dict = {"hidden_fields": sorted(set(hidden_fields))}
    if link_columns is not None:
        defaults["link_columns"] = list(dict.fromkeys(link_columns))
    preference, _ = ColumnPreference.objects.update_or_create(
        user=user, workspace_id=workspace_id, object_key=object_key, defaults=defaults
    )
    return preference


def saved_view_save(
    *,
    user,
    workspace_id: str,
    object_key: str,
    name: str,
    query: str,
    hidden_fields: list[str],
    shared: bool,
    kind: str = "table",
    settings: dict | None = None,
    link_columns: list[str] | None = None,
) -> SavedView:
    """Saves the table (or a kanban, calendar, gallery, chart: `kind` and its
    `settings`) as it is under a name (the same name replaces this person's view)."""
    view, _ = SavedView.objects.update_or_create(
        owner=user,
        workspace_id=workspace_id,
        object_key=object_key,
        name=name,
        defaults={
            "query": query,
            "hidden_fields": sorted(set(hidden_fields)),
            "shared": shared,
            "kind": kind,
            "settings": settings or {},
            "link_columns": list(dict.fromkeys(link_columns or [])),
        },
    )
    return view


def saved_view_set_default(*, user, workspace_id: str, object_key: str, view: SavedView | None) -> None:
    """The view this person's records page opens with (None: the whole table)."""
    ColumnPreference.objects.update_or_create(
        user=user, workspace_id=workspace_id, object_key=object_key, defaults={"default_view": view}
    )


def saved_view_delete(*, view: SavedView) -> None:
    view.delete()


def saved_view_set_columns(*, view: SavedView, hidden_fields: list[str], link_columns: list[str] | None = None) -> None:
    view.hidden_fields = sorted(set(hidden_fields))
    if link_columns is not None:
        view.link_columns = list(dict.fromkeys(link_columns))
    view.save(update_fields=["hidden_fields", "link_columns", "updated_at"])


def computed_column_create(
    *,
    workspace_id: str,
    object_key: str,
    name: str,
    kind: str,
    formula: str = "",
    relation_key: str = "",
    field_key: str = "",
    function: str = "",
    user=None,
) -> ComputedColumn:
    """A computed column of an object (checked by the caller: objects/views/computed.py)."""
    return ComputedColumn.objects.create(
        workspace_id=workspace_id,
        object_key=object_key,
        name=name,
        kind=kind,
        formula=formula if kind == ComputedColumn.Kind.FORMULA else "",
        relation_key=relation_key if kind != ComputedColumn.Kind.FORMULA else "",
        field_key=field_key if kind != ComputedColumn.Kind.FORMULA else "",
        function=function if kind == ComputedColumn.Kind.ROLLUP else "",
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )


def computed_column_delete(*, column: ComputedColumn) -> None:
    column.delete()


def access_policy_save(*, workspace: Workspace, object_key: str, policy: Policy, user, path: str) -> None:
    """An object's access policy, as an Administrator saved it, in the
    workspace's audit trail (what it says now) in the same transaction;
    every page reads it from the next request on (its cache dropped)."""
    from dashboard.audit.services import audit_console_write

    with transaction.atomic():
        ObjectAccessPolicy.objects.update_or_create(
            workspace_id=workspace.id,
            object_key=object_key,
            defaults={"policy": policy.to_json(), "updated_by": user if user.is_authenticated else None},
        )
        audit_console_write(
            actor=user,
            workspace_id=workspace.id,
            key=workspace.key,
            area="objects",
            action="access_policy_saved",
            path=path,
            summary=(
                # The audit trail's words stay English (as every summary): counts, no plural to build.
                f"Access policy of {object_key} saved (record rules: {len(policy.records)}, "
                f"field rules: {len(policy.fields)})"
            ),
            details={"object_key": object_key, "policy": policy.to_json()},
        )
    cache.delete(access_policy_cache_key(workspace_id=workspace.id, object_key=object_key))
