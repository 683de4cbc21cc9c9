"""Forms of the Objects area: an object and its fields builder, a record's values, a link between records."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Sequence
from typing import Any, cast

from django import forms
from django.forms.renderers import BaseRenderer
from django.forms.utils import ErrorList
from django.utils.datastructures import MultiValueDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dashboard.api import errors
from dashboard.frame.forms import place_remote_error
from dashboard.idempotency import IdempotencyKeyField, renew_idempotency_key
from dashboard.web.json_input import JsonInputError, parse_json_object
from dashboard.web.reading import as_dict
from objects.edits import MAX_SHOWN_LENGTH, EditPlan, decode_values, encode_values, plan_edit
from objects.fields import FieldDef, api_value, field_defs, form_field, initial_value
from objects.schema import (
    CHOICE_TYPES,
    COLOR_MAX_LENGTH,
    DEFAULT_COLOR,
    DEFAULT_ICON,
    DESCRIPTION_MAX_LENGTH,
    FIELD_LABEL_MAX_LENGTH,
    FIELD_TYPES,
    ICON_MAX_LENGTH,
    NAME_MAX_LENGTH,
    FieldType,
    snake_case,
)

# Form fields of RecordForm itself: an object field with one of these keys is not editable here.
RESERVED_NAMES = frozenset({"idempotency_key", "shown_values", "list"})
FIELD_KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
HEX_COLOR_PATTERN = re.compile(r"^#[0-9a-fA-F]{6}$")
# New options get these colours in turn, so a fresh select is not all grey.
OPTION_PALETTE = ["#3b82f6", "#22c55e", "#f59e0b", "#ef4444", "#a855f7", "#14b8a6", "#ec4899", "#64748b"]


def option_color_for(index: int) -> str:
    return OPTION_PALETTE[index % len(OPTION_PALETTE)]


def normalize_options(options: list | None) -> list[dict]:
    """Options as the service returns them (strings are labels, or `{id, label, color}`)
    as `{id, label, color}` dicts, for the editor and for diffs."""
    normalized = []
    for option in options or []:
        if isinstance(option, str):
            normalized.append({"id": "", "label": option, "color": ""})
        elif isinstance(option, dict):
            normalized.append(
                {
                    "id": str(option.get("id") or ""),
                    "label": str(option.get("label") or ""),
                    "color": str(option.get("color") or ""),
                }
            )
    return normalized


class ObjectForm(forms.Form):
    """Names, description, icon and colour of an object (new and settings)."""

    singular_name = forms.CharField(max_length=NAME_MAX_LENGTH, label=gettext_lazy("Singular name"))
    plural_name = forms.CharField(
        max_length=NAME_MAX_LENGTH,
        label=gettext_lazy("Plural name"),
        help_text=gettext_lazy("Makes the object's key, which never changes."),
    )
    description = forms.CharField(
        max_length=DESCRIPTION_MAX_LENGTH, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    # Rendered as a picker of vendored Lucide icons (templates/objects/new.html#icon_picker).
    icon = forms.CharField(max_length=ICON_MAX_LENGTH, required=False, initial=DEFAULT_ICON)
    color = forms.CharField(
        max_length=COLOR_MAX_LENGTH,
        required=False,
        initial=DEFAULT_COLOR,
        label=gettext_lazy("Colour"),
        widget=forms.TextInput(attrs={"type": "color"}),
    )
    idempotency_key = IdempotencyKeyField()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A colour set outside the console may not be #rrggbb, which a colour input cannot show.
        current = self.initial.get("color") or ""
        if current and not HEX_COLOR_PATTERN.match(current):
            self.fields["color"].widget = forms.TextInput()

    def clean_icon(self) -> str:
        return self.cleaned_data["icon"] or DEFAULT_ICON

    def clean_color(self) -> str:
        return self.cleaned_data["color"] or DEFAULT_COLOR


class ObjectSettingsForm(ObjectForm):
    """ObjectForm plus the title field, chosen among the object's existing fields."""

    title_field = forms.ChoiceField(required=False, label=gettext_lazy("Title field"))

    def __init__(self, *args, field_choices: Sequence[tuple[str, str]] = (), **kwargs):
        super().__init__(*args, **kwargs)
        title_field = self.fields["title_field"]
        assert isinstance(title_field, forms.ChoiceField)
        title_field.choices = [("", "First field (default)"), *field_choices]
        self.fields["plural_name"].help_text = "Renaming keeps the key, which never changes."


