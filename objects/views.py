"""Views of the Objects area. Two sections: schema (objects list, new object,
object settings) and records. Edit only your own section."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from dashboard.api import errors as api_errors
from dashboard.errors import PARTIAL as REMOTE_ERROR_PARTIAL
from dashboard.errors import describe_remote_error
from dashboard.idempotency import renew_idempotency_key
from dashboard.keys.selectors import active_key_for, service_client_for

# --- schema ---
from objects.forms import (
    FieldRemoveForm,
    FieldRowForm,
    NewObjectFieldRows,
    ObjectForm,
    ObjectSettingsForm,
    SettingsFieldRows,
    option_color_for,
)
from objects.schema import (
    DEFAULT_COLOR,
    DEFAULT_ICON,
    FIELD_TYPE_LABELS,
    ICONS,
    icon_file,
    snake_case,
)
from objects.selectors import object_definition_get, object_list
from objects.services import object_create, object_update

OBJECT_KINDS = [("custom", "Custom"), ("system", "System")]
OBJECTS_PAGE_SIZE = 25
FIELD_ROWS_PREFIX = "fields"
ROW_PREFIX_PATTERN = re.compile(r"^fields-\d+$")
OBJECT_SETTINGS_NAMES = ("singular_name", "plural_name", "description", "icon", "color", "title_field")


def _wants_region(request: HttpRequest) -> bool:
    """An htmx request that swaps one region (not a boosted page load or a
    history restore, which need the whole page)."""
    htmx = request.htmx
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def _workspace_id(request: HttpRequest) -> str:
    key = active_key_for(user=request.user)
    return str(key.workspace_id) if key and key.workspace_id else ""


def _icon_choices(current: str | None = None) -> list[dict]:
    names = list(ICONS)
    if current and current not in names:
        # An icon chosen outside the console stays selectable (shown as the fallback picture).
        names.insert(0, current)
    return [{"name": name, "path": f"vendor/lucide/{icon_file(name)}"} for name in names]


def _object_summary(obj: dict) -> dict:
    """What the list and page headers show of an object (read tolerantly)."""
    return {
        "key": obj.get("key") or "",
        "id": obj.get("id") or "",
        "kind": obj.get("kind") or "",
        "singular_name": obj.get("singular_name") or obj.get("key") or "",
        "plural_name": obj.get("plural_name") or obj.get("key") or "",
        "description": obj.get("description") or "",
        "icon": obj.get("icon") or DEFAULT_ICON,
        "icon_path": f"vendor/lucide/{icon_file(obj.get('icon'))}",
        "color": obj.get("color") or DEFAULT_COLOR,
        "field_count": len(obj.get("fields") or []),
        "records_url": _records_url(obj.get("key") or ""),
    }


def _records_url(object_key: str) -> str:
    # The records table belongs to the records side; until its route exists, the object's own address.
    try:
        return reverse("objects:records", args=[object_key])
    except NoReverseMatch:
        return f"/objects/{object_key}/"


def _page_links(*, base: dict, cursor: str | None, trail: str, next_cursor: str | None) -> dict:
    """Forward and back links for cursor paging. `trail` is the stack of the
    cursors of earlier pages ("" is the first page), carried in the URL so
    links can be shared and the browser's back button works."""
    earlier = trail.split(",") if cursor else []
    links: dict = {"next": None, "previous": None}
    if next_cursor:
        links["next"] = "?" + urlencode({**base, "cursor": next_cursor, "trail": ",".join([*earlier, cursor or ""])})
    if cursor:
        previous_cursor = earlier[-1] if earlier else ""
        query = {**base}
        if previous_cursor:
            query.update(cursor=previous_cursor, trail=",".join(earlier[:-1]))
        links["previous"] = "?" + urlencode(query)
    return links


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("kind") if request.GET.get("kind") in dict(OBJECT_KINDS) else "custom"
    cursor = request.GET.get("cursor") or None
    client = service_client_for(user=request.user)
    page = object_list(client=client, kind=kind, cursor=cursor, limit=OBJECTS_PAGE_SIZE)
    context = {
        "kind": kind,
        "kinds": [
            {"value": value, "label": label, "url": "?" + urlencode({"kind": value}), "active": value == kind}
            for value, label in OBJECT_KINDS
        ],
        "objects": [_object_summary(obj) for obj in page.items],
        "paging": _page_links(
            base={"kind": kind}, cursor=cursor, trail=request.GET.get("trail", ""), next_cursor=page.next_cursor
        ),
    }
    template = "objects/index.html#object_list" if _wants_region(request) else "objects/index.html"
    return render(request, template, context)


# ---- New object -------------------------------------------------------------


