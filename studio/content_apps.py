"""Content Apps: the catalogue read tolerantly, and a Django form generated
from each app's `inputs` JSON Schema.

The form follows the schema, whatever app it is: strings with their
`maxLength` (a text box, or a text area past SHORT_TEXT), enums as selects,
integers and numbers with their bounds, booleans as check boxes, a board or
a video project as a select of the workspace's own, a single `*_asset_id` as
a picker of the chosen board's images (a video app's `source_asset_id` is a
clip of a video project) and an array of asset ids as a multiple picker.
Required marks and descriptions come from the schema too. Before anything
is sent, the body is validated against the very same schema (jsonschema),
and its errors land on the fields they name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django import forms
from jsonschema import Draft202012Validator

from dashboard.idempotency import IdempotencyKeyField
from dashboard.web.counted import CountedCharField, CountedTextarea, CountedTextInput
from dashboard.web.json_input import JsonInputError, parse_json_input
from dashboard.web.local_formats import integer
from dashboard.web.reading import as_dict, as_list, number, text
from studio.words import action_words, key_label, prose, returns_words

SHORT_TEXT = 500  # longer strings get a text area
MAX_UNBOUNDED_TEXT = 20_000  # a string the schema leaves unbounded
APP_STUDIOS = ("image", "video")


@dataclass(frozen=True)
class AppInfo:
    studio: str
    id: str
    label: str
    description: str
    examples: list[str]
    group: str
    kind: str
    runnable: bool
    reason: str
    returns: str
    timing: str
    inputs: dict[str, Any] = field(repr=False)

    @property
    def run_words(self) -> str:
        """The run button: "Run film an AI shot", never "Run film an ai shot"."""
        return "Run " + action_words(self.label)


_APP_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def read_app(raw: Any) -> AppInfo | None:
    item = as_dict(raw)
    studio, app_id = text(item.get("studio")), text(item.get("id"))
    if studio not in APP_STUDIOS or not _APP_ID.fullmatch(app_id):
        return None
    runnable = item.get("runnable") is not False
    return AppInfo(
        studio=studio,
        id=app_id,
        label=text(item.get("label") or item.get("short_label")) or app_id,
        description=text(item.get("description")),
        examples=[text(example) for example in as_list(item.get("examples")) if text(example)],
        group=text(item.get("group")) or "other",
        kind=text(item.get("kind")),
        runnable=runnable,
        reason=text(item.get("not_runnable_reason")) if not runnable else "",
        # The catalogue's "assets / job / motion" is the service's vocabulary, not a maker's.
        returns=returns_words(text(item.get("returns"))),
        timing=text(item.get("timing")),
        inputs=as_dict(item.get("inputs")),
    )


def catalogue_read(body: Any) -> list[AppInfo]:
    raw = as_dict(body).get("apps") if isinstance(body, dict) else body
    return [app for item in as_list(raw) if (app := read_app(item))]


def grouped(apps: list[AppInfo]) -> list[tuple[str, list[tuple[str, list[AppInfo]]]]]:
    """[(studio, [(group, apps)])], studios and groups in catalogue order."""
    studios: dict[str, dict[str, list[AppInfo]]] = {}
    for app in apps:
        studios.setdefault(app.studio, {}).setdefault(app.group, []).append(app)
    return [(studio, list(groups.items())) for studio, groups in studios.items()]


# --- the form --------------------------------------------------------------------


def _label(name: str, prop: dict) -> str:
    title = text(prop.get("title"))
    return title or key_label(name)


def _help(prop: dict) -> str:
    """The schema's description in words, with the default the service uses
    when the field is left empty (a maker otherwise cannot know Count means 1)."""
    said = prose(text(prop.get("description"))).strip()
    default = prop.get("default")
    # A select's blank choice already names its default ("Default (4:5)").
    if (
        prop.get("enum") is None
        and isinstance(default, (str, int, float))
        and not isinstance(default, bool)
        and text(default) != ""
    ):
        shown = integer(default) if isinstance(default, int) else text(default)
        said = f"{said}{'' if not said or said.endswith('.') else '.'} Left empty: {shown}.".strip()
    # A check box's default is not given in words: an unticked box already reads as its answer.
    return said


def picker_kind(studio: str, name: str, prop: dict) -> str:
    """What a field picks: "board", "project", "image", "images", "clip" or "" (typed)."""
    kind = text(prop.get("type"))
    if name == "board_id":
        return "board"
    if name == "project_id":
        return "project"
    if kind == "array" and (name.endswith("_asset_ids") or text(as_dict(prop.get("items")).get("format")) == "uuid"):
        return "images"
    if kind == "string" and name.endswith("_asset_id"):
        # Recast and remake start from a video clip; every other asset is an image.
        return "clip" if studio == "video" and name == "source_asset_id" else "image"
    return ""


UNNAMED = {
    "board": "Untitled board",
    "project": "Untitled video project",
    "image": "An image without a prompt",
    "images": "An image without a prompt",
    "clip": "A clip without a prompt",
}


@dataclass
class Choices:
    """What the pickers offer: the workspace's boards, projects, the chosen
    board's images and the projects' clips (each a dict with id and words)."""

    boards: list[dict] = field(default_factory=list)
    projects: list[dict] = field(default_factory=list)
    images: list[dict] = field(default_factory=list)
    clips: list[dict] = field(default_factory=list)

    def of(self, kind: str) -> list[dict]:
        """The options of a picker kind ("board", "project", "image" or "images", "clip")."""
        return {
            "board": self.boards,
            "project": self.projects,
            "image": self.images,
            "images": self.images,
            "clip": self.clips,
        }[kind]


class JsonValueField(forms.CharField):
    """A schema member the console has no widget for (an object, an array of
    anything): typed as JSON, parsed strictly."""

    def clean(self, value):
        value = super().clean(value)
        if value in (None, ""):
            return None
        try:
            return parse_json_input(value)
        except JsonInputError as exc:
            raise forms.ValidationError(str(exc)) from exc


class AppForm(forms.Form):
    """The form of one Content App, generated from its `inputs` schema."""

    # The field template (templates/forms/field.html) marks required fields with * in this form.
    required_css_class = "required"

    idempotency_key = IdempotencyKeyField()

    def __init__(self, *args, app: AppInfo, choices: Choices | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.app = app
        self.choices = choices or Choices()
        self.schema = app.inputs
        self.pickers: dict[str, str] = {}
        required = {text(name) for name in as_list(self.schema.get("required"))}
        for name, prop in as_dict(self.schema.get("properties")).items():
            if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,63}", name):
                continue
            self.fields[name] = self._field(name, as_dict(prop), name in required)
        self.order_fields([*(name for name in self.fields if name != "idempotency_key")])

    def _field(self, name: str, prop: dict, required: bool) -> forms.Field:
        common: dict[str, Any] = {
            "required": required,
            "label": _label(name, prop),
            "help_text": _help(prop),
        }
        kind = picker_kind(self.app.studio, name, prop)
        default = prop.get("default")
        if kind:
            self.pickers[name] = kind
            options = self.choices.of(kind)
            # Never the id as the words: a nameless option is called by what it is (an image also shows its picture).
            unnamed = UNNAMED[kind]
            pairs = [(option["id"], option.get("name") or option.get("prompt") or unnamed) for option in options]
            if kind == "images":
                return forms.MultipleChoiceField(choices=pairs, widget=forms.CheckboxSelectMultiple, **common)
            blank = [("", "Choose…")] if kind in ("board", "project") else []
            widget = forms.RadioSelect if kind in ("image", "clip") else forms.Select
            return forms.ChoiceField(choices=blank + pairs, widget=widget, **common)
        enum = [value for value in as_list(prop.get("enum")) if isinstance(value, (str, int, float))]
        json_type = prop.get("type")
        if enum:
            # An enum of keys ("slow_motion") is shown in words; the value sent stays the schema's.
            choices = [(text(value), prose(text(value))) for value in enum]
            if not required:
                choices = [("", "Service default" if default is None else f"Default ({text(default)})"), *choices]
            return forms.ChoiceField(choices=choices, **common)
        if json_type == "integer":
            return forms.IntegerField(
                min_value=_bound(prop.get("minimum")), max_value=_bound(prop.get("maximum")), **common
            )
        if json_type == "number":
            return forms.FloatField(
                min_value=number(prop.get("minimum")), max_value=number(prop.get("maximum")), **common
            )
        if json_type == "boolean":
            # A box the schema turns on by default starts ticked, and unticking it sends `false`
            # (payload): an absent box is false in HTML, but an absent field is "the default" to the service.
            return forms.BooleanField(**{**common, "required": False}, initial=default is True)
        if json_type == "string":
            limit = _bound(prop.get("maxLength")) or MAX_UNBOUNDED_TEXT
            long_text = limit > SHORT_TEXT or name in ("prompt", "direction", "offer")
            box = CountedTextarea(attrs={"rows": 4 if limit > 2000 else 3}) if long_text else CountedTextInput()
            # Counted, never cut: a paste over maxLength stays whole and is refused in words (CountedCharField).
            label = str(common["label"])
            return CountedCharField(
                limit=limit,
                noun=f"The {label[:1].lower()}{label[1:]}",
                min_length=_bound(prop.get("minLength")),
                widget=box,
                **common,
            )
        return JsonValueField(widget=forms.Textarea(attrs={"rows": 3}), **common)

    def picker_rows(self) -> list[tuple[forms.BoundField, str]]:
        return [(self[name], self.pickers.get(name, "")) for name in self.fields if name != "idempotency_key"]

    def asked(self) -> list[dict[str, Any]]:
        """What was asked as a person reads it, kept with the run ("What was
        asked"): each given field by its label, a board or project by its
        name, an image or clip by its words and picture, a choice by its
        words. Kept at send time because only then are the names at hand
        (the run's page reads nothing from the service)."""
        rows: list[dict[str, Any]] = []
        for name, value in self.payload().items():
            field = self.fields[name]
            kind = self.pickers.get(name, "")
            values = value if isinstance(value, list) else [value]
            if kind:
                known = {option["id"]: option for option in self.choices.of(kind)}
                for item in values:
                    option = known.get(text(item), {})
                    rows.append(
                        {
                            "label": text(field.label),
                            "text": text(option.get("name") or option.get("prompt")) or UNNAMED[kind],
                            "picture": text(option.get("url")) if kind in ("image", "images", "clip") else "",
                        }
                    )
                continue
            if isinstance(field, forms.ChoiceField):
                # Flat (value, words) pairs: the generated selects have no option groups.
                words = {text(value): label for value, label in as_list(field.choices) if not isinstance(label, list)}
                shown: Any = ", ".join(text(words.get(text(item), item)) for item in values)
            elif isinstance(field, forms.BooleanField):
                shown = "Yes" if value else "No"
            elif isinstance(value, (str, int, float)):
                shown = integer(value) if isinstance(value, int) else text(value)
            else:
                shown = value  # typed as JSON: shown as JSON
            rows.append({"label": text(field.label), "text": shown, "picture": ""})
        return rows

    def payload(self, cleaned: dict | None = None) -> dict[str, Any]:
        """The body to send: only what was given (the service's defaults stand)."""
        cleaned = self.cleaned_data if cleaned is None else cleaned
        body: dict[str, Any] = {}
        for name, value in cleaned.items():
            if name == "idempotency_key" or value in (None, "", []):
                continue
            if isinstance(self.fields[name], forms.BooleanField) and value is False:
                if self.fields[name].initial is True:
                    body[name] = False  # switched off against a default of true: say so, or the default stands
                continue
            if isinstance(self.fields[name], forms.ChoiceField) and not isinstance(
                self.fields[name], forms.MultipleChoiceField
            ):
                value = _enum_value(self.schema, name, value)
            body[name] = list(value) if isinstance(value, (list, tuple)) else value
        return body

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        for name, message in schema_errors(self.schema, self.payload(cleaned)):
            if name in self.fields and name != "idempotency_key":
                self.add_error(name, message)
            else:
                self.add_error(None, message)
        return cleaned


def _bound(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _enum_value(schema: dict, name: str, value: str) -> Any:
    """A select's text back to the schema's own value (an enum of numbers)."""
    for option in as_list(as_dict(as_dict(schema.get("properties")).get(name)).get("enum")):
        if text(option) == value:
            return option
    return value


def schema_errors(schema: dict, body: dict) -> list[tuple[str, str]]:
    """(field, message) for every way `body` breaks `schema`, in words. A
    schema the console cannot use checks nothing (the service still does)."""
    try:
        Draft202012Validator.check_schema(schema)
        validator = Draft202012Validator(schema)
        found = sorted(validator.iter_errors(body), key=lambda error: [text(part) for part in error.path])
    except Exception:  # the service's schema, whatever is wrong with it (unknown type, bad $ref...)
        return []
    problems = []
    for error in found:
        name = text(error.path[0]) if error.path else ""
        if error.validator == "required":
            missing = re.findall(r"'([^']+)'", error.message)
            name = missing[0] if missing else name
            problems.append((name, "This field is required."))
        elif error.validator == "dependentRequired":
            needed = re.findall(r"'([^']+)'", error.message)
            name = needed[0] if needed else name
            problems.append(
                (name, f"Needed when {_label(needed[1], {}) if len(needed) > 1 else 'another field'} is given.")
            )
        elif error.validator == "additionalProperties":
            problems.append(("", "The app does not take some of these fields."))
        else:
            problems.append((name, _words(error)))
    return problems


def _words(error) -> str:
    limit = error.validator_value
    if error.validator == "maxLength":
        return f"At most {integer(limit)} characters."
    if error.validator == "minLength":
        return f"At least {integer(limit)} characters."
    if error.validator == "maxItems":
        return f"Pick at most {limit}."
    if error.validator == "minItems":
        return f"Pick at least {limit}."
    if error.validator == "maximum":
        return f"At most {limit}."
    if error.validator == "minimum":
        return f"At least {limit}."
    if error.validator == "enum":
        return "Pick one of the choices."
    if error.validator == "format":
        return f"This is not a valid {limit}."
    return prose(error.message[:300])
