"""An object's computed columns, beside its fields: formulas, lookups and
rollups the console computes (the service has no such fields). Defined by
those who may change the object's schema (the settings' own guard); kept
for the workspace, so only a person holding a working key of it sees them
(every read here is scoped to `request.workspace.id`)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBase
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect, is_partial, render_region
from objects import selectors, services
from objects.computed import MAX_COMPUTED_COLUMNS, check_formula, computed_columns, specs
from objects.fields import field_defs
from objects.formulas import MAX_FORMULA_LENGTH, SIGNATURES, FormulaError
from objects.models import ComputedColumn
from objects.records import READ_ONLY, object_definition
from objects.rollups import NUMBER_ROLLUPS, ROLLUPS
from objects.table import MAX_RELATION_KEY

RELATION_KEY_SHAPE = r"^[a-z][a-z0-9_]*$"


class ComputedColumnForm(forms.Form):
    """A new computed column; a formula is checked against the fields as it is saved."""

    name = forms.CharField(max_length=80, label=gettext_lazy("Name"))
    kind = forms.ChoiceField(choices=ComputedColumn.Kind.choices, label=gettext_lazy("Kind"), initial="formula")
    formula = forms.CharField(
        required=False,
        max_length=MAX_FORMULA_LENGTH,
        label=gettext_lazy("Formula"),
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
        help_text=gettext_lazy('Fields by key or as {Field name}; for example IF({Amount} > 1000, "Large", "Small").'),
    )
    relation_key = forms.RegexField(
        regex=RELATION_KEY_SHAPE,
        required=False,
        max_length=MAX_RELATION_KEY,
        label=gettext_lazy("Through the relation"),
        help_text=gettext_lazy("The relation key of the links to follow, such as company."),
        error_messages={
            "invalid": gettext_lazy("A relation key is lower case letters, digits and underscores, such as company.")
        },
    )
    field_key = forms.CharField(
        required=False,
        max_length=200,
        label=gettext_lazy("Field of the linked records"),
        help_text=gettext_lazy("Its key, such as amount. A count may leave it empty: it counts the linked records."),
    )
    function = forms.ChoiceField(choices=[("", "—"), *ROLLUPS], required=False, label=gettext_lazy("Roll up as"))

    def __init__(self, *args, fields=None, taken=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.object_fields = fields or []
        self.taken = {name.casefold() for name in taken}

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if "\x00" in name or not name:
            raise forms.ValidationError(gettext("Give the column a name."))
        if name.casefold() in self.taken:
            raise forms.ValidationError(f"A computed column called “{name}” exists already: choose another name.")
        if name.casefold() in {f.label.casefold() for f in self.object_fields}:
            raise forms.ValidationError(f"A field is called “{name}”: choose another name, so {{{name}}} stays clear.")
        return name

    def clean(self) -> dict:
        data = super().clean() or {}
        kind = data.get("kind")
        if kind == ComputedColumn.Kind.FORMULA:
            try:
                check_formula(data.get("formula") or "", self.object_fields)
            except FormulaError as exc:
                self.add_error("formula", str(exc))
        elif kind in (ComputedColumn.Kind.LOOKUP, ComputedColumn.Kind.ROLLUP):
            if not data.get("relation_key") and "relation_key" not in self.errors:
                self.add_error("relation_key", gettext("Name the relation whose linked records it reads."))
            function = data.get("function") or ""
            if kind == ComputedColumn.Kind.ROLLUP and not function:
                self.add_error(
                    "function", gettext("Choose how to roll up: count, sum, average, min, max, earliest or latest.")
                )
            needs_field = kind == ComputedColumn.Kind.LOOKUP or (function and function != "count")
            if needs_field and not (data.get("field_key") or "").strip():
                self.add_error("field_key", gettext("Name the field of the linked records to read (its key)."))
            if "\x00" in (data.get("field_key") or ""):
                self.add_error("field_key", gettext("A field key cannot hold a NUL character."))
        return data


def _context(request: ConsoleRequest, object_key: str, form: ComputedColumnForm | None = None) -> dict:
    definition = object_definition(workspace=request.workspace, object_key=object_key)
    fields = field_defs(definition)
    columns = computed_columns(workspace_id=request.workspace.id, object_key=object_key)
    return {
        "object_key": object_key,
        "definition": definition,
        "plural_name": definition.get("plural_name") or object_key,
        "fields": fields,
        "columns": specs(columns, fields=fields),
        "form": form or ComputedColumnForm(fields=fields),
        "at_most": MAX_COMPUTED_COLUMNS,
        "full": len(columns) >= MAX_COMPUTED_COLUMNS,
        "functions": sorted(SIGNATURES),
        "number_rollups": sorted(NUMBER_ROLLUPS),
        "relation_keys": selectors.relation_keys_in_use(workspace_id=request.workspace.id, object_key=object_key),
    }


@require_GET
@requires_write(READ_ONLY)
def computed_page(request: ConsoleRequest, object_key: str) -> HttpResponse:
    return render_region(request, "objects/computed.html", "computed-form", _context(request, object_key))


@require_POST
@requires_write(READ_ONLY)
def computed_add(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """Adds the column, or shows the form again with what is wrong in place (nothing typed is lost)."""
    workspace = request.workspace
    fields = field_defs(object_definition(workspace=workspace, object_key=object_key))
    existing = computed_columns(workspace_id=workspace.id, object_key=object_key)
    form = ComputedColumnForm(request.POST, fields=fields, taken=[c.name for c in existing])
    if len(existing) >= MAX_COMPUTED_COLUMNS:
        form.is_valid()
        form.add_error(None, f"An object has at most {MAX_COMPUTED_COLUMNS} computed columns: remove one first.")
    if form.errors or not form.is_valid():
        context = _context(request, object_key, form)
        # htmx 2 swaps only a 2xx answer: the form comes back in place with its errors.
        status = 200 if is_partial(request) else 422
        return render_region(request, "objects/computed.html", "computed-form", context, status=status)
    data = form.cleaned_data
    services.computed_column_create(
        workspace_id=workspace.id,
        object_key=object_key,
        name=data["name"],
        kind=data["kind"],
        formula=(data.get("formula") or "").strip(),
        relation_key=data.get("relation_key") or "",
        field_key=(data.get("field_key") or "").strip(),
        function=data.get("function") or "",
        user=request.user,
    )
    messages.success(request, f"The computed column “{data['name']}” was added: it shows in the records table.")
    return client_redirect(request, reverse("objects:computed", args=[object_key]))


@require_POST
@requires_write(READ_ONLY)
def computed_remove(request: ConsoleRequest, object_key: str, pk: int) -> HttpResponseBase:
    column = ComputedColumn.objects.filter(workspace_id=request.workspace.id, object_key=object_key, pk=pk).first()
    if column is None:
        raise Http404("No such computed column.")
    services.computed_column_delete(column=column)
    messages.success(request, f"The computed column “{column.name}” was removed.")
    return client_redirect(request, reverse("objects:computed", args=[object_key]))