def _remote_error_box(request: HttpRequest, exc: api_errors.ApiError) -> str:
    """The shared message box (with the request id), placed inside the form so nothing typed is lost."""
    return render_to_string(
        REMOTE_ERROR_PARTIAL, {"remote_error": describe_remote_error(request, exc)}, request=request
    )


def _builder_action(data: QueryDict) -> QueryDict | None:
    """The fields builder without JavaScript: "Add field", "Remove" and the
    option buttons are submit buttons; apply them to the posted data (nothing
    typed is lost) and return it, or None for a real submit."""
    if not any(name in data for name in ("add_field", "remove_field", "add_option", "remove_option")):
        return None
    data = data.copy()
    total_name = f"{FIELD_ROWS_PREFIX}-TOTAL_FORMS"
    if "add_field" in data:
        data[total_name] = str(int(data.get(total_name) or 0) + 1)
    if data.get("remove_field", "").isdigit():
        data[f"{FIELD_ROWS_PREFIX}-{data['remove_field']}-DELETE"] = "on"
    prefix = data.get("add_option", "")
    if ROW_PREFIX_PATTERN.match(prefix):
        count = len(data.getlist(f"{prefix}-option_label"))
        data.appendlist(f"{prefix}-option_id", "")
        data.appendlist(f"{prefix}-option_label", "")
        data.appendlist(f"{prefix}-option_color", option_color_for(count))
    prefix, _, index = data.get("remove_option", "").partition(":")
    if ROW_PREFIX_PATTERN.match(prefix) and index.isdigit():
        for part in ("option_id", "option_label", "option_color"):
            values = data.getlist(f"{prefix}-{part}")
            if int(index) < len(values):
                del values[int(index)]
            data.setlist(f"{prefix}-{part}", values)
    for name in ("add_field", "remove_field", "add_option", "remove_option"):
        data.pop(name, None)
    return data


def _new_object_context(*, form: ObjectForm, rows, title_row: str = "", **extra) -> dict:
    plural_name = form["plural_name"].value() or ""
    return {
        "form": form,
        "rows": rows,
        "title_row": title_row,
        "icon_choices": _icon_choices(),
        "derived_key": snake_case(plural_name),
        **extra,
    }


def _place_remote_field_errors(*, exc: api_errors.ApiError, form, sent_rows: list) -> bool:
    """Put the service's per-field messages (400/422 `details`, flattened to
    dotted names like `fields.2.label`) on the inputs they name; anything else
    becomes a message at the top of the form. Returns whether any was placed."""
    placed = False
    for name, field_messages in exc.field_errors.items():
        parts = name.split(".")
        text = " ".join(field_messages)
        if parts[0] in form.fields and parts[0] != "idempotency_key" and len(parts) == 1:
            form.add_error(parts[0], text)
        elif parts[0] == "fields" and len(parts) > 1 and parts[1].isdigit() and int(parts[1]) < len(sent_rows):
            row = sent_rows[int(parts[1])]
            attribute = parts[2] if len(parts) > 2 else ""
            if attribute in ("label", "type", "required") or (attribute == "key" and not row.fields["key"].disabled):
                row.add_error(attribute, text)
            elif attribute == "options":
                row.add_error(None, f"Options: {text}")
            else:
                row.add_error(None, text)
        elif parts[0] == "title_field":
            form.add_error(None, f"Title field: {text}")
        else:
            form.add_error(None, f"{name}: {text}")
        placed = True
    return placed


def _refused(*, exc: api_errors.ApiError, form, sent_rows: list) -> dict:
    """The service refused the values (400/422/409): messages on the named inputs,
    a summary with the request id, and a new idempotency key, since the
    corrected form is a new logical write."""
    if not _place_remote_field_errors(exc=exc, form=form, sent_rows=sent_rows):
        form.add_error(None, exc.message)
    renew_idempotency_key(form)
    return {"refused": {"message": exc.message, "request_id": exc.request_id}}


def _existing_object_key(exc: api_errors.ApiError) -> str | None:
    """The key of the object a 409 names (`details` is loosely specified: look for a `key`)."""
    details = exc.details
    if isinstance(details, dict):
        if isinstance(details.get("key"), str):
            return details["key"]
        for value in details.values():
            if isinstance(value, dict) and isinstance(value.get("key"), str):
                return value["key"]
    return None