class FieldRowForm(forms.Form):
    """One row of the fields builder. Options are not Django fields: each row
    posts parallel lists `<prefix>-option_id`, `-option_label`, `-option_color`
    (one entry per option row), so option rows can be added and removed in
    place without renumbering anything."""

    label = forms.CharField(max_length=FIELD_LABEL_MAX_LENGTH)
    key = forms.CharField(
        max_length=FIELD_LABEL_MAX_LENGTH,
        required=False,
        help_text=gettext_lazy("The label in snake_case by default."),
    )
    type = forms.ChoiceField(choices=FIELD_TYPES, initial=FieldType.TEXT)
    required = forms.BooleanField(required=False)
    # The key of the existing field this row edits (settings); empty for a new field.
    original_key = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.initial.get("original_key"):
            # An existing field's key never changes; it is shown, not edited.
            self.fields["key"].disabled = True

    @property
    def index(self) -> int:
        """The row's number in the formset (its prefix is `fields-<index>`)."""
        tail = (self.prefix or "").rsplit("-", 1)[-1]
        return int(tail) if tail.isdigit() else 0

    @property
    def is_removed(self) -> bool:
        return bool(self.is_bound and self.data.get(self.add_prefix("DELETE")))

    @property
    def is_existing(self) -> bool:
        return bool(
            self.initial.get("original_key") or (self.is_bound and self.data.get(self.add_prefix("original_key")))
        )

    @property
    def option_rows(self) -> list[dict]:
        """The option rows to render: what was posted (kept exactly as typed), or
        the field's options, or one blank row for a choice type."""
        if self.is_bound:
            # A bound row's data is the posted QueryDict (the formset passes request.POST).
            assert isinstance(self.data, MultiValueDict)
            ids = self.data.getlist(self.add_prefix("option_id"))
            labels = self.data.getlist(self.add_prefix("option_label"))
            colors = self.data.getlist(self.add_prefix("option_color"))
            rows: list[dict[str, Any]] = [
                {
                    "id": ids[i] if i < len(ids) else "",
                    "label": label,
                    "color": colors[i] if i < len(colors) else option_color_for(i),
                }
                for i, label in enumerate(labels)
            ]
        else:
            rows = normalize_options(self.initial.get("options"))
            for i, row in enumerate(rows):
                row["color"] = row["color"] or option_color_for(i)
        if not rows:
            rows = [{"id": "", "label": "", "color": option_color_for(0)}]
        for row in rows:
            # A colour input can only show #rrggbb; other colours are edited as text.
            row["is_hex"] = bool(HEX_COLOR_PATTERN.match(row["color"]))
        return rows

    @property
    def current_type(self) -> str:
        if self.is_bound:
            return self.data.get(self.add_prefix("type")) or FieldType.TEXT
        return self.initial.get("type") or FieldType.TEXT

    @property
    def shows_options(self) -> bool:
        return self.current_type in CHOICE_TYPES

    def clean_key(self) -> str:
        key = self.cleaned_data.get("key") or ""
        if key and not FIELD_KEY_PATTERN.match(key):
            raise forms.ValidationError(_("Use lower-case letters, digits and underscores, starting with a letter."))
        return key

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if (
            cleaned.get("label")
            and not cleaned.get("key")
            and not self.is_existing
            and not snake_case(cleaned["label"])
        ):
            self.add_error("key", _("The label has no letters or digits to make a key from; give a key."))
        options = [row for row in self.option_rows if row["label"].strip()]
        # The clean payload is built from plain id/label/color only.
        options = [{"id": row["id"], "label": row["label"], "color": row["color"]} for row in options]
        if cleaned.get("type") in CHOICE_TYPES:
            if not options:
                self.add_error(None, _("Add at least one option for this type."))
            labels = [row["label"].strip().lower() for row in options]
            if len(set(labels)) != len(labels):
                self.add_error(None, _("Two options have the same label."))
        cleaned["options"] = [
            {**({"id": row["id"]} if row["id"] else {}), "label": row["label"].strip(), "color": row["color"]}
            for row in options
        ]
        return cleaned

    @property
    def field_key(self) -> str:
        """The key this row has or will get (explicit, existing, or the label in snake_case)."""
        data = getattr(self, "cleaned_data", {}) or {}
        return self.initial.get("original_key") or data.get("key") or snake_case(data.get("label") or "")

    def as_payload(self) -> dict:
        """The Field object sent to the service for a new field."""
        data = self.cleaned_data
        payload: dict = {"label": data["label"], "type": data["type"], "required": bool(data["required"])}
        if data.get("key"):
            payload["key"] = data["key"]
        if data["type"] in CHOICE_TYPES:
            payload["options"] = [{k: v for k, v in option.items() if k != "id"} for option in data["options"]]
        return payload

    def changes_from(self, original: dict) -> dict:
        """Only what changed on an existing field, as a `fields` item keyed by `key`."""
        data = self.cleaned_data
        changes: dict = {}
        if data["label"] != (original.get("label") or ""):
            changes["label"] = data["label"]
        original_type = original.get("type") or FieldType.TEXT
        if data["type"] != original_type:
            changes["type"] = data["type"]
        if bool(data["required"]) != bool(original.get("required")):
            changes["required"] = bool(data["required"])
        if data["type"] in CHOICE_TYPES:
            before = [
                {k: v for k, v in {"id": o["id"], "label": o["label"], "color": o["color"]}.items() if v}
                for o in normalize_options(original.get("options"))
            ]
            after = [{k: v for k, v in option.items() if v} for option in data["options"]]
            if after != before or "type" in changes:
                changes["options"] = data["options"]
        if changes:
            changes = {"key": original["key"], **changes}
        return changes


