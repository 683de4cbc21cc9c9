"""A document's versions (issue #21, item 4): the list (who asked for what,
when), any two compared, one version read, copied or downloaded. All of it
is read from the console's own rows (studio/versions.py): no remote call, so
these pages work even when the service is slow or the document is gone."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from dashboard.api import errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect, render_region
from studio import selectors, services
from studio.documents import render_content
from studio.forms import READ_ONLY, RestoreVersionForm
from studio.library import KIND_OF_STUDIO
from studio.models import DocumentVersion, TurnResult
from studio.rollback import go_back_message, restore_message
from studio.versions import (
    RESULTS_SHOWN,
    artifact_latest_turn,
    diff_counts,
    document_version_get,
    document_versions,
    turn_result_get,
    turn_results,
    turn_results_after,
    version_filename,
    versions_diff,
)

# What a conflict of the restore's key says (the same key sent with another body).
RESTORE_CONFLICT = "This roll back was already sent with other content; reload the page and confirm again."


def version_label(version: DocumentVersion, number: int) -> str:
    """A version in words: its number in the list (1 is the first kept),
    the revision the service gave, and when."""
    when = date_format(localtime(version.created_at), "j M Y, H:i")
    revision = f", revision {version.revision}" if version.revision else ""
    return f"Version {number}{revision} ({when})"


class CompareForm(forms.Form):
    """Two of a document's versions: `older` and `newer` (either order works:
    the comparison always reads from the earlier to the later one)."""

    older = forms.TypedChoiceField(label=gettext_lazy("From version"), coerce=int)
    newer = forms.TypedChoiceField(label=gettext_lazy("To version"), coerce=int)

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
                form.add_error("newer", gettext("Pick two different versions to compare."))
            else:
                older, newer = sorted((first, second), key=lambda v: (v.created_at, v.pk))
                lines = versions_diff(older.content, newer.content)
                side = request.GET.get("layout") == "side"
                comparison = {
                    # "Side by side": both versions as they read, next to each other.
                    "side": side,
                    "older_html": render_content(older.content, older.content_format) if side else "",
                    "newer_html": render_content(newer.content, newer.content_format) if side else "",
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
    """A website's or an app's history: each completed turn's result as the
    console kept it (screenshot, addresses then, who asked for what), newest
    first, each earlier one with "go back to this". Before any was kept (an
    item made elsewhere, or before the console kept results): its newest
    conversation through the console at its latest turn, or back to the item."""
    results = turn_results(workspace_id=request.workspace.id, artifact_id=item_id)
    if results:
        return render(
            request,
            "studio/artifact_history.html",
            {
                "results": results,
                "kind": kind,
                "item_id": item_id,
                "name": next((result.name for result in results if result.name), "") or "(untitled)",
                "studio": results[0].studio,
                "capped": len(results) >= RESULTS_SHOWN,
                "can_write": request.workspace.can_write,
            },
        )
    op = artifact_latest_turn(workspace_id=request.workspace.id, artifact_id=item_id)
    if op is None:
        messages.info(
            request,
            gettext("No conversation about it was held through the console yet, so it has no turn history here."),
        )
        return redirect("studio:library_item", kind, item_id)
    return redirect(f"{reverse('studio:turn', args=[op.pk])}#turn-{op.pk}")


def _go_back_context(request: ConsoleRequest, result: TurnResult, form: RestoreVersionForm) -> dict:
    later = turn_results_after(result=result)
    when = date_format(localtime(result.created_at), "j M Y, H:i")
    return {
        "result": result,
        "when": when,
        "later": later,
        "restore": go_back_message(result, later=later, when=when),
        "form": form,
        "history_url": reverse(
            "studio:artifact_history", args=[KIND_OF_STUDIO[result.studio].slug, result.artifact_id]
        ),
        "can_write": request.workspace.can_write,
    }


@require_GET
def artifact_go_back(request: ConsoleRequest, pk: int) -> HttpResponse:
    """The confirmation of "go back to this": the result, the later requests
    the turn asks to undo, and the message that goes (studio/rollback.py)."""
    result = turn_result_get(workspace_id=request.workspace.id, result_id=pk)
    return render(request, "studio/artifact_go_back.html", _go_back_context(request, result, RestoreVersionForm()))


@require_POST
@requires_write(READ_ONLY)
def artifact_go_back_send(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Send the turn in the result's own conversation, with the acting person's key."""
    result = turn_result_get(workspace_id=request.workspace.id, result_id=pk)
    form = RestoreVersionForm(request.POST)
    context = _go_back_context(request, result, form)
    done = f"Sent: the director is taking the {result.studio} back to how it was on {context['when']}."
    return _rollback_send(request, result.turn, form, context, "studio/artifact_go_back.html", done)


def _rollback_send(
    request: ConsoleRequest, anchor, form: RestoreVersionForm, context: dict, template: str, done: str
) -> HttpResponseBase:
    """Both roll backs: the confirmed message (context["restore"], studio/rollback.py)
    sent as a further turn of `anchor`'s conversation, or the confirmation again
    with why not (a refusal in words, 400; a remote error on the form)."""
    restore = context["restore"]
    if restore.problem or not form.is_valid():
        return render(request, template, context, status=400 if restore.problem else 200)
    turns = selectors.conversation_turns(workspace_id=request.workspace.id, anchor=anchor)
    try:
        turn = services.turn_continue(
            key=request.workspace.require_key(),
            turns=turns,
            message=restore.message,
            idempotency_key=form.cleaned_data["idempotency_key"],
            auto=True,
        )
    except errors.ApiError as exc:
        context["remote_error"] = failed_write(request, form, exc, conflict_message=RESTORE_CONFLICT)
        return render(request, template, context)
    messages.success(request, done)
    return client_redirect(request, reverse("studio:turn", args=[turn.pk]))


def _restore_context(request: ConsoleRequest, version: DocumentVersion, form: RestoreVersionForm) -> dict:
    versions = document_versions(workspace_id=request.workspace.id, document_id=version.document_id)
    latest = versions[0] if versions else None
    number = len(versions) - next((i for i, v in enumerate(versions) if v.pk == version.pk), 0)
    when = date_format(localtime(version.created_at), "j M Y, H:i")
    restore = restore_message(version, when=when)
    lines = versions_diff(latest.content, version.content) if latest and latest.pk != version.pk else []
    return {
        "version": version,
        "label": version_label(version, number),
        "restore": restore,
        "is_latest": latest is not None and latest.pk == version.pk,
        "counts": diff_counts(lines) if lines else None,
        "form": form,
        "versions_url": reverse("studio:document_versions", args=[version.document_id]),
        "can_write": request.workspace.can_write,
    }


@require_GET
def document_version_restore(request: ConsoleRequest, pk: int) -> HttpResponse:
    """The confirmation of "make this the current version": what the revision
    turn will send (the kept content, whole), what it changes against the
    latest kept version, and why not when it can't (studio/rollback.py)."""
    version = document_version_get(workspace_id=request.workspace.id, version_id=pk)
    context = _restore_context(request, version, RestoreVersionForm())
    return render(request, "studio/document_version_restore.html", context)


@require_POST
@requires_write(READ_ONLY)
def document_version_restore_send(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Send the revision turn in the version's own conversation, with the
    acting person's key; the conversation page follows it."""
    version = document_version_get(workspace_id=request.workspace.id, version_id=pk)
    form = RestoreVersionForm(request.POST)
    context = _restore_context(request, version, form)
    done = f"Sent: the director is making {context['label'].lower()} the current version again."
    return _rollback_send(request, version.turn, form, context, "studio/document_version_restore.html", done)
