"""Find and merge duplicates: the candidates of an object by a chosen field
(objects/duplicates.py groups them), the compare page of a group with a
value chosen per field and a dry run of what the merge changes, and the
merge itself as a job (objects/merge.py) whose page follows it."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from dashboard.api import errors
from dashboard.api.attempts import separate_read_budget
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect
from dashboard.web.reading import as_dict, text
from objects import duplicates, merge, selectors
from objects.access_reads import record_read, records_seen
from objects.edits import SHOWN_FIELD, decode_values, encode_values
from objects.fields import cell, editable_fields, field_defs, title_field_key
from objects.forms import RecordDeleteForm
from objects.names import title_of
from objects.records import NO_TITLE, READ_ONLY, object_definition

READ_SECONDS = 6.0  # of the request's read budget (SERVICE_READ_BUDGET), for reading the candidates
SHOWN_GROUPS = 50  # groups the candidates page lists
GROUPABLE = frozenset({"text", "long_text", "email", "phone", "url", "number", "select", "date"})


def page_budget() -> int:
    """The service's pages (100 records each) the candidates page reads at most."""
    return max(1, int(settings.OBJECTS_DUPLICATES_PAGE_BUDGET))


def _read(workspace, object_key: str) -> tuple[list[dict], bool]:
    """The records read for the candidates, and whether more were left
    unread: at most `page_budget()` pages, within READ_SECONDS of the
    request's read budget (a slow service stops the reading, not the page,
    once a first page is in)."""
    records: list[dict] = []
    cursor: str | None = None
    with separate_read_budget(READ_SECONDS):
        for _ in range(page_budget()):
            try:
                page = selectors.record_list(
                    client=workspace.client,
                    object_key=object_key,
                    filters=None,
                    search=None,
                    sort="created_at",
                    cursor=cursor,
                    limit=selectors.SCAN_PAGE_SIZE,
                )
            except errors.ApiTimeoutError:
                if not records:
                    raise
                return records, True
            # Only the records this person may see (the object's access policy).
            records.extend(records_seen(workspace=workspace, object_key=object_key, records=page.items))
            if not page.next_cursor or page.next_cursor == cursor:
                return records, False
            cursor = page.next_cursor
    return records, True


def _merge_url(object_key: str, ids: list[str]) -> str:
    return f"{reverse('objects:merge', args=[object_key])}?{urlencode([('ids', i) for i in ids])}"


@require_GET
def duplicates_page(request: ConsoleRequest, object_key: str) -> HttpResponse:
    """Groups of likely twins by one field, normalised or exact; `of` keeps
    only the group of one record (from its page)."""
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = [f for f in field_defs(definition) if f.type in GROUPABLE]
    by_key = {f.key: f for f in fields}
    title_key = title_field_key(definition)
    chosen = request.GET.get("field") or (title_key if title_key in by_key else (fields[0].key if fields else ""))
    mode = request.GET.get("mode") or duplicates.NORMALISED
    mode = mode if mode in duplicates.MODES else duplicates.NORMALISED
    of = request.GET.get("of", "")[:200]
    context: dict[str, Any] = {
        "definition": definition,
        "object_key": object_key,
        "fields": fields,
        "chosen": chosen,
        "mode": mode,
        "of": of,
        "groups": [],
    }
    field = by_key.get(chosen)
    if field is None:
        context["said"] = (
            "Choose a field to compare the records by." if fields else "This object has no field to compare by."
        )
        return render(request, "objects/duplicates.html", context, status=200 if not request.GET.get("field") else 422)
    records, partial = _read(workspace, object_key)
    if of and of not in {text(r.get("id")) for r in records}:
        try:
            records.insert(0, as_dict(record_read(workspace=workspace, object_key=object_key, record_id=of)))
        except errors.NotFoundError:
            context["said"] = "That record no longer exists."
            of = ""
    groups = duplicates.duplicate_groups(records, field_key=field.key, field_type=field.type, mode=mode)
    if of:
        groups = [g for g in groups if of in g.ids]
    by_id = {text(r.get("id")): r for r in records}
    context.update(
        field=field,
        read=len(records),
        partial=partial,
        count=len(groups),
        groups=[
            {
                "shown": g.shown,
                "merge_url": _merge_url(
                    object_key, ([of] if of else []) + [i for i in g.ids if i != of][: merge.MAX_RECORDS]
                ),
                "records": [
                    {
                        "id": i,
                        "title": title_of(by_id[i], definition) or NO_TITLE,
                        "value": as_dict(by_id[i].get("values")).get(field.key),
                    }
                    for i in g.ids[:10]
                ],
                "more": max(0, len(g.ids) - 10),
            }
            for g in groups[:SHOWN_GROUPS]
        ],
    )
    return render(request, "objects/duplicates.html", context)