class BaseFieldRowFormSet(forms.BaseFormSet):
    default_error_messages = {
        **forms.BaseFormSet.default_error_messages,
        # The hidden row counts were changed or lost: say so in words, keep what was typed.
        "missing_management_form": (
            "The list of fields could not be read (the page's hidden row counts were changed or are missing). "
            "Reload the page and add the fields again."
        ),
        "too_few_forms": "Add at least one field.",
    }
    # Set by BaseFormSet.__init__ and full_clean; django-stubs 5.2 does not declare them.
    error_messages: dict[str, str]
    renderer: BaseRenderer
    _non_form_errors: ErrorList

    def full_clean(self) -> None:
        super().full_clean()
        # Django drops the tampered-counts error when a count check fails after it: keep it, first.
        tampered = self.error_messages["missing_management_form"]
        if self.is_bound and not self.management_form.is_valid() and tampered not in list(self._non_form_errors):
            self._non_form_errors = self.error_class(
                [tampered, *self._non_form_errors], error_class="nonform", renderer=self.renderer
            )

    def live_forms(self) -> list[FieldRowForm]:
        """Rows not removed and not left blank."""
        return [
            form
            for form in self.forms
            if not self._should_delete_form(form)  # type: ignore[attr-defined]  # a BaseFormSet method django-stubs lacks
            and (form.has_changed() or form.is_existing or not form.empty_permitted)
        ]

    def clean(self):
        if any(self.errors):
            return
        seen: dict[str, FieldRowForm] = {}
        for form in self.live_forms():
            key = form.field_key
            if key in seen:
                form.add_error(
                    "label" if not form.cleaned_data.get("key") else "key",
                    f"Another field already has the key “{key}”.",
                )
            seen[key] = form


# formset_factory returns a subclass of `formset`; its stub says only BaseFormSet, hence the casts.
NewObjectFieldRows = cast(
    "type[BaseFieldRowFormSet]",
    forms.formset_factory(
        FieldRowForm, formset=BaseFieldRowFormSet, extra=0, min_num=1, validate_min=True, can_delete=True
    ),
)
SettingsFieldRows = cast(
    "type[BaseFieldRowFormSet]",
    forms.formset_factory(FieldRowForm, formset=BaseFieldRowFormSet, extra=0, can_delete=True),
)


class FieldRemoveForm(forms.Form):
    """The confirmation step before `remove_fields`."""

    idempotency_key = IdempotencyKeyField()


