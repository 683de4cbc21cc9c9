"""The Studio's home page with its new-conversation form, rendered for the
views that show it: the home itself and a refused start (views/turns.py),
and a brief's words filled in (views/briefs.py). Below the views, so no view
imports another (the import contract)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import render

from dashboard.api import errors
from dashboard.frame.remote_errors import RemoteErrorView, describe_remote_error
from dashboard.frame.workspace import ConsoleRequest
from studio import pages
from studio.forms import MESSAGE_MAX_LENGTH, TurnForm, message_noun


def read_failure_box(request: ConsoleRequest, exc: errors.ApiError) -> RemoteErrorView:
    """A message box for a read that failed inside a page (a pane, a picker):
    the rest of the page stands; Retry reloads the page."""
    box = describe_remote_error(request, exc)
    box.retry = "link"
    box.retry_url = request.get_full_path()
    return box


def home_page(
    request: ConsoleRequest,
    form: TurnForm,
    *,
    remote_error: RemoteErrorView | None = None,
    picked_error: str | None = None,
    **extra: Any,
) -> HttpResponse:
    """The home with this form: the studio and the library item it works on
    (read from the service when one is picked), the recent conversations;
    `extra` goes to the template as it is (`from_brief`)."""
    studio = form["studio"].value() or "website"
    artifact_id = str(form["artifact_id"].value() or "")
    picked, problem = pages.picked_item(
        workspace=request.workspace,
        studio=studio if studio in MESSAGE_MAX_LENGTH else "website",
        artifact_id=artifact_id,
    )
    if isinstance(problem, str):
        picked_error = picked_error or problem
    elif problem is not None:
        remote_error = remote_error or read_failure_box(request, problem)
    if picked is not None:
        # No studio select: the message box carries the picked studio's limit itself
        # (as data for the counter, never a maxlength that would cut a paste).
        limit = str(MESSAGE_MAX_LENGTH[picked["studio"]])
        noun = message_noun(picked["studio"])
        form.fields["message"].widget.attrs.update({"data-max-length": limit, "data-limit-noun": noun})
    context = pages.home_context(workspace=request.workspace, studio=studio, picked=picked)
    return render(
        request,
        "studio/index.html",
        {**context, "form": form, "picked_error": picked_error, "remote_error": remote_error, **extra},
    )
