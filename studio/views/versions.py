"""A document's versions (issue #21, item 4): the list (who asked for what,
when), any two compared, one version read, copied or downloaded. All of it
is read from the console's own rows (studio/versions.py): no remote call, so
these pages work even when the service is slow or the document is gone."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.views.decorators.http import require_GET

from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import render_region
from studio.documents import render_content
from studio.models import DocumentVersion
from studio.versions import (
    artifact_latest_turn,
    diff_counts,
    document_version_get,
    document_versions,
    version_filename,
    versions_diff,
)


def version_label(version: DocumentVersion, number: int) -> str:
    """A version in words: its number in the list (1 is the first kept),
    the revision the service gave, and when."""
    when = date_format(localtime(version.created_at), "j M Y, H:i")
    revision = f", revision {version.revision}" if version.revision else ""
    return f"Version {number}{revision} ({when})"


class CompareForm(forms.Form):
    """Two of a document's versions: `older` and `newer` (either order works:
    the comparison always reads from the earlier to the later one)."""

    older = forms.TypedChoiceField(label="From version", coerce=int)
    newer = forms.TypedChoiceField(label="To version", coerce=int)

    def __init__(self, *args, choices: list[tuple[int, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name in ("older", "newer"):
            field = self.fields[name]
            assert isinstance(field, forms.TypedChoiceField)
            field.choices = choices


@require_GET
def document_versions_page(request: ConsoleRequest, item_id: str) -> HttpResponse:
    versions = document_versions(workspace_id=request.workspace.id, document_id=item_id)
    numbered = list(zip(range(len(versions), 0, -1), versions, strict=True))
    choices = [(version.pk, version_label(version, number)) for number, version in numbered]
    by_id = {version.pk: version for version in versions}
    comparison = None
    if "older" in request.GET or "newer" in request.GET:
        form = CompareForm(request.GET, choices=choices)
        if form.is_valid():
            first, second = by_id[form.cleaned_data["older"]], by_id[form.cleaned_data["newer"]]
            if first.pk == second.pk:
                form.add_error("newer", "Pick two different versions to compare.")
            else:
                older, newer = sorted((first, second), key=lambda v: (v.created_at, v.pk))
                lines = versions_diff(older.content, newer.content)
                comparison = {
                    "older": older,
                    "newer": newer,
                    "older_label": dict(choices)[older.pk],
                    "newer_label": dict(choices)[newer.pk],
                    "lines": lines,
                    "counts": diff_counts(lines),
                }
    else:
        # The newest change is what a person usually wants to see first.
        initial = {"older": versions[1].pk, "newer": versions[0].pk} if len(versions) > 1 else {}
        form = CompareForm(initial=initial, choices=choices)
    name = next((version.name for version in versions if version.name), "") or "Document"
    return render_region(
        request,
        "studio/document_versions.html",
        "comparison",
        {
            "item_id": item_id,
            "name": name,
            "numbered": numbered,
            "form": form,
            "comparison": comparison,
            "can_write": request.workspace.can_write,
        },
    )


@require_GET
def document_version(request: ConsoleRequest, pk: int) -> HttpResponse:
    version = document_version_get(workspace_id=request.workspace.id, version_id=pk)
    return render(
        request,
        "studio/document_version.html",
        {
            "version": version,
            "html": render_content(version.content, version.content_format),
            "versions_url": reverse("studio:document_versions", args=[version.document_id]),
            "filename": version_filename(version),
            "can_write": request.workspace.can_write,
        },
    )


@require_GET
def document_version_download(request: ConsoleRequest, pk: int) -> HttpResponse:
    """The version's content as a file, exactly as the service sent it."""
    version = document_version_get(workspace_id=request.workspace.id, version_id=pk)
    content_type = {"html": "text/html", "text": "text/plain", "plain": "text/plain"}.get(
        version.content_format.lower(), "text/markdown"
    )
    response = HttpResponse(version.content, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{version_filename(version)}"'
    # A file downloaded as HTML must never run as a page of the console.
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "sandbox; default-src 'none'"
    return response


@require_GET
def artifact_history(request: ConsoleRequest, kind: str, item_id: str) -> HttpResponse:
    """A website's or an app's versions are its turns: the newest
    conversation about it, at its latest turn. Made elsewhere (in the
    product, or before the console kept turns): back to the item, in words."""
    op = artifact_latest_turn(workspace_id=request.workspace.id, artifact_id=item_id)
    if op is None:
        messages.info(
            request, "No conversation about it was held through the console yet, so it has no turn history here."
        )
        return redirect("studio:library_item", kind, item_id)
    return redirect(f"{reverse('studio:turn', args=[op.pk])}#turn-{op.pk}")
