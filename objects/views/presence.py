"""Presence on records (objects/presence.py): the presence region's poll,
which is also the page's heartbeat, and the beacon of a page left.

Both are background requests (never activity: they keep no idle session
alive) that read and write the console's database only. Access follows the
key: without a working key of a workspace nothing is written or shown."""

from __future__ import annotations

from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from dashboard.accounts.middleware import background_request
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import poll_unchanged, stop_polling
from objects import presence as presence_area


@background_request
@never_cache
@require_POST
def presence(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """The poll of a record page (`?of=` the record) or of the grid (the
    object's every record), every ~2 s while the page is visible. It beats
    for the page (`token`; `record` and `field` of an inline editor open),
    then answers 204 while the others it shows are unchanged (`v`). Without
    a working key: 286 and nothing, the polling stops."""
    workspace_id = request.workspace.working_id
    if not workspace_id:
        return stop_polling(HttpResponse(""), final=True)
    token = presence_area.valid_token(request.POST.get("token", ""))
    shown_record = presence_area.valid_remote_id(request.GET.get("of", ""))
    presence_area.presence_beat(
        user=request.user,
        token=token,
        workspace_id=workspace_id,
        object_key=object_key,
        record_id=presence_area.valid_remote_id(request.POST.get("record", "")),
        field_key=presence_area.valid_remote_id(request.POST.get("field", "")),
    )
    others = presence_area.presence_of_others(
        viewer=request.user, workspace_id=workspace_id, object_key=object_key, record_id=shown_record
    )
    unchanged = poll_unchanged(request, lambda: others.version)
    if unchanged is not None:
        return unchanged
    context = {
        "presence": others,
        "object_key": object_key,
        "presence_record": shown_record,
        "presence_token": token,
        "presence_vals": presence_area.presence_vals(token=token, record_id=shown_record),
        "poll_seconds": presence_area.PRESENCE_POLL_SECONDS,
    }
    return render(request, "objects/includes/presence.html#presence", context)


@background_request
@never_cache
@require_POST
def presence_leave(request: ConsoleRequest) -> HttpResponseBase:
    """A page was left (pagehide, a hidden tab: navigator.sendBeacon): its
    presence ends at once. Only the person's own page: the token is theirs."""
    presence_area.presence_end(user=request.user, token=presence_area.valid_token(request.POST.get("token", "")))
    return HttpResponse(status=204)
