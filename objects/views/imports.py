"""CSV import (objects/imports.py): upload the file, map its columns to the
object's fields, then the dry run and the import run as a job (views/jobs.py)."""

from __future__ import annotations

import uuid
from typing import Any

from django import forms
from django.db import transaction
from django.http import Http404, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods

from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import IdempotencyKeyField
from dashboard.live.storable import storable, storable_text
from dashboard.web.htmx import client_redirect, render_region
from objects import import_files, import_mapping, imports, jobs
from objects.access import access_params
from objects.access_reads import person_access
from objects.models import ObjectJob
from objects.records import READ_ONLY, object_definition
from objects.schema import FieldType


class UploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("CSV file"),
        help_text=gettext_lazy(
            "The first line naming the columns; commas, semicolons or tabs; UTF-8 or a spreadsheet’s own encoding."
        ),
        widget=forms.FileInput(attrs={"accept": ".csv,text/csv"}),
    )
    idempotency_key = IdempotencyKeyField()

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > import_files.max_upload_bytes():
            raise forms.ValidationError(
                f"The file is larger than {import_files.max_upload_bytes() // (1024 * 1024)} MB."
            )
        return upload


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def import_upload(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    form = UploadForm(request.POST or None, request.FILES or None)
    context: dict[str, Any] = {"definition": definition, "object_key": object_key, "form": form}
    if request.method == "POST" and form.is_valid():
        uid = form.cleaned_data["idempotency_key"]
        existing = ObjectJob.objects.filter(uid=uid, started_by_id=request.user.pk).first()
        if existing is not None:  # the same form sent twice: the same import
            return client_redirect(request, reverse("objects:import_map", args=[existing.pk]))
        upload = form.cleaned_data["file"]
        try:
            upload.seek(0)
            file_format = import_files.sniff_format(upload)
            header, total, _sample = import_files.scan(upload, file_format)
        except import_files.ImportFileError as exc:
            form.add_error("file", str(exc))
            return render_region(request, "objects/import.html", "upload-form", context)
        fields = import_mapping.importable_fields(definition)
        # The same header row mapped before in this workspace: that mapping again, else the best guess.
        mapping = import_mapping.remembered_mapping(
            workspace_id=workspace.id, object_key=object_key, header=header, fields=fields
        ) or {"mapping": import_mapping.suggested_mapping(header, fields, import_mapping.object_words(definition))}
        job = ObjectJob(
            uid=uuid.UUID(uid),
            owner_key=workspace.require_key(),
            started_by_id=request.user.pk,
            workspace_id=workspace.id,
            object_key=object_key,
            object_name=str(definition.get("plural_name") or object_key),
            kind=ObjectJob.KIND_IMPORT,
            title=storable_text(f"Import {upload.name} into {definition.get('plural_name') or object_key}", limit=300),
            status=ObjectJob.MAPPING,
            upload_name=storable_text(str(upload.name), limit=255),
            total=total,
            params=storable(
                {
                    "header": header,
                    **mapping,
                    **file_format.as_params(),
                }
            ),
        )
        upload.seek(0)
        # Stored chunk by chunk from the upload's temporary file, never read whole.
        job.upload.save(f"{uid}.csv", upload, save=False)
        job.save()
        return client_redirect(request, reverse("objects:import_map", args=[job.pk]))
    return render_region(request, "objects/import.html", "upload-form", context)


class MappingForm(forms.Form):
    """One choice per column (the field it fills, or skip it: the likely
    fields first, the best preselected), then how rows meet existing records."""

    def __init__(
        self, *args, header: list[str], fields: list, params: dict, context: frozenset[str] = frozenset(), **kwargs
    ):
        super().__init__(*args, **kwargs)
        self.header = header
        self.by_key = {f.key: f for f in fields}
        mapping = params.get("mapping") or {}
        self.suggested: dict[str, list[str]] = {}
        for index, name in enumerate(header):
            likely = import_mapping.column_candidates(name, fields, context)
            self.suggested[str(index)] = likely
            others = [(f.key, _option(f)) for f in fields if f.key not in likely]
            choices: list = [("", "Skip this column")]
            if likely:
                choices += [("Likely", [(key, _option(self.by_key[key])) for key in likely]), ("Other fields", others)]
            else:
                choices += others
            self.fields[f"col_{index}"] = forms.ChoiceField(
                label=name or f"Column {index + 1}",
                choices=choices,
                required=False,
                initial=mapping.get(str(index), ""),
            )
        keys = imports.key_fields(fields)
        matching = imports.Matching.of(params)
        self.fields["match_key"] = forms.ChoiceField(
            label=gettext("Match existing records by"),
            choices=[("", "Nothing: every row makes a new record")] + [(f.key, _option(f)) for f in keys],
            required=False,
            initial=matching.key or _likely_key(keys, mapping),
            help_text=gettext("A field whose value tells records apart, like an email or a code."),
        )
        self.fields["match_mode"] = forms.ChoiceField(
            label=gettext("When a row matches a record"),
            choices=imports.MATCH_MODES,
            required=False,
            initial=matching.mode if matching.key else imports.UPDATE,
            widget=forms.RadioSelect,
        )

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        seen: dict[str, str] = {}
        for name, key in cleaned.items():
            if not name.startswith("col_"):
                continue
            if key and key in seen:
                self.add_error(name, gettext("Another column already fills this field."))
            elif key:
                seen[key] = name
        if not seen:
            raise forms.ValidationError(gettext("Choose a field for at least one column."))
        match_key = cleaned.get("match_key")
        if match_key and match_key not in seen:
            self.add_error("match_key", gettext("Choose a column for this field first: rows are matched by its value."))
        missing = import_mapping.unmapped_required(list(self.by_key.values()), self.mapping())
        # Rows that only update records need no required field; rows that make records do.
        if missing and not (match_key and cleaned.get("match_mode") in {imports.UPDATE, imports.SKIP}):
            raise forms.ValidationError(required_message(missing))
        return cleaned

    def mapping(self) -> dict[str, str]:
        return {
            name.removeprefix("col_"): key for name, key in self.cleaned_data.items() if name.startswith("col_") and key
        }

    def matching(self) -> dict[str, str]:
        key = self.cleaned_data.get("match_key") or ""
        return {"match_key": key, "match_mode": (self.cleaned_data.get("match_mode") or imports.UPDATE) if key else ""}


def _option(f) -> str:
    return f"{f.label} ({f.type_label})"


def _likely_key(keys: list, mapping: dict[str, str]) -> str:
    """An email field a column fills is the usual key; else none is chosen."""
    filled = set(mapping.values())
    return next((f.key for f in keys if f.type == FieldType.EMAIL and f.key in filled), "")


def required_message(missing: list) -> str:
    names = ", ".join(f.label for f in missing)
    return ngettext(
        "No column fills the required field %(names)s: every new record would be refused. "
        "Choose the column that fills it.",
        "No column fills the required fields %(names)s: every new record would be refused. "
        "Choose the column that fills each.",
        len(missing),
    ) % {"names": names}


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def import_map(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    workspace = request.workspace
    job = ObjectJob.objects.filter(pk=pk, started_by_id=request.user.pk, kind=ObjectJob.KIND_IMPORT).first()
    if job is None:
        raise Http404("No such import.")
    if job.status != ObjectJob.MAPPING:
        return client_redirect(request, reverse("objects:job", args=[job.pk]))
    definition = object_definition(workspace=workspace, object_key=job.object_key)
    person = person_access(workspace=workspace, object_key=job.object_key)
    # A field read-only for this person (the object's access policy) cannot be mapped.
    fields = [f for f in import_mapping.importable_fields(definition) if person.may_write(f.key)]
    header = list(job.params.get("header") or [])
    form = MappingForm(
        request.POST or None,
        header=header,
        fields=fields,
        params=job.params,
        context=import_mapping.object_words(definition),
    )
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            job.params = {**job.params, "mapping": form.mapping(), **form.matching(), **access_params(person)}
            job.save(update_fields=["params", "updated_at"])
            jobs.job_run(job=job, status=ObjectJob.CHECKING, reset=imports.reset_for_checking)
        return client_redirect(request, reverse("objects:job", args=[job.pk]))
    file_format = import_files.FileFormat.of(job.params)
    with job.upload.open("rb") as handle:
        sample = import_files.sample_rows(handle, file_format)
    columns = []
    chosen_now: dict[str, str] = {}
    for index, name in enumerate(header):
        bound = form[f"col_{index}"]
        chosen = form.by_key.get(str(bound.value() or ""))
        if chosen:
            chosen_now[str(index)] = chosen.key
        likely = [form.by_key[k] for k in form.suggested[str(index)] if not chosen or k != chosen.key]
        columns.append(
            {
                "name": name or f"Column {index + 1}",
                "bound": bound,
                "field": chosen,
                "alternatives": likely[:3],
                "examples": [row[index] for row in sample if index < len(row) and row[index].strip()],
            }
        )
    # Flagged before the dry run (on the page as first shown, and again on a refused POST).
    missing = [] if form.is_bound else import_mapping.unmapped_required(fields, chosen_now)
    context = {
        "job": job,
        "definition": definition,
        "form": form,
        "columns": columns,
        "file_format": file_format,
        "missing_required": required_message(missing) if missing else "",
        "remembered_from": _remembered_from(job),
    }
    return render(request, "objects/import_map.html", context)


def _remembered_from(job: ObjectJob) -> ObjectJob | None:
    """The earlier import of a file with the same header row whose mapping
    this one starts from (same workspace and object: remembered_mapping)."""
    pk = job.params.get("mapping_from")
    if not isinstance(pk, int):
        return None
    return ObjectJob.objects.filter(
        pk=pk, workspace_id=job.workspace_id, object_key=job.object_key, kind=ObjectJob.KIND_IMPORT
    ).first()