def _ids(data: QueryDict) -> list[str]:
    seen: list[str] = []
    for value in data.getlist("ids"):
        value = value.strip()[:200]
        if value and value not in seen:
            seen.append(value)
    return seen[: merge.MAX_RECORDS]


def _compare(request: ConsoleRequest, object_key: str, data: QueryDict) -> dict[str, Any]:
    """The records side by side (the kept one first) and the choice per field."""
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    ids = _ids(data)
    kept_id = data.get("kept") if data.get("kept") in ids else (ids[0] if ids else "")
    ordered = [kept_id] + [i for i in ids if i != kept_id] if kept_id else []
    records, gone = [], []
    for record_id in ordered:
        try:
            records.append(as_dict(record_read(workspace=workspace, object_key=object_key, record_id=record_id)))
        except errors.NotFoundError:
            gone.append(record_id)
    fields = editable_fields(field_defs(definition))
    defaults = duplicates.default_choices(records, [f.key for f in fields])
    choices: dict[str, int] = {}
    for f in fields:
        raw = data.get(f"use.{f.key}", "")
        # A choice is posted as the record's id (stable when the kept record changes).
        position = next((n for n, r in enumerate(records) if text(r.get("id")) == raw), None)
        choices[f.key] = defaults[f.key] if position is None else position
    rows = [
        {
            "field": f,
            "chosen": choices[f.key],
            "differ": len(
                {
                    duplicates.value_key(as_dict(r.get("values")).get(f.key), field_type=f.type, mode=duplicates.EXACT)
                    for r in records
                }
            )
            > 1,
            "cells": [
                {"id": text(r.get("id")), "cell": cell(f, as_dict(r.get("values")).get(f.key), zone=workspace.zone)}
                for r in records
            ],
        }
        for f in fields
    ]
    changes, before = merge.merge_changes(fields=fields, records=records, choices=choices)
    titles = {text(r.get("id")): title_of(r, definition) or NO_TITLE for r in records}
    return {
        "definition": definition,
        "object_key": object_key,
        "records": [{"id": text(r.get("id")), "title": titles[text(r.get("id"))]} for r in records],
        "rows": rows,
        "gone": gone,
        "changes": [(f, cell(f, changes[f.key], zone=workspace.zone)) for f in fields if f.key in changes],
        "raw_changes": changes,
        "before": before,
        "titles": titles,
        "raw_records": records,
    }


@require_GET
def merge_page(request: ConsoleRequest, object_key: str) -> HttpResponse:
    """Compare (choose the kept record and a value per field), then with
    `review` the dry run: fields written, links moved, twins to the trash."""
    context = _compare(request, object_key, request.GET)
    if len(context["records"]) < 2:
        context["said"] = "Choose at least two records that still exist to compare."
        return render(request, "objects/merge.html", context, status=422)
    if request.GET.get("review"):
        workspace = request.workspace
        context["links"] = [
            {
                "title": r["title"],
                "count": len(
                    selectors.relationship_list(client=workspace.client, object_key=object_key, record_id=r["id"])
                ),
            }
            for r in context["records"][1:]
        ]
        context["review"] = True
        context["form"] = RecordDeleteForm()
        context["query"] = request.GET.urlencode()
        kept = context["raw_records"][0]
        context["shown_values"] = encode_values(
            as_dict(kept.get("values")), editable_fields(field_defs(context["definition"]))
        )
    return render(request, "objects/merge.html", context)


@require_POST
@requires_write(READ_ONLY)
def merge_run(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """Start the merge job (one Idempotency-Key per form: a second press opens the same job)."""
    form = RecordDeleteForm(request.POST)
    context = _compare(request, object_key, request.POST)
    if not form.is_valid() or len(context["records"]) < 2 or context["gone"]:
        context["said"] = (
            "The form expired: review the merge again."
            if not form.is_valid()
            else "A record of this merge no longer exists: nothing was merged."
        )
        return render(request, "objects/merge.html", context, status=422)
    records = context["raw_records"]
    # The kept record's values as the review showed them: a field changed since is the job's refusal, in words.
    shown = decode_values(request.POST.get(SHOWN_FIELD))
    before = {key: shown.get(key) for key in context["raw_changes"]} if shown is not None else context["before"]
    job = merge.merge_start(
        user=request.user,
        workspace=request.workspace,
        object_key=object_key,
        definition=context["definition"],
        kept=records[0],
        twins=records[1:],
        changes=context["raw_changes"],
        before=before,
        titles=context["titles"],
        uid=form.cleaned_data["idempotency_key"],
    )
    return client_redirect(request, reverse("objects:job", args=[job.pk]))