class RecordForm(forms.Form):
    """A record's values, one form field per field of the object, built from
    its definition (required flags, max lengths, choices). An edit carries
    the values it showed (`shown_values`), so only what the person changed is
    sent (objects/edits.py). `only` keeps one field (an inline cell edit);
    `copy_of` fills a new record's form with another record's values."""

    # The field template (templates/forms/field.html) marks required fields with * in this form.
    required_css_class = "required"

    idempotency_key = IdempotencyKeyField()
    shown_values = forms.CharField(required=False, widget=forms.HiddenInput, max_length=MAX_SHOWN_LENGTH)

    def __init__(
        self,
        *args,
        definition: dict,
        zone: dt.tzinfo,
        record: dict | None = None,
        copy_of: dict | None = None,
        only: str | None = None,
        read_only: frozenset[str] = frozenset(),
        **kwargs,
    ):
        self.definition = definition
        self.zone = zone
        self.record = record
        self.record_fields: list[FieldDef] = [
            f for f in field_defs(definition) if f.key not in RESERVED_NAMES and (only is None or f.key == only)
        ]
        self.stored_values: dict = as_dict((record or {}).get("values"))
        source = record if record is not None else copy_of
        if source is not None:
            source_values = as_dict(source.get("values"))
            kwargs["initial"] = {
                f.key: initial_value(f, source_values.get(f.key), zone=zone) for f in self.record_fields
            }
            if record is not None:
                kwargs["initial"]["shown_values"] = encode_values(self.stored_values, self.record_fields)
        super().__init__(*args, **kwargs)
        for f in self.record_fields:
            self.fields[f.key] = form_field(f, zone=zone)
            self.fields[f.key].help_text = _record_help(f, zone)
            if f.key in read_only:
                # The object's access policy (objects/access.py): shown, never sent.
                self.fields[f.key].disabled = True
                self.fields[f.key].required = False
                self.fields[f.key].help_text = "Read-only for your role (the object's access policy)."

    def carried_values(self) -> dict | None:
        """The values this form showed when it was rendered (None: not carried)."""
        raw = self.cleaned_data.get("shown_values") if hasattr(self, "cleaned_data") else None
        return decode_values(raw)

    def values_wanted(self) -> dict:
        """Every field's value as it would be sent (empty is `None`)."""
        return {f.key: api_value(f, self.cleaned_data.get(f.key)) for f in self.record_fields}

    def edit_plan(self, choices) -> EditPlan:
        """What this edit sends, compared with what the form showed and with
        the record as it is now (the `record` it was built with, re-read)."""
        return plan_edit(
            fields=self.record_fields,
            shown=self.carried_values() or self.stored_values,
            wanted=self.values_wanted(),
            current=self.stored_values,
            choices=choices,
        )

    def field_pairs(self):
        """(definition, bound field) in the object's order, for the template."""
        return [(f, self[f.key]) for f in self.record_fields]

    def values_to_create(self) -> dict:
        """Every filled value (and every checkbox) for `POST .../records`."""
        values = {}
        for f in self.record_fields:
            if self.fields[f.key].disabled:
                continue
            value = api_value(f, self.cleaned_data.get(f.key))
            if value is not None:
                values[f.key] = value
        return values

    def add_service_error(self, exc: errors.ApiError) -> None:
        """Put a 422/400 message on the field it names (`values.email` is the
        field `email`); the typed values stay."""
        place_remote_error(self, exc)

    def renew_idempotency_key(self) -> None:
        """After the service refused the values, the corrected form is a new logical write: a new key
        (the old one would replay the refusal, or answer 409 for a different body)."""
        renew_idempotency_key(self)


def _record_help(field: FieldDef, zone: dt.tzinfo) -> str:
    """What a record field takes, under its input: its type and its limits."""
    parts = [field.type_label]
    if field.type == FieldType.DATETIME:
        parts.append(f"{zone} time")
    if field.type == FieldType.CURRENCY:
        parts.append("2 decimals")
    if field.max_length:
        parts.append(f"at most {field.max_length} characters")
    return ", ".join(parts)


SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")


