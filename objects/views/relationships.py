"""A record's links: the add-link form with its search-as-you-type picker."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from dashboard.api import errors
from dashboard.fair_use import costly_request
from dashboard.frame.forms import failed_write, place_remote_error
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import renew_idempotency_key
from dashboard.web.htmx import client_redirect, is_partial, send_to
from dashboard.web.reading import as_dict
from dashboard.web.reading import text as as_text
from objects import selectors, services
from objects.access_reads import records_seen
from objects.fields import title_field_key
from objects.filters import MAX_SEARCH_LENGTH
from objects.forms import RelationshipForm
from objects.names import record_titles
from objects.records import READ_ONLY, object_definition, record_page_context

# The service's names for a link's target -> the form's fields.
TARGET_ALIASES = {"id": "target_id", "object": "target_object", "target": "target_id"}


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def relationship_new(request: ConsoleRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """The add-link form (loaded on demand so the record page stays at three calls), and its post."""
    client = request.workspace.client
    form = RelationshipForm(
        request.POST or None, objects=selectors.object_list_all(client=client), initial={"target_object": object_key}
    )
    context: dict[str, Any] = {
        "link_form": form,
        "object_key": object_key,
        "record_id": record_id,
        "relation_keys": selectors.relation_keys_in_use(workspace_id=request.workspace.id),
    }
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.relationship_create(
                client=client,
                object_key=object_key,
                record_id=record_id,
                relation_key=data["relation_key"],
                target_object=data["target_object"],
                target_id=data["target"],
                label=data.get("label", ""),
                metadata=data.get("metadata") or {},
                idempotency_key=data["idempotency_key"],
                workspace_id=request.workspace.id,
            )
            _log_link(request, object_key=object_key, record_id=record_id, data=data)
        except errors.NotFoundError as exc:
            # Here a 404 is about the record picked or pasted, not this page.
            place_remote_error(form, exc, aliases=TARGET_ALIASES)
            renew_idempotency_key(form)
        except errors.ApiError as exc:
            context["remote_error"] = failed_write(request, form, exc, aliases=TARGET_ALIASES)
        else:
            if not is_partial(request):
                return client_redirect(
                    request, reverse("objects:record", args=[object_key, record_id]) + "#relationships"
                )
            # The panel, re-read, in place of the form's region (a redirect to
            # this same page plus a #fragment would not reload it).
            page = _record_page(request, object_key=object_key, record_id=record_id)
            # The focus moves to the link just made (static/js/console.js).
            page["just_linked"] = (data["relation_key"], data["target"])
            return send_to(render(request, "objects/record.html#relationships", page), "#relationships", "outerHTML")
    if request.method == "POST" and (request.POST.get("target_search") or request.POST.get("target_pick")):
        # Re-rendered with a message: show the same search results, the pick still chosen.
        context.update(
            _picker_context(
                request,
                object_key=object_key,
                record_id=record_id,
                target_object=request.POST.get("target_object") or object_key,
                text=request.POST.get("target_search", "").strip()[:MAX_SEARCH_LENGTH],
                picked=request.POST.get("target_pick", ""),
            )
        )
    if is_partial(request):
        return render(request, "objects/record.html#link-form", context)
    page = _record_page(request, object_key=object_key, record_id=record_id)
    return render(request, "objects/record.html", {**page, **context})


def _record_page(request: ConsoleRequest, *, object_key: str, record_id: str) -> dict[str, Any]:
    """The record page's context, with the records table's query it came from (`list`)."""
    list_raw = request.GET.get("list") or request.POST.get("list") or ""
    return record_page_context(
        workspace=request.workspace, object_key=object_key, record_id=record_id, list_raw=list_raw
    )


def _log_link(request: ConsoleRequest, *, object_key: str, record_id: str, data: dict) -> None:
    """The new link in both records' history, each named by its title. The
    titles are read through the cache the relationships panel uses next, so
    the panel's re-read finds them there."""
    source, target = (object_key, record_id), (data["target_object"], data["target"])
    titles = record_titles(
        client=request.workspace.client,
        workspace_id=request.workspace.id,
        refs=[source, target],
        definition_of=lambda key: object_definition(workspace=request.workspace, object_key=key),
    )
    services.relationship_log(
        user=request.user,
        workspace_id=request.workspace.id,
        source=source,
        target=target,
        relation_key=data["relation_key"],
        titles=titles,
    )


def _picker_context(
    request: ConsoleRequest, *, object_key: str, record_id: str, target_object: str, text: str, picked: str = ""
) -> dict[str, Any]:
    """The picker's choices: the target object's first records matching the text."""
    choices = []
    error = None
    try:
        title_key = title_field_key(object_definition(workspace=request.workspace, object_key=target_object))
        found = selectors.record_search(client=request.workspace.client, object_key=target_object, text=text)
        for item in records_seen(workspace=request.workspace, object_key=target_object, records=found):
            if not isinstance(item, dict):
                continue
            values = as_dict(item.get("values"))
            title = values.get(title_key) if title_key else None
            if as_text(item.get("id")) == record_id and target_object == object_key:
                continue  # a record does not link to itself
            choices.append(
                {"id": as_text(item.get("id")), "title": as_text(title) if title not in (None, "") else "Untitled"}
            )
    except errors.ApiError as exc:
        error = exc
    return {
        "choices": choices,
        "picker_error": error,
        "target_object": target_object,
        "searched": text,
        "picked": picked,
        "picker_shown": True,
    }


@costly_request(when="target_search")
@require_GET
def relationship_picker(request: ConsoleRequest, object_key: str, record_id: str) -> HttpResponse:
    """Search-as-you-type over the target object's records (10 at most)."""
    context = _picker_context(
        request,
        object_key=object_key,
        record_id=record_id,
        target_object=request.GET.get("target_object", "").strip() or object_key,
        text=request.GET.get("target_search", "").strip()[:MAX_SEARCH_LENGTH],
    )
    return render(request, "objects/record.html#picker-results", context)
