"""The records side of the 15 field types, in one place: the form field and
widget for each type, how a stored value becomes what the form shows and what
is sent back, and how a value is shown in a table cell or a CSV row.

A field definition is the dict the service returns inside an object's
`fields` (api-spec.md, "Field"): `key`, `label`, `type`, `options`,
`required`, `origin`. Everything here reads it tolerantly: a missing type is
`text`, options may be plain strings (labels) or `{id, label, color}`.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.core.exceptions import ValidationError
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import pgettext

from dashboard.web import local_formats, reading
from dashboard.web.local_formats import Formats
from objects.schema import (
    ADDRESS_TYPES,
    CHOICE_TYPES,
    FIELD_TYPE_LABELS,
    NUMBER_TYPES,
    SINGLE_CHOICE_TYPES,
    FieldType,
)

WEB_SCHEMES = frozenset({"http", "https"})
# The "is empty" filter is sent as JSON null (api-spec.md, records `filter`).
EMPTY = None


@dataclass(frozen=True)
class Option:
    id: str
    label: str
    color: str


@dataclass(frozen=True)
class FieldDef:
    """One field of an object, as the records side needs it."""

    key: str
    label: str
    type: str
    required: bool
    options: tuple[Option, ...]
    origin: str
    max_length: int | None
    raw: dict

    @property
    def type_label(self) -> str:
        return FIELD_TYPE_LABELS.get(self.type, self.type)

    @property
    def is_choice(self) -> bool:
        return self.type in CHOICE_TYPES

    @property
    def is_number(self) -> bool:
        return self.type in NUMBER_TYPES

    @property
    def is_multi_select(self) -> bool:
        return self.type == FieldType.MULTI_SELECT

    def option_for(self, stored: Any) -> Option | None:
        """The option a stored value names: records store the option id, but
        a value written before an options edit may still be its label, and
        another implementation may send the option itself (`{id, label}`)."""
        if isinstance(stored, dict):
            return self.option_for(stored.get("id")) or self.option_for(stored.get("label"))
        for option in self.options:
            if stored == option.id:
                return option
        for option in self.options:
            if stored == option.label:
                return option
        return None

    def option_id(self, stored: Any) -> Any:
        """The id of the option a stored value names, else the value as it is."""
        option = self.option_for(stored)
        return option.id if option else stored


def option_list(raw_options: Any) -> tuple[Option, ...]:
    options = []
    for raw in raw_options or []:
        if isinstance(raw, str):
            options.append(Option(id=raw, label=raw, color=""))
        elif isinstance(raw, dict):
            label = str(raw.get("label") or raw.get("name") or raw.get("id") or "")
            options.append(Option(id=str(raw.get("id") or label), label=label, color=str(raw.get("color") or "")))
    return tuple(options)


def field_defs(definition: dict) -> list[FieldDef]:
    """The object's fields, title field first (the table's first column)."""
    result = []
    for raw in definition.get("fields") or []:
        if not isinstance(raw, dict) or not raw.get("key"):
            continue
        max_length = raw.get("max_length") or raw.get("maxLength")
        result.append(
            FieldDef(
                key=str(raw["key"]),
                label=str(raw.get("label") or raw["key"]),
                type=str(raw.get("type") or FieldType.TEXT),
                required=bool(raw.get("required")),
                options=option_list(raw.get("options")),
                origin=str(raw.get("origin") or "custom"),
                max_length=int(max_length) if isinstance(max_length, int) else None,
                raw=raw,
            )
        )
    title_key = title_field_key(definition)
    result.sort(key=lambda field: field.key != title_key)
    return result


def title_field_key(definition: dict) -> str | None:
    """The field that titles a record: `title_field`, default the first field."""
    fields = [f for f in definition.get("fields") or [] if isinstance(f, dict) and f.get("key")]
    keys = [f["key"] for f in fields]
    title = definition.get("title_field")
    if title in keys:
        return title
    return keys[0] if keys else None


def is_web_address(value: Any) -> bool:
    """Only http and https become links or images (never javascript:, data:...)."""
    if not isinstance(value, str):
        return False
    # urlsplit, not urlparse: the same scheme and host, without parsing
    # `;params` (three of a record's fifteen cells ask, on every row).
    parsed = urlsplit(value.strip())
    return parsed.scheme.lower() in WEB_SCHEMES and bool(parsed.netloc)


def parse_stored_datetime(value: Any) -> dt.datetime | None:
    parsed: dt.datetime | None
    if isinstance(value, dt.datetime):
        parsed = value
    elif isinstance(value, str) and value:
        try:
            # fromisoformat reads the service's `...Z` stamps (Python 3.11) and is fast.
            parsed = dt.datetime.fromisoformat(value)
        except ValueError:
            try:
                parsed = parse_datetime(value.replace("Z", "+00:00"))
            except ValueError:
                parsed = None
    else:
        return None
    if parsed is None:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed


def parse_stored_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return parse_date(value[:10])
        except ValueError:
            return None
    return None


def parse_stored_number(value: Any) -> decimal.Decimal | None:
    if isinstance(value, bool) or value is None or value == "":
        return None
    try:
        return decimal.Decimal(str(value))
    except (decimal.InvalidOperation, ValueError):
        return None


def utc_iso(value: dt.datetime) -> str:
    """UTC ISO 8601 with a `Z`, as the spec's timestamps are written."""
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