class RelationshipForm(forms.Form):
    """Link this record to another one (this record is the source)."""

    # The field template (templates/forms/field.html) marks required fields with * in this form.
    required_css_class = "required"

    idempotency_key = IdempotencyKeyField()
    relation_key = forms.CharField(
        label=gettext_lazy("Kind of link"),
        max_length=100,
        help_text=gettext_lazy(
            "snake_case, for example company, owner or related_to; kinds already in use are offered"
        ),
        # The kinds in use in this workspace are offered by a datalist (templates/objects/record.html#link-form).
        widget=forms.TextInput(attrs={"list": "relation-keys", "autocomplete": "off"}),
    )
    target_object = forms.ChoiceField(label=gettext_lazy("Linked object"))
    target_search = forms.CharField(
        label=gettext_lazy("Find a record"),
        required=False,
        widget=forms.SearchInput(
            attrs={"autocomplete": "off", "placeholder": "Type to search the linked object's records"}
        ),
    )
    target_pick = forms.CharField(required=False)
    target_id = forms.CharField(label=gettext_lazy("or its id"), required=False, max_length=64)
    label = forms.CharField(label=gettext_lazy("Label"), max_length=200, required=False)
    metadata = forms.CharField(
        label=gettext_lazy("Metadata (JSON object)"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def __init__(self, *args, objects: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        choices = []
        for obj in objects:
            key = obj.get("key")
            if key:
                kind = " (built-in)" if obj.get("kind") == "system" else ""
                choices.append((key, f"{obj.get('plural_name') or key}{kind}"))
        target_object = self.fields["target_object"]
        assert isinstance(target_object, forms.ChoiceField)
        target_object.choices = choices

    def clean_relation_key(self) -> str:
        value = self.cleaned_data["relation_key"].strip()
        if not SNAKE_CASE.match(value):
            raise forms.ValidationError(
                "Use snake_case: lower-case letters, digits and single underscores, starting with a letter "
                f"(for example {re.sub(r'[^a-z0-9]+', '_', value.lower()).strip('_') or 'related_to'})."
            )
        return value

    def clean_metadata(self) -> dict:
        text = self.cleaned_data.get("metadata", "")
        if not text.strip():
            return {}
        try:
            return parse_json_object(text, what="Metadata", example='{"role": "buyer"}')
        except JsonInputError as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        target = (data.get("target_pick") or "").strip() or (data.get("target_id") or "").strip()
        if not target:
            self.add_error("target_id", _("Pick a record from the search results, or paste its id."))
        data["target"] = target
        return data


class RecordDeleteForm(forms.Form):
    idempotency_key = IdempotencyKeyField()


class RecordUndoForm(RecordDeleteForm):
    """Undo the latest change: one key for the restoring PATCH, kept while the person settles conflicts."""


class RecordPutBackForm(RecordDeleteForm):
    """Put one field's earlier value back: one key for the PATCH."""


class RecordThenForm(RecordDeleteForm):
    """Put back the ticked fields' values of an earlier time; `shown_values`: now as the page showed it."""

    shown_values = forms.CharField(required=False, widget=forms.HiddenInput, max_length=MAX_SHOWN_LENGTH)

    def __init__(self, *args: Any, field_keys: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["put_back"] = forms.MultipleChoiceField(
            choices=[(key, key) for key in field_keys],
            required=True,
            widget=forms.CheckboxSelectMultiple,
            error_messages={
                "required": _("Tick at least one field to put back."),
                "invalid_choice": _("That field no longer differs from now: reload the page and choose again."),
            },
        )

    def shown(self) -> dict:
        return decode_values(self.cleaned_data.get("shown_values")) or {}


class SavedViewForm(forms.Form):
    """Save the records table as it is under a name.

    A private view is a person's own preference: anyone who reads may save
    one. Sharing it publishes it to the workspace's console users, a write
    like any other: `share_refusal` (from `write_refusal`, "" when this person
    may write) refuses the box on the field, keeping the rest as typed."""

    name = forms.CharField(max_length=80, label=gettext_lazy("View name"))
    shared = forms.BooleanField(required=False, label=gettext_lazy("Share with the workspace's console users"))
    make_default = forms.BooleanField(required=False, label=gettext_lazy("Open this view by default"))
    query = forms.CharField(required=False, max_length=4000, widget=forms.HiddenInput)
    # The table, or another way to look (objects/looks.py): a kanban, calendar, gallery, chart.
    kind = forms.CharField(required=False, max_length=16, widget=forms.HiddenInput)

    def __init__(self, *args: Any, share_refusal: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.share_refusal = share_refusal

    def clean_shared(self) -> bool:
        shared = bool(self.cleaned_data.get("shared"))
        if shared and self.share_refusal:
            raise forms.ValidationError(self.share_refusal)
        return shared

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError(_("Give the view a name."))
        return name


class CommentForm(forms.Form):
    """A comment on a record (objects/comments.py): markdown, @username mentions."""

    body = forms.CharField(
        label=gettext_lazy("Comment"),
        max_length=10_000,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("Markdown. Mention someone of this workspace with @ and their username."),
        error_messages={"required": gettext_lazy("Write something to post: the comment is empty.")},
    )
    # The form's own id (objects.RecordComment.uid): sent twice, one comment.
    uid = forms.UUIDField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("uid", uuid.uuid4())