def _redirect(request: HttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_GET
def object_new(request: HttpRequest) -> HttpResponse:
    service_client_for(user=request.user)  # no key: the middleware sends them to add one before they type
    form = ObjectForm()
    rows = NewObjectFieldRows(prefix=FIELD_ROWS_PREFIX)
    return render(request, "objects/new.html", _new_object_context(form=form, rows=rows, title_row="0"))


@require_POST
def object_create_view(request: HttpRequest) -> HttpResponse:
    template = "objects/new.html#object_form" if _wants_region(request) else "objects/new.html"
    builder_data = _builder_action(request.POST)
    data = builder_data if builder_data is not None else request.POST
    title_row = data.get("title_row", "")
    form = ObjectForm(data)
    rows = NewObjectFieldRows(data, prefix=FIELD_ROWS_PREFIX)
    if builder_data is not None:
        return render(request, template, _new_object_context(form=form, rows=rows, title_row=title_row, quiet=True))
    if not (form.is_valid() & rows.is_valid()):
        return render(request, template, _new_object_context(form=form, rows=rows, title_row=title_row))

    sent_rows = rows.live_forms()
    body = {
        "singular_name": form.cleaned_data["singular_name"],
        "plural_name": form.cleaned_data["plural_name"],
        "description": form.cleaned_data["description"],
        "icon": form.cleaned_data["icon"],
        "color": form.cleaned_data["color"],
        "fields": [row.as_payload() for row in sent_rows],
    }
    title = next((row for row in sent_rows if str(row.index) == title_row), None)
    if title is not None:
        body["title_field"] = title.field_key
    client = service_client_for(user=request.user)
    extra: dict = {}
    try:
        created = object_create(
            client=client,
            workspace_id=_workspace_id(request),
            body=body,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except api_errors.ConflictError as exc:
        existing = _existing_object_key(exc)
        for name, field_messages in exc.field_errors.items():
            if name in ("singular_name", "plural_name"):  # e.g. "makes the key 'x', which X already uses"
                form.add_error(name, " ".join(field_messages))
        if existing is None and "idempotency" not in exc.message.lower():
            existing = snake_case(body["plural_name"])
        extra["conflict"] = {
            "message": exc.message,
            "request_id": exc.request_id,
            "existing_key": existing,
            "existing_settings_url": reverse("objects:settings", args=[existing]) if existing else "",
            "existing_records_url": _records_url(existing) if existing else "",
        }
        renew_idempotency_key(form)
    except (api_errors.InvalidRequestError, api_errors.UnprocessableError) as exc:
        extra.update(_refused(exc=exc, form=form, sent_rows=sent_rows))
    except api_errors.ApiError as exc:
        # Not the input's fault (5xx, timeout, 429, 401...): keep the key, so
        # sending the same form again is a retry of the same create.
        extra["remote_error"] = _remote_error_box(request, exc)
    else:
        messages.success(request, f"Created {created.get('plural_name') or body['plural_name']}.")
        return _redirect(
            request, reverse("objects:settings", args=[created.get("key") or snake_case(body["plural_name"])])
        )
    return render(request, template, _new_object_context(form=form, rows=rows, title_row=title_row, **extra))


@require_GET
def object_key_preview(request: HttpRequest) -> HttpResponse:
    return render(
        request, "objects/new.html#derived_key", {"derived_key": snake_case(request.GET.get("plural_name", ""))}
    )


@require_GET
def field_row_new(request: HttpRequest) -> HttpResponse:
    """One more row for the fields builder, and the formset's new total (out of band)."""
    total = request.GET.get(f"{FIELD_ROWS_PREFIX}-TOTAL_FORMS", "0")
    index = int(total) if total.isdigit() else 0
    form = FieldRowForm(prefix=f"{FIELD_ROWS_PREFIX}-{index}", empty_permitted=True, use_required_attribute=False)
    return render(
        request,
        "objects/_field_row.html",
        {"form": form, "show_title_choice": request.GET.get("title") == "1", "new_total": index + 1},
    )


@require_GET
def field_row_removed(request: HttpRequest) -> HttpResponse:
    """What stays of a removed new row: its DELETE mark, so the formset's numbering holds."""
    index = request.GET.get("index", "")
    return render(
        request,
        "objects/_field_row.html#removed_row",
        {"removed_prefix": f"{FIELD_ROWS_PREFIX}-{index}" if index.isdigit() else ""},
    )


@require_GET
def field_option_new(request: HttpRequest) -> HttpResponse:
    prefix = request.GET.get("prefix", "")
    if not ROW_PREFIX_PATTERN.match(prefix):
        return HttpResponse("")
    count = len(request.GET.getlist(f"{prefix}-option_label"))
    option = {"id": "", "label": "", "color": option_color_for(count), "is_hex": True}
    return render(
        request, "objects/_field_row.html#option_row", {"prefix": prefix, "option": option, "option_index": count}
    )


# ---- Object settings --------------------------------------------------------


def _field_initial(field: dict) -> dict:
    return {
        "label": field.get("label") or "",
        "key": field.get("key") or "",
        "type": field.get("type") or "text",
        "required": bool(field.get("required")),
        "options": field.get("options") or [],
        "original_key": field.get("key") or "",
    }


def _is_system_field(field: dict) -> bool:
    return field.get("origin") == "system"


def _object_initial(definition: dict) -> dict:
    return {
        "singular_name": definition.get("singular_name") or "",
        "plural_name": definition.get("plural_name") or "",
        "description": definition.get("description") or "",
        "icon": definition.get("icon") or DEFAULT_ICON,
        "color": definition.get("color") or DEFAULT_COLOR,
        "title_field": definition.get("title_field") or "",
    }


def _field_choices(definition: dict) -> list[tuple[str, str]]:
    return [
        (f.get("key"), f"{f.get('label') or f.get('key')} ({f.get('key')})")
        for f in definition.get("fields") or []
        if f.get("key")
    ]


def _settings_context(*, definition: dict, form, rows, **extra) -> dict:
    fields = definition.get("fields") or []
    return {
        "object": _object_summary(definition),
        "object_key": definition.get("key") or "",
        "form": form,
        "rows": rows,
        "system_fields": [
            {**f, "type_label": FIELD_TYPE_LABELS.get(f.get("type") or "text", f.get("type"))}
            for f in fields
            if _is_system_field(f)
        ],
        "icon_choices": _icon_choices(definition.get("icon")),
        **extra,
    }


def _settings_forms(*, definition: dict, data: QueryDict | None = None):
    custom = [f for f in definition.get("fields") or [] if not _is_system_field(f)]
    if data is not None:
        # Rows are matched to fields by the key each posted row carries, not by
        # position, so a field added or removed elsewhere meanwhile can't shift them.
        by_key = {f.get("key"): f for f in custom}
        count = data.get(f"{FIELD_ROWS_PREFIX}-INITIAL_FORMS", "0")
        initial = [
            _field_initial(by_key[k]) if (k := data.get(f"{FIELD_ROWS_PREFIX}-{i}-original_key")) in by_key else {}
            for i in range(int(count) if count.isdigit() else 0)
        ]
    else:
        initial = [_field_initial(f) for f in custom]
    form = ObjectSettingsForm(data, initial=_object_initial(definition), field_choices=_field_choices(definition))
    rows = SettingsFieldRows(data, prefix=FIELD_ROWS_PREFIX, initial=initial)
    return form, rows


@require_GET
def object_settings(request: HttpRequest, object_key: str) -> HttpResponse:
    client = service_client_for(user=request.user)
    definition = object_definition_get(
        client=client, workspace_id=_workspace_id(request), object_key=object_key, fresh=True
    )
    form, rows = _settings_forms(definition=definition)
    return render(request, "objects/settings.html", _settings_context(definition=definition, form=form, rows=rows))


def _settings_changes(*, definition: dict, form: ObjectSettingsForm, sent_rows: list) -> tuple[dict, list]:
    """The PATCH body: only what changed, and the rows its `fields` items came from (for 400 `fields.N`)."""
    changes: dict = {}
    before = _object_initial(definition)
    for name in OBJECT_SETTINGS_NAMES:
        value = form.cleaned_data.get(name) or ""
        if name == "title_field" and not value:
            continue  # "first field" is the default; the service has no way to unset it
        if value != before[name]:
            changes[name] = value
    by_key = {f.get("key"): f for f in definition.get("fields") or []}
    items, item_rows = [], []
    for row in sent_rows:
        original = by_key.get(row.initial.get("original_key"))
        if original is None and row.is_existing:
            continue  # a row for a built-in field, or one removed meanwhile: never sent, never re-added
        item = row.changes_from(original) if original else row.as_payload()
        if item:
            items.append(item)
            item_rows.append(row)
    if items:
        changes["fields"] = items
    return changes, item_rows


@require_POST
def object_settings_save(request: HttpRequest, object_key: str) -> HttpResponse:
    template = "objects/settings.html#settings_form" if _wants_region(request) else "objects/settings.html"
    client = service_client_for(user=request.user)
    workspace_id = _workspace_id(request)
    definition = object_definition_get(client=client, workspace_id=workspace_id, object_key=object_key, fresh=True)
    builder_data = _builder_action(request.POST)
    form, rows = _settings_forms(definition=definition, data=builder_data if builder_data is not None else request.POST)
    if builder_data is not None:
        return render(request, template, _settings_context(definition=definition, form=form, rows=rows, quiet=True))
    if not (form.is_valid() & rows.is_valid()):
        return render(request, template, _settings_context(definition=definition, form=form, rows=rows))

    changes, item_rows = _settings_changes(definition=definition, form=form, sent_rows=rows.live_forms())
    if not changes:
        messages.info(request, "Nothing changed.")
        return _redirect(request, reverse("objects:settings", args=[object_key]))
    extra: dict = {}
    try:
        object_update(
            client=client,
            workspace_id=workspace_id,
            object_key=object_key,
            changes=changes,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except (api_errors.InvalidRequestError, api_errors.UnprocessableError, api_errors.ConflictError) as exc:
        extra.update(_refused(exc=exc, form=form, sent_rows=item_rows))
    except api_errors.ApiError as exc:
        extra["remote_error"] = _remote_error_box(request, exc)
    else:
        messages.success(request, "Saved.")
        return _redirect(request, reverse("objects:settings", args=[object_key]))
    return render(request, template, _settings_context(definition=definition, form=form, rows=rows, **extra))


def _custom_field(definition: dict, field_key: str) -> dict | None:
    return next(
        (f for f in definition.get("fields") or [] if f.get("key") == field_key and not _is_system_field(f)), None
    )


@require_GET
def field_remove_confirm(request: HttpRequest, object_key: str, field_key: str) -> HttpResponse:
    """The confirmation step before a custom field is removed (in place with htmx, or the settings page)."""
    client = service_client_for(user=request.user)
    definition = object_definition_get(client=client, workspace_id=_workspace_id(request), object_key=object_key)
    field = _custom_field(definition, field_key)
    if field is None:
        messages.error(
            request, f"“{field_key}” is not a custom field of this object; built-in fields can't be removed."
        )
        return _redirect(request, reverse("objects:settings", args=[object_key]))
    return _render_field_removal(request, definition=definition, removal={"field": field, "form": FieldRemoveForm()})


def _render_field_removal(request: HttpRequest, *, definition: dict, removal: dict) -> HttpResponse:
    """The removal confirmation: in place for htmx, else on the settings page."""
    if _wants_region(request):
        context = {"removal": removal, "object_key": definition.get("key") or ""}
        return render(request, "objects/settings.html#field_removal", context)
    form, rows = _settings_forms(definition=definition)
    return render(
        request,
        "objects/settings.html",
        _settings_context(definition=definition, form=form, rows=rows, removal=removal),
    )


@require_POST
def field_remove(request: HttpRequest, object_key: str, field_key: str) -> HttpResponse:
    client = service_client_for(user=request.user)
    workspace_id = _workspace_id(request)
    definition = object_definition_get(client=client, workspace_id=workspace_id, object_key=object_key)
    field = _custom_field(definition, field_key)
    confirm = FieldRemoveForm(request.POST)
    if field is None or not confirm.is_valid():
        messages.error(request, f"“{field_key}” can't be removed.")
        return _redirect(request, reverse("objects:settings", args=[object_key]))
    try:
        object_update(
            client=client,
            workspace_id=workspace_id,
            object_key=object_key,
            changes={"remove_fields": [field_key]},
            idempotency_key=confirm.cleaned_data["idempotency_key"],
        )
    except api_errors.ApiError as exc:
        removal = {"field": field, "form": confirm, "remote_error": _remote_error_box(request, exc)}
        return _render_field_removal(request, definition=definition, removal=removal)
    messages.success(
        request,
        f"Removed the field “{field.get('label') or field_key}”. Its values stay on records but are no longer shown.",
    )
    return _redirect(request, reverse("objects:settings", args=[object_key]))


# --- records ---
# Records table, record form, record page, relationships and CSV export.
# Every page reads the active key's workspace id and time zone from the
# database (no remote call) and the object definition from the cache, so the
# records page costs at most two remote calls: the definition and one page.
import csv as _csv  # noqa: E402 - the records section keeps its imports with it
import logging as _logging  # noqa: E402
from datetime import date as _date  # noqa: E402
from itertools import chain as _chain  # noqa: E402

from django.http import HttpResponseRedirect, StreamingHttpResponse  # noqa: E402
from django.http import QueryDict as _QueryDict  # noqa: E402
from django.views.decorators.http import require_http_methods, require_POST  # noqa: E402

from dashboard.api import errors as _api_errors  # noqa: E402
from dashboard.idempotency import renew_idempotency_key as _renew_idempotency_key  # noqa: E402
from dashboard.keys.errors import NoActiveKeyError  # noqa: E402
from objects import selectors as _records_selectors  # noqa: E402
from objects import services as _records_services  # noqa: E402
from objects.fields import cell as _cell  # noqa: E402
from objects.fields import csv_value, field_defs, format_datetime, title_field_key, workspace_zone  # noqa: E402
from objects.forms import RecordDeleteForm, RecordForm, RelationshipForm  # noqa: E402
from objects.table import TableState, build_table, filter_controls, links_by_relation  # noqa: E402

_records_log = _logging.getLogger("objects.records")


def _records_workspace(request: HttpRequest):
    """(client, workspace id, time zone) of the active key; no remote call."""
    key = active_key_for(user=request.user)
    if key is None:
        raise NoActiveKeyError()
    return key.client(), key.workspace_id, workspace_zone(key.workspace_timezone)


def _records_definition(*, client, workspace_id: str, object_key: str) -> dict:
    return _records_selectors.object_definition_get(client=client, workspace_id=workspace_id, object_key=object_key)


def _records_swap(request: HttpRequest) -> bool:
    """An htmx request for a region (a history restore wants the whole page)."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request


def _records_redirect(request: HttpRequest, url: str) -> HttpResponse:
    if _records_swap(request):
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return HttpResponseRedirect(url)


def _records_table(request: HttpRequest, *, client, workspace_id: str, zone, object_key: str, query):
    definition = _records_definition(client=client, workspace_id=workspace_id, object_key=object_key)
    fields = field_defs(definition)
    state = TableState.from_query(query, fields)
    service_filter, problems = state.service_filter(fields)
    page = _records_selectors.record_list(
        client=client,
        object_key=object_key,
        filters=service_filter,
        search=state.search,
        sort=state.sort,
        cursor=state.cursor or None,
        limit=state.limit,
    )
    hidden = _records_selectors.column_hidden_fields(
        user=request.user, workspace_id=workspace_id, object_key=object_key
    )
    return build_table(
        object_key=object_key,
        definition=definition,
        fields=fields,
        records=page.items,
        next_cursor=page.next_cursor,
        state=state,
        hidden_fields=hidden,
        filter_problems=problems,
        zone=zone,
    )


@require_GET
def records(request: HttpRequest, object_key: str) -> HttpResponse:
    client, workspace_id, zone = _records_workspace(request)
    table = _records_table(
        request, client=client, workspace_id=workspace_id, zone=zone, object_key=object_key, query=request.GET
    )
    context = {
        "table": table,
        "filters": filter_controls(table.fields, table.state),
        "page_sizes": (25, 50, 100),
        "nav_section": "objects",
        "swap": _records_swap(request),
    }
    template = "objects/records.html#records-table" if _records_swap(request) else "objects/records.html"
    return render(request, template, context)


@require_POST
def records_columns(request: HttpRequest, object_key: str) -> HttpResponse:
    """Remember the columns this person shows; answer with the same view."""
    client, workspace_id, zone = _records_workspace(request)
    definition = _records_definition(client=client, workspace_id=workspace_id, object_key=object_key)
    shown = set(request.POST.getlist("shown"))
    hidden = [f.key for f in field_defs(definition) if f.key not in shown]
    _records_services.column_preference_set(
        user=request.user, workspace_id=workspace_id, object_key=object_key, hidden_fields=hidden
    )
    query = request.POST.get("query", "")
    url = reverse("objects:records", args=[object_key]) + (f"?{query}" if query else "")
    if not _records_swap(request):
        return HttpResponseRedirect(url)
    table = _records_table(
        request, client=client, workspace_id=workspace_id, zone=zone, object_key=object_key, query=_QueryDict(query)
    )
    return render(request, "objects/records.html#records-table", {"table": table, "swap": True})


class _Echo:
    def write(self, value: str) -> str:
        return value


@require_GET
def records_export(request: HttpRequest, object_key: str) -> HttpResponse:
    """The current filtered, sorted view as CSV, every page, streamed."""
    client, workspace_id, zone = _records_workspace(request)
    definition = _records_definition(client=client, workspace_id=workspace_id, object_key=object_key)
    fields = field_defs(definition)
    state = TableState.from_query(request.GET, fields)
    service_filter, _problems = state.service_filter(fields)
    records_iter = _records_selectors.record_iter(
        client=client, object_key=object_key, filters=service_filter, search=state.search, sort=state.sort
    )
    # The first page is read before the response starts, so a remote error
    # (404, 401...) still becomes an error page instead of a broken file.
    first = next(records_iter, None)
    writer = _csv.writer(_Echo())

    def rows():
        yield "\ufeff" + writer.writerow(["id", *[f.label for f in fields], "Created", "Updated"])
        if first is None:
            return
        try:
            for item in _chain([first], records_iter):
                values = item.get("values") or {}
                yield writer.writerow(
                    [
                        item.get("id", ""),
                        *[csv_value(f, values.get(f.key), zone=zone) for f in fields],
                        item.get("created_at", ""),
                        item.get("updated_at", ""),
                    ]
                )
        except _api_errors.ApiError as exc:
            # Headers are gone: say in the file that it is incomplete.
            _records_log.warning("CSV export of %s stopped: %s", object_key, exc)
            yield writer.writerow([f"# export stopped early: {exc.message} (request id {exc.request_id or 'unknown'})"])

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{object_key}-{_date.today().isoformat()}.csv"'
    return response


def _record_form_response(request, *, template_context: dict) -> HttpResponse:
    template = "objects/record_form.html#record-form" if _records_swap(request) else "objects/record_form.html"
    return render(request, template, {"nav_section": "objects", **template_context})


@require_http_methods(["GET", "POST"])
def record_new(request: HttpRequest, object_key: str) -> HttpResponse:
    client, workspace_id, zone = _records_workspace(request)
    definition = _records_definition(client=client, workspace_id=workspace_id, object_key=object_key)
    form = RecordForm(request.POST or None, definition=definition, zone=zone)
    if request.method == "POST" and form.is_valid():
        try:
            record = _records_services.record_create(
                client=client,
                object_key=object_key,
                values=form.values_to_create(),
                idempotency_key=form.cleaned_data["idempotency_key"],
            )
        except (_api_errors.UnprocessableError, _api_errors.InvalidRequestError, _api_errors.ConflictError) as exc:
            form.add_service_error(exc)
            form.renew_idempotency_key()
            return _record_form_response(
                request,
                template_context={"form": form, "definition": definition, "object_key": object_key, "error": exc},
            )
        return _records_redirect(request, reverse("objects:record", args=[object_key, record.get("id")]))
    return _record_form_response(
        request, template_context={"form": form, "definition": definition, "object_key": object_key}
    )


@require_http_methods(["GET", "POST"])
def record_edit(request: HttpRequest, object_key: str, record_id: str) -> HttpResponse:
    client, workspace_id, zone = _records_workspace(request)
    definition = _records_definition(client=client, workspace_id=workspace_id, object_key=object_key)
    record = _records_selectors.record_get(client=client, object_key=object_key, record_id=record_id)
    form = RecordForm(request.POST or None, definition=definition, zone=zone, record=record)
    context = {"form": form, "definition": definition, "object_key": object_key, "record": record}
    if request.method == "POST" and form.is_valid():
        changes = form.values_changed()
        if changes:
            try:
                _records_services.record_update(
                    client=client,
                    object_key=object_key,
                    record_id=record_id,
                    changes=changes,
                    idempotency_key=form.cleaned_data["idempotency_key"],
                )
            except (
                _api_errors.UnprocessableError,
                _api_errors.InvalidRequestError,
                _api_errors.ConflictError,
            ) as exc:
                form.add_service_error(exc)
                form.renew_idempotency_key()
                return _record_form_response(request, template_context={**context, "error": exc})
        return _records_redirect(request, reverse("objects:record", args=[object_key, record_id]))
    return _record_form_response(request, template_context=context)


def _record_page_context(*, client, workspace_id: str, zone, object_key: str, record_id: str) -> dict:
    definition = _records_definition(client=client, workspace_id=workspace_id, object_key=object_key)
    fields = field_defs(definition)
    record = None
    try:
        record = _records_selectors.record_get(client=client, object_key=object_key, record_id=record_id)
    except _api_errors.NotFoundError:
        # Records of built-in objects belong to their own feature; their links
        # are still listed here.
        if definition.get("kind") != "system":
            raise
    values = (record or {}).get("values") or {}
    title_key = title_field_key(definition)
    title = values.get(title_key) if title_key else None
    links = _records_selectors.relationship_list(client=client, object_key=object_key, record_id=record_id)
    return {
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record": record,
        "record_title": str(title) if title not in (None, "") else "Untitled",
        "values": [(f, _cell(f, values.get(f.key), zone=zone)) for f in fields],
        "created_at": format_datetime(record["created_at"], zone=zone) if record and record.get("created_at") else "",
        "updated_at": format_datetime(record["updated_at"], zone=zone) if record and record.get("updated_at") else "",
        "link_groups": links_by_relation(links, object_key=object_key, record_id=record_id),
        "nav_section": "objects",
    }


@require_GET
def record(request: HttpRequest, object_key: str, record_id: str) -> HttpResponse:
    client, workspace_id, zone = _records_workspace(request)
    context = _record_page_context(
        client=client, workspace_id=workspace_id, zone=zone, object_key=object_key, record_id=record_id
    )
    return render(request, "objects/record.html", context)


@require_http_methods(["GET", "POST"])
def record_delete(request: HttpRequest, object_key: str, record_id: str) -> HttpResponse:
    """Asks first (its relationships go too), then deletes."""
    client, workspace_id, zone = _records_workspace(request)
    form = RecordDeleteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        _records_services.record_delete(
            client=client,
            object_key=object_key,
            record_id=record_id,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
        return _records_redirect(request, reverse("objects:records", args=[object_key]))
    definition = _records_definition(client=client, workspace_id=workspace_id, object_key=object_key)
    record = _records_selectors.record_get(client=client, object_key=object_key, record_id=record_id)
    title_key = title_field_key(definition)
    title = ((record.get("values") or {}).get(title_key) if title_key else None) or "Untitled"
    context = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record_title": title,
        "nav_section": "objects",
    }
    template = "objects/record.html#delete-confirm" if _records_swap(request) else "objects/record_delete.html"
    return render(request, template, context)


def _link_targets(*, client) -> list[dict]:
    """Every object a record can link to: custom ones and the built-in ones."""
    return list(client.paginate("/v1/objects", params={"limit": 100}, item_key="objects"))


@require_http_methods(["GET", "POST"])
def relationship_new(request: HttpRequest, object_key: str, record_id: str) -> HttpResponse:
    """The add-link form (loaded on demand so the record page stays at three calls), and its post."""
    client, workspace_id, zone = _records_workspace(request)
    targets = _link_targets(client=client)
    form = RelationshipForm(request.POST or None, objects=targets, initial={"target_object": object_key})
    context = {"link_form": form, "object_key": object_key, "record_id": record_id}
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            _records_services.relationship_create(
                client=client,
                object_key=object_key,
                record_id=record_id,
                relation_key=data["relation_key"],
                target_object=data["target_object"],
                target_id=data["target"],
                label=data.get("label", ""),
                metadata=data.get("metadata") or {},
                idempotency_key=data["idempotency_key"],
            )
        except (
            _api_errors.UnprocessableError,
            _api_errors.InvalidRequestError,
            _api_errors.ConflictError,
            _api_errors.NotFoundError,
        ) as exc:
            placed = False
            for name, messages in (exc.field_errors or {}).items():
                leaf = name.split(".")[-1]
                target_field = {"id": "target_id", "object": "target_object", "target": "target_id"}.get(leaf, leaf)
                if target_field in form.fields:
                    for message in messages or [exc.message]:
                        form.add_error(target_field, message)
                    placed = True
            if not placed:
                form.add_error(None, exc.message)
            _renew_idempotency_key(form)
            context["error"] = exc
        else:
            if not _records_swap(request):
                return HttpResponseRedirect(reverse("objects:record", args=[object_key, record_id]) + "#relationships")
            # The panel, re-read, in place of the form's region (a redirect to
            # this same page plus a #fragment would not reload it).
            page = _record_page_context(
                client=client, workspace_id=workspace_id, zone=zone, object_key=object_key, record_id=record_id
            )
            response = render(request, "objects/record.html#relationships", page)
            response["HX-Retarget"] = "#relationships"
            response["HX-Reswap"] = "outerHTML"
            return response
    if request.method == "POST" and (request.POST.get("target_search") or request.POST.get("target_pick")):
        # Re-rendered with a message: show the same search results, the pick still chosen.
        context.update(
            _picker_context(
                client=client,
                workspace_id=workspace_id,
                object_key=object_key,
                record_id=record_id,
                target_object=request.POST.get("target_object") or object_key,
                text=request.POST.get("target_search", "").strip(),
                picked=request.POST.get("target_pick", ""),
            )
        )
    if _records_swap(request):
        return render(request, "objects/record.html#link-form", context)
    page = _record_page_context(
        client=client, workspace_id=workspace_id, zone=zone, object_key=object_key, record_id=record_id
    )
    return render(request, "objects/record.html", {**page, **context})


def _picker_context(
    *, client, workspace_id: str, object_key: str, record_id: str, target_object: str, text: str, picked: str = ""
) -> dict:
    """The picker's choices: the target object's first records matching the text."""
    choices = []
    error = None
    try:
        definition = _records_definition(client=client, workspace_id=workspace_id, object_key=target_object)
        title_key = title_field_key(definition)
        for item in _records_selectors.record_search(client=client, object_key=target_object, text=text):
            values = item.get("values") or {}
            title = values.get(title_key) if title_key else None
            if str(item.get("id")) == record_id and target_object == object_key:
                continue  # a record does not link to itself
            choices.append(
                {"id": str(item.get("id", "")), "title": str(title) if title not in (None, "") else "Untitled"}
            )
    except _api_errors.ApiError as exc:
        error = exc
    return {
        "choices": choices,
        "picker_error": error,
        "target_object": target_object,
        "searched": text,
        "picked": picked,
        "picker_shown": True,
    }


@require_GET
def relationship_picker(request: HttpRequest, object_key: str, record_id: str) -> HttpResponse:
    """Search-as-you-type over the target object's records (10 at most)."""
    client, workspace_id, zone = _records_workspace(request)
    context = _picker_context(
        client=client,
        workspace_id=workspace_id,
        object_key=object_key,
        record_id=record_id,
        target_object=request.GET.get("target_object", "").strip() or object_key,
        text=request.GET.get("target_search", "").strip(),
    )
    return render(request, "objects/record.html#picker-results", context)
