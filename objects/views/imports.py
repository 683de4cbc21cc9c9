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
from django.views.decorators.http import require_http_methods

from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import IdempotencyKeyField
from dashboard.live.storable import storable, storable_text
from dashboard.web.htmx import client_redirect, render_region
from objects import imports, jobs
from objects.models import ObjectJob
from objects.records import READ_ONLY, object_definition


class UploadForm(forms.Form):
    file = forms.FileField(
        label="CSV file",
        help_text="UTF-8, the first line naming the columns.",
        widget=forms.FileInput(attrs={"accept": ".csv,text/csv"}),
    )
    idempotency_key = IdempotencyKeyField()

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > imports.max_upload_bytes():
            raise forms.ValidationError(f"The file is larger than {imports.max_upload_bytes() // (1024 * 1024)} MB.")
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
            header, total, _sample = imports.scan(upload)
        except imports.ImportFileError as exc:
            form.add_error("file", str(exc))
            return render_region(request, "objects/import.html", "upload-form", context)
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
                {"header": header, "mapping": imports.suggested_mapping(header, imports.importable_fields(definition))}
            ),
        )
        upload.seek(0)
        # Stored chunk by chunk from the upload's temporary file, never read whole.
        job.upload.save(f"{uid}.csv", upload, save=False)
        job.save()
        return client_redirect(request, reverse("objects:import_map", args=[job.pk]))
    return render_region(request, "objects/import.html", "upload-form", context)


class MappingForm(forms.Form):
    """One choice per column: the field it fills, or skip it."""

    def __init__(self, *args, header: list[str], fields: list, mapping: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        choices = [("", "Skip this column")] + [(f.key, f"{f.label} ({f.type_label})") for f in fields]
        for index, name in enumerate(header):
            self.fields[f"col_{index}"] = forms.ChoiceField(
                label=name or f"Column {index + 1}",
                choices=choices,
                required=False,
                initial=mapping.get(str(index), ""),
            )

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        seen: dict[str, str] = {}
        for name, key in cleaned.items():
            if key and key in seen:
                self.add_error(name, "Another column already fills this field.")
            elif key:
                seen[key] = name
        if not seen:
            raise forms.ValidationError("Choose a field for at least one column.")
        return cleaned

    def mapping(self) -> dict[str, str]:
        return {name.removeprefix("col_"): key for name, key in self.cleaned_data.items() if key}


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
    fields = imports.importable_fields(definition)
    header = list(job.params.get("header") or [])
    form = MappingForm(request.POST or None, header=header, fields=fields, mapping=job.params.get("mapping") or {})
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            job.params = {**job.params, "mapping": form.mapping()}
            job.save(update_fields=["params", "updated_at"])
            jobs.job_run(job=job, status=ObjectJob.CHECKING)
        return client_redirect(request, reverse("objects:job", args=[job.pk]))
    with job.upload.open("rb") as handle:
        sample = imports.sample_rows(handle)
    by_key = {f.key: f for f in fields}
    columns = []
    for index, name in enumerate(header):
        bound = form[f"col_{index}"]
        chosen = by_key.get(str(bound.value() or ""))
        columns.append(
            {
                "name": name or f"Column {index + 1}",
                "bound": bound,
                "field": chosen,
                "examples": [row[index] for row in sample if index < len(row) and row[index].strip()],
            }
        )
    context = {"job": job, "definition": definition, "form": form, "columns": columns}
    return render(request, "objects/import_map.html", context)
