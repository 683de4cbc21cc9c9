"""The schema side of Objects: the objects list, a new object with its fields
builder (which works without JavaScript too), and an object's settings."""

from __future__ import annotations

import re

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from dashboard.api import errors as api_errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import renew_idempotency_key
from dashboard.web.htmx import client_redirect, is_partial, render_region
from dashboard.web.pager import CursorPager, choice, tabs
from dashboard.web.params import bounded_int
from objects.forms import (
    FieldRemoveForm,
    FieldRowForm,
    NewObjectFieldRows,
    ObjectForm,
    ObjectSettingsForm,
    SettingsFieldRows,
    option_color_for,
)
from objects.records import READ_ONLY
from objects.schema import DEFAULT_COLOR, DEFAULT_ICON, FIELD_TYPE_LABELS, ICONS, FieldType, icon_file, snake_case
from objects.selectors import object_definition_get, object_list
from objects.services import object_create, object_update

OBJECT_KINDS = [("custom", "Custom"), ("system", "System")]
OBJECTS_PAGE_SIZE = 25
FIELD_ROWS_PREFIX = "fields"
ROW_PREFIX_PATTERN = re.compile(r"^fields-[0-9]{1,4}$")
# More rows than a formset reads (Django's absolute_max is 2,000): a tampered count is cut here.
MAX_FIELD_ROWS = 1000
OBJECT_SETTINGS_NAMES = ("singular_name", "plural_name", "description", "icon", "color", "title_field")


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
    return reverse("objects:records", args=[object_key])


@require_GET
def index(request: ConsoleRequest) -> HttpResponse:
    kind = choice(request.GET.get("kind"), OBJECT_KINDS, "custom")
    pager = CursorPager.from_query(request.GET)
    page = object_list(client=request.workspace.client, kind=kind, cursor=pager.remote_cursor, limit=OBJECTS_PAGE_SIZE)
    context = {
        "kind": kind,
        "kinds": tabs(OBJECT_KINDS, kind, param="kind"),
        "objects": [_object_summary(obj) for obj in page.items],
        "paging": pager.links({"kind": kind}, page.next_cursor),
    }
    return render_region(request, "objects/index.html", "object_list", context)


# ---- New object -------------------------------------------------------------


def _builder_action(data: QueryDict) -> QueryDict | None:
    """The fields builder without JavaScript: "Add field", "Remove" and the
    option buttons are submit buttons; apply them to the posted data (nothing
    typed is lost) and return it, or None for a real submit."""
    if not any(name in data for name in ("add_field", "remove_field", "add_option", "remove_option")):
        return None
    data = data.copy()
    total_name = f"{FIELD_ROWS_PREFIX}-TOTAL_FORMS"
    if "add_field" in data:
        data[total_name] = str(bounded_int(data.get(total_name), default=0, highest=MAX_FIELD_ROWS - 1) + 1)
    removed = bounded_int(data.get("remove_field"), default=-1, lowest=-1, highest=MAX_FIELD_ROWS)
    if removed >= 0:
        data[f"{FIELD_ROWS_PREFIX}-{removed}-DELETE"] = "on"
    prefix = data.get("add_option", "")
    if ROW_PREFIX_PATTERN.match(prefix):
        count = len(data.getlist(f"{prefix}-option_label"))
        data.appendlist(f"{prefix}-option_id", "")
        data.appendlist(f"{prefix}-option_label", "")
        data.appendlist(f"{prefix}-option_color", option_color_for(count))
    prefix, _, index = data.get("remove_option", "").partition(":")
    option = bounded_int(index, default=-1, lowest=-1, highest=MAX_FIELD_ROWS)
    if ROW_PREFIX_PATTERN.match(prefix) and option >= 0:
        for part in ("option_id", "option_label", "option_color"):
            values = data.getlist(f"{prefix}-{part}")
            if option < len(values):
                del values[option]
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


@require_GET
@requires_write(READ_ONLY)
def object_new(request: ConsoleRequest) -> HttpResponse:
    request.workspace.require_key()  # no key: the middleware sends them to add one before they type
    form = ObjectForm()
    rows = NewObjectFieldRows(prefix=FIELD_ROWS_PREFIX)
    return render(request, "objects/new.html", _new_object_context(form=form, rows=rows, title_row="0"))