# ---------------------------------------------------------------- form fields


class WorkspaceDateTimeField(forms.DateTimeField):
    """A `datetime-local` input read and shown in the workspace time zone,
    whatever the server's or the browser's zone is; sent as UTC."""

    input_formats = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"]

    def __init__(self, *, zone: dt.tzinfo, **kwargs):
        self.zone = zone
        kwargs.setdefault(
            "widget", forms.DateTimeInput(attrs={"type": "datetime-local", "step": "60"}, format="%Y-%m-%dT%H:%M")
        )
        super().__init__(**kwargs)

    def prepare_value(self, value):
        if isinstance(value, dt.datetime):
            aware = value if value.tzinfo else value.replace(tzinfo=self.zone)
            return aware.astimezone(self.zone).strftime("%Y-%m-%dT%H:%M")
        if isinstance(value, str) and (value.endswith("Z") or "+" in value[10:] or value[19:].count("-")):
            # A stored UTC value: show it as the workspace's wall-clock time.
            stored = parse_stored_datetime(value)
            if stored is not None:
                return stored.astimezone(self.zone).strftime("%Y-%m-%dT%H:%M")
        # Whatever the person typed is shown back unchanged.
        return value

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, dt.datetime):
            return value if value.tzinfo else value.replace(tzinfo=self.zone)
        text = str(value).strip()
        for fmt in self.input_formats:
            try:
                naive = dt.datetime.strptime(text, fmt)
            except ValueError:
                continue
            return naive.replace(tzinfo=self.zone)
        stored = parse_stored_datetime(text)
        if stored is not None:
            return stored
        raise ValidationError(self.error_messages["invalid"], code="invalid")


ADDRESS_KINDS = ("image", "file")


class AddressWidget(forms.URLInput):
    """An address input for image and file fields with its preview after it
    (a thumbnail for images, a link for files), rendered again by the server
    as the address is typed (objects.views.previews: a thumbnail only where
    the CSP lets it load, the host named otherwise; a script guessing that
    would either copy the frame's rule or make the browser try, and report,
    every refused address)."""

    template_name = "objects/widgets/address.html"

    def __init__(self, *, kind: str, attrs=None):
        self.kind = kind
        super().__init__(attrs={"data-preview": kind, "inputmode": "url", **(attrs or {})})

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        context["widget"].update(
            address_preview(input_id=context["widget"]["attrs"].get("id", ""), name=name, kind=self.kind, value=value)
        )
        return context


