"""Saved views of the runs list (agents/run_views.py): save the list as it
is under a name, make one the default the Runs page opens with, delete one's
own. No write guard on a private view (a person's own preference, as
Objects' views); sharing one needs a role that writes, said on the field."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponseBase, QueryDict
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from agents.forms import RunViewForm
from agents.run_views import (
    SHARE_NEEDS_WRITE,
    RunViewRefused,
    run_view_address,
    run_view_default_toggle,
    run_view_delete,
    run_view_get,
    run_view_save,
)
from dashboard.frame.permissions import write_refusal
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect


def _visible(request: ConsoleRequest, view_id: int):
    view = run_view_get(user_id=request.user.pk, workspace_id=request.workspace.id, pk=view_id)
    if view is None:
        raise Http404("No such view of runs.")
    return view


@require_POST
def run_view_new(request: ConsoleRequest) -> HttpResponseBase:
    form = RunViewForm(request.POST, share_refusal=write_refusal(request.workspace, SHARE_NEEDS_WRITE))
    if form.is_valid():
        data = form.cleaned_data
        try:
            view = run_view_save(
                user=request.user,
                workspace_id=request.workspace.id,
                name=data["name"],
                query=QueryDict(data["query"]),
                shared=data["shared"],
            )
        except RunViewRefused as exc:
            form.add_error("name", str(exc))
        else:
            if data["make_default"]:
                run_view_default_toggle(user=request.user, workspace_id=request.workspace.id, view=view)
            messages.success(request, f"Saved the view “{view.name}”.")
            return client_redirect(request, run_view_address(view))
    # What was typed, with what is wrong on its field (the page's form is in a fold; this is the form alone).
    return render(request, "agents/run_view_save.html", {"view_form": form}, status=200)


@require_POST
def run_view_default(request: ConsoleRequest, view_id: int) -> HttpResponseBase:
    view = _visible(request, view_id)
    now_default = run_view_default_toggle(user=request.user, workspace_id=request.workspace.id, view=view)
    messages.success(
        request, f"Runs opens with “{view.name}”." if now_default else f"Runs no longer opens with “{view.name}”."
    )
    return client_redirect(request, run_view_address(view))


@require_POST
def run_view_remove(request: ConsoleRequest, view_id: int) -> HttpResponseBase:
    view = _visible(request, view_id)
    try:
        run_view_delete(view=view, user=request.user)
    except RunViewRefused as exc:
        messages.error(request, str(exc))
        return redirect(run_view_address(view))
    messages.success(request, f"Deleted the view “{view.name}”.")
    return redirect("agents:runs")