@require_POST
@requires_write(READ_ONLY)
def object_create_view(request: ConsoleRequest) -> HttpResponseBase:
    builder_data = _builder_action(request.POST)
    data = builder_data if builder_data is not None else request.POST
    title_row = data.get("title_row", "")
    form = ObjectForm(data)
    rows = NewObjectFieldRows(data, prefix=FIELD_ROWS_PREFIX)
    if builder_data is not None:
        return render_region(
            request,
            "objects/new.html",
            "object_form",
            _new_object_context(form=form, rows=rows, title_row=title_row, quiet=True),
        )
    if not (form.is_valid() & rows.is_valid()):
        return render_region(
            request, "objects/new.html", "object_form", _new_object_context(form=form, rows=rows, title_row=title_row)
        )

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
    client = request.workspace.client
    extra: dict = {}
    try:
        created = object_create(
            client=client,
            workspace_id=request.workspace.id,
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
    except api_errors.ApiError as exc:
        # A refusal lands on the inputs it names (rows too); anything else
        # (5xx, timeout, 429...) is a box above the form, which keeps what was typed.
        extra["remote_error"] = failed_write(request, form, exc, rows=sent_rows)
    else:
        messages.success(request, f"Created {created.get('plural_name') or body['plural_name']}.")
        return client_redirect(
            request, reverse("objects:settings", args=[created.get("key") or snake_case(body["plural_name"])])
        )
    return render_region(
        request,
        "objects/new.html",
        "object_form",
        _new_object_context(form=form, rows=rows, title_row=title_row, **extra),
    )


@require_GET
def object_key_preview(request: ConsoleRequest) -> HttpResponse:
    return render(
        request, "objects/new.html#derived_key", {"derived_key": snake_case(request.GET.get("plural_name", ""))}
    )


@require_GET
def field_row_new(request: ConsoleRequest) -> HttpResponse:
    """One more row for the fields builder, and the formset's new total (out of band)."""
    index = bounded_int(request.GET.get(f"{FIELD_ROWS_PREFIX}-TOTAL_FORMS"), default=0, highest=MAX_FIELD_ROWS - 1)
    form = FieldRowForm(prefix=f"{FIELD_ROWS_PREFIX}-{index}", empty_permitted=True, use_required_attribute=False)
    return render(
        request,
        "objects/_field_row.html",
        {"form": form, "show_title_choice": request.GET.get("title") == "1", "new_total": index + 1},
    )


@require_GET
def field_row_removed(request: ConsoleRequest) -> HttpResponse:
    """What stays of a removed new row: its DELETE mark, so the formset's numbering holds."""
    index = bounded_int(request.GET.get("index"), default=-1, lowest=-1, highest=MAX_FIELD_ROWS)
    return render(
        request,
        "objects/_field_row.html#removed_row",
        {"removed_prefix": f"{FIELD_ROWS_PREFIX}-{index}" if index >= 0 else ""},
    )


@require_GET
def field_option_new(request: ConsoleRequest) -> HttpResponse:
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
        "type": field.get("type") or FieldType.TEXT,
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
            {**f, "type_label": FIELD_TYPE_LABELS.get(f.get("type") or FieldType.TEXT, f.get("type"))}
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
        count = bounded_int(data.get(f"{FIELD_ROWS_PREFIX}-INITIAL_FORMS"), default=0, highest=MAX_FIELD_ROWS)
        initial = [
            _field_initial(by_key[k]) if (k := data.get(f"{FIELD_ROWS_PREFIX}-{i}-original_key")) in by_key else {}
            for i in range(count)
        ]
    else:
        initial = [_field_initial(f) for f in custom]
    form = ObjectSettingsForm(data, initial=_object_initial(definition), field_choices=_field_choices(definition))
    rows = SettingsFieldRows(data, prefix=FIELD_ROWS_PREFIX, initial=initial)
    return form, rows


@require_GET
@requires_write(READ_ONLY)
def object_settings(request: ConsoleRequest, object_key: str) -> HttpResponse:
    client = request.workspace.client
    definition = object_definition_get(
        client=client, workspace_id=request.workspace.id, object_key=object_key, fresh=True
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
@requires_write(READ_ONLY)
def object_settings_save(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    client = request.workspace.client
    workspace_id = request.workspace.id
    definition = object_definition_get(client=client, workspace_id=workspace_id, object_key=object_key, fresh=True)
    builder_data = _builder_action(request.POST)
    form, rows = _settings_forms(definition=definition, data=builder_data if builder_data is not None else request.POST)
    if builder_data is not None:
        return render_region(
            request,
            "objects/settings.html",
            "settings_form",
            _settings_context(definition=definition, form=form, rows=rows, quiet=True),
        )
    if not (form.is_valid() & rows.is_valid()):
        return render_region(
            request,
            "objects/settings.html",
            "settings_form",
            _settings_context(definition=definition, form=form, rows=rows),
        )

    changes, item_rows = _settings_changes(definition=definition, form=form, sent_rows=rows.live_forms())
    if not changes:
        messages.info(request, gettext("Nothing changed."))
        return client_redirect(request, reverse("objects:settings", args=[object_key]))
    extra: dict = {}
    try:
        object_update(
            client=client,
            workspace_id=workspace_id,
            object_key=object_key,
            changes=changes,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except api_errors.ApiError as exc:
        # A refusal lands on the inputs it names (rows too); anything else
        # (5xx, timeout, 429...) is a box above the form, which keeps what was typed.
        extra["remote_error"] = failed_write(request, form, exc, rows=item_rows)
    else:
        messages.success(request, gettext("Saved."))
        return client_redirect(request, reverse("objects:settings", args=[object_key]))
    return render_region(
        request,
        "objects/settings.html",
        "settings_form",
        _settings_context(definition=definition, form=form, rows=rows, **extra),
    )


def _custom_field(definition: dict, field_key: str) -> dict | None:
    return next(
        (f for f in definition.get("fields") or [] if f.get("key") == field_key and not _is_system_field(f)), None
    )


@require_GET
@requires_write(READ_ONLY)
def field_remove_confirm(request: ConsoleRequest, object_key: str, field_key: str) -> HttpResponseBase:
    """The confirmation step before a custom field is removed (in place with htmx, or the settings page)."""
    client = request.workspace.client
    definition = object_definition_get(client=client, workspace_id=request.workspace.id, object_key=object_key)
    field = _custom_field(definition, field_key)
    if field is None:
        messages.error(
            request, f"“{field_key}” is not a custom field of this object; built-in fields can't be removed."
        )
        return client_redirect(request, reverse("objects:settings", args=[object_key]))
    return _render_field_removal(request, definition=definition, removal={"field": field, "form": FieldRemoveForm()})


def _render_field_removal(request: ConsoleRequest, *, definition: dict, removal: dict) -> HttpResponse:
    """The removal confirmation: in place for htmx, else on the settings page."""
    if is_partial(request):
        context = {"removal": removal, "object_key": definition.get("key") or ""}
        return render(request, "objects/settings.html#field_removal", context)
    form, rows = _settings_forms(definition=definition)
    return render(
        request,
        "objects/settings.html",
        _settings_context(definition=definition, form=form, rows=rows, removal=removal),
    )


@require_POST
@requires_write(READ_ONLY)
def field_remove(request: ConsoleRequest, object_key: str, field_key: str) -> HttpResponseBase:
    client = request.workspace.client
    workspace_id = request.workspace.id
    definition = object_definition_get(client=client, workspace_id=workspace_id, object_key=object_key)
    field = _custom_field(definition, field_key)
    confirm = FieldRemoveForm(request.POST)
    if field is None or not confirm.is_valid():
        messages.error(request, f"“{field_key}” can't be removed.")
        return client_redirect(request, reverse("objects:settings", args=[object_key]))
    try:
        object_update(
            client=client,
            workspace_id=workspace_id,
            object_key=object_key,
            changes={"remove_fields": [field_key]},
            idempotency_key=confirm.cleaned_data["idempotency_key"],
        )
    except api_errors.ApiError as exc:
        removal = {"field": field, "form": confirm, "remote_error": failed_write(request, confirm, exc)}
        return _render_field_removal(request, definition=definition, removal=removal)
    messages.success(
        request,
        f"Removed the field “{field.get('label') or field_key}”. Its values stay on records but are no longer shown.",
    )
    return client_redirect(request, reverse("objects:settings", args=[object_key]))