def address_preview(*, input_id: str, name: str, kind: str, value: Any) -> dict[str, Any]:
    """What the preview of an address input shows (the widget's and the
    preview view's context): only a web address is shown (never javascript:
    or data:)."""
    address = str(value or "").strip()
    return {
        "preview_for": input_id,
        "name": name,
        "kind": kind if kind in ADDRESS_KINDS else "file",
        "address": address,
        "web_address": address.startswith(("http://", "https://")),
    }


def _choices(field: FieldDef) -> list[tuple[str, str]]:
    return [(option.id, option.label) for option in field.options]


def form_field(field: FieldDef, *, zone: dt.tzinfo) -> forms.Field:
    """The Django form field and widget for one field definition."""
    common: dict[str, Any] = {"label": field.label, "required": field.required}
    kind = field.type
    if kind == FieldType.LONG_TEXT:
        return forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), max_length=field.max_length, **common)
    if kind == FieldType.NUMBER:
        return forms.DecimalField(widget=forms.NumberInput(attrs={"step": "any"}), **common)
    if kind == FieldType.CURRENCY:
        return forms.DecimalField(decimal_places=2, widget=forms.NumberInput(attrs={"step": "0.01"}), **common)
    if kind == FieldType.DATE:
        return forms.DateField(widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"), **common)
    if kind == FieldType.DATETIME:
        return WorkspaceDateTimeField(zone=zone, **common)
    if kind == FieldType.BOOLEAN:
        # A checkbox cannot say "unknown"; unchecked is sent as false.
        return forms.BooleanField(label=field.label, required=False)
    if kind == FieldType.EMAIL:
        return forms.EmailField(max_length=field.max_length, **common)
    if kind == FieldType.PHONE:
        return forms.CharField(
            widget=forms.TextInput(attrs={"type": "tel", "autocomplete": "tel"}), max_length=field.max_length, **common
        )
    if kind == FieldType.URL:
        return forms.URLField(assume_scheme="https", max_length=field.max_length, **common)
    if kind in ADDRESS_TYPES:
        return forms.URLField(
            assume_scheme="https", widget=AddressWidget(kind=kind), max_length=field.max_length, **common
        )
    if kind in SINGLE_CHOICE_TYPES:
        empty_label = "—" if not field.required else "Choose…"
        return forms.ChoiceField(choices=[("", empty_label), *_choices(field)], **common)
    if kind == FieldType.MULTI_SELECT:
        return forms.MultipleChoiceField(choices=_choices(field), widget=forms.CheckboxSelectMultiple, **common)
    return forms.CharField(max_length=field.max_length, **common)


def initial_value(field: FieldDef, stored: Any, *, zone: dt.tzinfo) -> Any:
    """What the form shows for a stored value."""
    if stored is None:
        return [] if field.type == FieldType.MULTI_SELECT else None
    kind = field.type
    if kind == FieldType.DATETIME:
        parsed = parse_stored_datetime(stored)
        return parsed.astimezone(zone) if parsed else stored
    if kind == FieldType.DATE:
        return parse_stored_date(stored) or stored
    if kind in NUMBER_TYPES:
        return parse_stored_number(stored)
    if kind == FieldType.BOOLEAN:
        return bool(stored)
    if kind in SINGLE_CHOICE_TYPES:
        return field.option_id(stored)
    if kind == FieldType.MULTI_SELECT:
        values = stored if isinstance(stored, list) else [stored]
        return [field.option_id(v) for v in values]
    return stored


def api_value(field: FieldDef, cleaned: Any) -> Any:
    """What is sent to the service for a cleaned form value; empty is `None`
    (JSON null clears a field)."""
    kind = field.type
    if kind == FieldType.BOOLEAN:
        return bool(cleaned)
    if cleaned in (None, "", []):
        return None
    if kind in NUMBER_TYPES:
        number = decimal.Decimal(cleaned)
        if kind == FieldType.CURRENCY:
            return float(number.quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP))
        return int(number) if number == number.to_integral_value() else float(number)
    if kind == FieldType.DATE:
        return cleaned.isoformat()
    if kind == FieldType.DATETIME:
        return utc_iso(cleaned)
    if kind == FieldType.MULTI_SELECT:
        return list(cleaned)
    return cleaned


