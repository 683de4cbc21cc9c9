"""The home page's "New record" picker, asked for when the person opens it
(objects/home.py): the workspace's objects as links to a new record of each."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboard.frame.home import home_viewer
from dashboard.frame.workspace import ConsoleRequest
from objects.home import new_record_action, objects_of

NOT_READ = "The objects could not be read just now: pick one from all objects."


@require_GET
def home_picker(request: ConsoleRequest) -> HttpResponse:
    """The picker's choices: one remote read, kept a minute for this person
    and workspace (the home page then shows them at once). No write guard:
    it reads; a person who may not write is offered no choice (the home page
    shows them no picker), only the objects list."""
    viewer = home_viewer(request)
    objects = objects_of(viewer) if viewer is not None and viewer.can_write else []
    context = {
        "action": new_record_action(objects or []),
        "note": NOT_READ if objects is None else "",
    }
    return render(request, "dashboard/home.html#picker_choices", context)