def comparable(field: FieldDef, value: Any) -> Any:
    """A stored value and a sent value in one shape, to tell whether an edit
    changed the field (so an edit sends only what changed)."""
    if value in (None, "", []):
        return False if field.type == FieldType.BOOLEAN else None
    kind = field.type
    if kind == FieldType.BOOLEAN:
        return bool(value)
    if kind in NUMBER_TYPES:
        return parse_stored_number(value)
    if kind == FieldType.DATETIME:
        parsed = parse_stored_datetime(value)
        return parsed.astimezone(dt.UTC).replace(second=0, microsecond=0) if parsed else value
    if kind == FieldType.DATE:
        return parse_stored_date(value) or value
    if kind in SINGLE_CHOICE_TYPES:
        return field.option_id(value)
    if kind == FieldType.MULTI_SELECT:
        values = value if isinstance(value, list) else [value]
        return sorted(str(field.option_id(v)) for v in values)
    return value


# ---------------------------------------------------------------- table cells


@dataclass(frozen=True)
class Cell:
    """One shown value: `kind` picks the template branch in records.html."""

    kind: str  # empty, text, long_text, number, mark, link, chips, image, file
    text: str = ""
    href: str = ""
    chips: tuple[Option, ...] = ()
    value: Any = None


def format_number(value: Any, *, places: int | None = None, formats: Formats | None = None) -> str:
    """A stored number as the language writes it ("10,023.75", "10.023,75"); `formats`
    resolved once per page (local_formats.active()) where many values are shown."""
    number = parse_stored_number(value)
    if number is None:
        return str(value)
    return (formats or local_formats.active()).number(number, places=places)


def format_amount(value: Any, *, code: str, formats: Formats | None = None) -> str:
    """A currency value: "EUR 1,234.50" in English, "1.234,50 €" in German."""
    formats = formats or local_formats.active()
    return formats.amount(format_number(value, places=2, formats=formats), code)


def format_datetime(value: Any, *, zone: dt.tzinfo, formats: Formats | None = None) -> str:
    parsed = parse_stored_datetime(value)
    if parsed is None:
        return str(value)
    return (formats or local_formats.active()).date_time(parsed.astimezone(zone))


def format_stamp(record: dict, key: str, *, zone: dt.tzinfo, formats: Formats | None = None) -> str:
    """A record's `created_at` or `updated_at` as shown ("" without one)."""
    return format_datetime(record[key], zone=zone, formats=formats) if record.get(key) else ""


def format_date(value: Any, *, formats: Formats | None = None) -> str:
    parsed = parse_stored_date(value)
    return (formats or local_formats.active()).date(parsed) if parsed else str(value)


def file_name(address: str) -> str:
    path = urlsplit(address).path.rstrip("/")
    return path.rsplit("/", 1)[-1] or address


def yes_no(value: bool) -> str:
    """A yes/no value in the reader's words (CSV exports keep true/false: csv_value)."""
    return pgettext("a yes/no value", "Yes") if value else pgettext("a yes/no value", "No")


def cell(field: FieldDef, stored: Any, *, zone: dt.tzinfo, formats: Formats | None = None) -> Cell:
    """How a stored value is shown in the records table and on the record page, in
    the language's formats (`formats`: resolved once for a page of many cells)."""
    kind = field.type
    if stored is None or stored == "" or stored == []:
        return Cell(kind="empty")
    if isinstance(stored, (dict, list)) and kind not in CHOICE_TYPES:
        # Not the field type's shape: shown as the exact JSON, never str() of a dict.
        return Cell(kind="text", text=json.dumps(stored, ensure_ascii=False))
    if kind == FieldType.BOOLEAN:
        yes = stored is True or (isinstance(stored, str) and stored.strip().lower() == "true") or stored == 1
        return Cell(kind="mark", value=yes, text=yes_no(yes))
    if kind == FieldType.NUMBER:
        return Cell(kind="number", text=format_number(stored, formats=formats))
    if kind == FieldType.CURRENCY:
        return Cell(kind="number", text=format_amount(stored, code=field.raw.get("currency") or "", formats=formats))
    if kind == FieldType.DATE:
        return Cell(kind="text", text=format_date(stored, formats=formats))
    if kind == FieldType.DATETIME:
        return Cell(kind="text", text=format_datetime(stored, zone=zone, formats=formats))
    if kind == FieldType.EMAIL:
        return Cell(kind="link", text=str(stored), href=f"mailto:{stored}")
    if kind == FieldType.PHONE:
        digits = "".join(ch for ch in str(stored) if ch.isdigit() or ch == "+")
        return Cell(kind="link", text=str(stored), href=f"tel:{digits}")
    if kind == FieldType.URL:
        if is_web_address(stored):
            return Cell(kind="link", text=str(stored), href=str(stored).strip())
        return Cell(kind="text", text=str(stored))
    if kind == FieldType.IMAGE:
        if is_web_address(stored):
            return Cell(kind="image", text=file_name(str(stored)), href=str(stored).strip())
        return Cell(kind="text", text=str(stored))
    if kind == FieldType.FILE:
        if is_web_address(stored):
            return Cell(kind="file", text=file_name(str(stored)), href=str(stored).strip())
        return Cell(kind="text", text=str(stored))
    if kind in CHOICE_TYPES:
        values = stored if isinstance(stored, list) else [stored]
        chips = []
        for value in values:
            option = field.option_for(value)
            if option is None and isinstance(value, dict):
                label = reading.text(value.get("label") or value.get("id") or value)
                option = Option(id=reading.text(value.get("id")) or label, label=label, color="")
            chips.append(option or Option(id=reading.text(value), label=reading.text(value), color=""))
        return Cell(kind="chips", chips=tuple(chips))
    if kind == FieldType.LONG_TEXT:
        return Cell(kind="long_text", text=str(stored))
    if isinstance(stored, (dict, list)):
        return Cell(kind="text", text=json.dumps(stored, ensure_ascii=False))
    return Cell(kind="text", text=str(stored))


def csv_value(field: FieldDef, stored: Any, *, zone: dt.tzinfo) -> str:
    """A value as a CSV cell: choice labels instead of ids, numbers unformatted
    so a spreadsheet reads them as numbers, times in the workspace zone."""
    if stored is None or stored == "" or stored == []:
        return ""
    kind = field.type
    if kind == FieldType.BOOLEAN:
        return "yes" if stored else "no"
    if kind in CHOICE_TYPES:
        values = stored if isinstance(stored, list) else [stored]
        labels = []
        for value in values:
            option = field.option_for(value)
            labels.append(option.label if option else reading.text(value))
        return "; ".join(labels)
    if kind == FieldType.DATETIME:
        parsed = parse_stored_datetime(stored)
        return parsed.astimezone(zone).isoformat() if parsed else str(stored)
    if kind == FieldType.CURRENCY:
        number = parse_stored_number(stored)
        return (
            f"{number.quantize(decimal.Decimal('0.01'), rounding=decimal.ROUND_HALF_UP)}"
            if number is not None
            else str(stored)
        )
    if isinstance(stored, (dict, list)):
        return json.dumps(stored, ensure_ascii=False)
    return str(stored)


def editable_fields(fields: list[FieldDef]) -> list[FieldDef]:
    """Built-in fields (`origin: system`) cannot be changed."""
    return [f for f in fields if f.origin != "system"]
