"""Outbound events, for a workspace's Administrators (who hold a working key
of it: the key gate refuses anyone else before these run): its endpoints
(add, edit, test, disable, a new secret) and the delivery log ("Send again")."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from dashboard.events import selectors, services
from dashboard.events.forms import EndpointForm
from dashboard.events.models import Delivery, Endpoint
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import MANAGE_PEOPLE
from dashboard.web.pager import CursorPager, choice, tabs
from dashboard.web.params import database_id

ADMINISTRATORS_ONLY = (
    "Only Administrators set where a workspace's events go and read their delivery log: ask one (People page)."
)


def _endpoint(request: ConsoleRequest, pk: int) -> Endpoint:
    endpoint = selectors.endpoint_of(workspace_id=request.workspace.id, pk=pk)
    if endpoint is None:
        raise Http404("No such endpoint in this workspace.")
    return endpoint


def _list(request: ConsoleRequest, *, form: EndpointForm | None = None, made=None, status: int = 200) -> HttpResponse:
    context = {
        "endpoints": selectors.endpoints_of(workspace_id=request.workspace.id),
        "form": form or EndpointForm(),
        "made": made,
    }
    return render(request, "events/endpoints.html", context, status=status)


@require_http_methods(["GET", "POST"])
@requires_permission(MANAGE_PEOPLE, ADMINISTRATORS_ONLY)
def endpoints(request: ConsoleRequest) -> HttpResponseBase:
    """The workspace's endpoints, and adding one (its secret shown in this answer only)."""
    if request.method == "GET":
        return _list(request)
    form = EndpointForm(request.POST)
    if not form.is_valid():
        return _list(request, form=form, status=400)
    data = form.cleaned_data
    endpoint, secret = services.endpoint_create(
        workspace_id=request.workspace.id,
        by=request.user,
        label=data["label"],
        url=data["url"],
        event_types=data["event_types"],
        enabled=data["enabled"],
    )
    return _list(request, made={"endpoint": endpoint, "secret": secret})


@require_http_methods(["GET", "POST"])
@requires_permission(MANAGE_PEOPLE, ADMINISTRATORS_ONLY)
def endpoint_edit(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    endpoint = _endpoint(request, pk)
    if request.method == "GET":
        initial = {"label": endpoint.label, "event_types": endpoint.event_types, "enabled": endpoint.enabled}
        form = EndpointForm(initial=initial, editing=True)
        return render(request, "events/endpoint.html", {"endpoint": endpoint, "form": form})
    form = EndpointForm(request.POST, editing=True)
    if not form.is_valid():
        return render(request, "events/endpoint.html", {"endpoint": endpoint, "form": form}, status=400)
    services.endpoint_update(endpoint=endpoint, **form.cleaned_data)
    messages.success(request, gettext("“%(label)s” is saved.") % {"label": endpoint.label})
    return redirect("events:endpoints")


@require_POST
@requires_permission(MANAGE_PEOPLE, ADMINISTRATORS_ONLY)
def endpoint_enable(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Enable or disable (`enabled` = "1" or "0")."""
    endpoint = _endpoint(request, pk)
    enabled = request.POST.get("enabled") == "1"
    services.endpoint_enable(endpoint=endpoint, enabled=enabled)
    if enabled:
        messages.success(
            request, gettext("“%(label)s” is enabled: it receives events from now on.") % {"label": endpoint.label}
        )
    else:
        messages.success(request, gettext("“%(label)s” is disabled: it is called no more.") % {"label": endpoint.label})
    return redirect("events:endpoints")


@require_POST
@requires_permission(MANAGE_PEOPLE, ADMINISTRATORS_ONLY)
def endpoint_test(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    endpoint = _endpoint(request, pk)
    if not endpoint.enabled:
        messages.error(
            request, gettext("“%(label)s” is disabled: enable it to send it a test.") % {"label": endpoint.label}
        )
        return redirect("events:endpoints")
    services.endpoint_test(endpoint=endpoint, by=request.user)
    messages.success(
        request,
        gettext("A test event is on its way to “%(label)s”: its delivery is below.") % {"label": endpoint.label},
    )
    return redirect(f"{reverse('events:log')}?endpoint={endpoint.pk}")


@require_POST
@requires_permission(MANAGE_PEOPLE, ADMINISTRATORS_ONLY)
def endpoint_secret(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """A new signing secret, shown in this answer only."""
    endpoint = _endpoint(request, pk)
    secret = services.endpoint_secret_rotate(endpoint=endpoint)
    return _list(request, made={"endpoint": endpoint, "secret": secret, "rotated": True})


@require_http_methods(["GET"])
@requires_permission(MANAGE_PEOPLE, ADMINISTRATORS_ONLY)
def delivery_log(request: ConsoleRequest) -> HttpResponse:
    """Every delivery of the workspace's events, newest first, each attempt shown."""
    workspace_id = request.workspace.id
    pager = CursorPager.from_query(request.GET)
    status = choice(request.GET.get("status"), Delivery.STATUSES, "")
    endpoint_id = database_id(request.GET.get("endpoint"))
    endpoint = selectors.endpoint_of(workspace_id=workspace_id, pk=endpoint_id) if endpoint_id else None
    page = selectors.deliveries_page(
        workspace_id=workspace_id,
        cursor=pager.cursor,
        endpoint_id=endpoint.pk if endpoint else None,
        status=status,
    )
    base = {"status": status, "endpoint": str(endpoint.pk) if endpoint else ""}
    statuses = [("", "All"), *Delivery.STATUSES]
    context = {
        "status_tabs": tabs(statuses, status, {"endpoint": base["endpoint"]}),
        "page": page,
        "links": pager.links(base, page.next_cursor),
        "endpoint": endpoint,
        "status": status,
        "zone": request.workspace.zone,
    }
    return render(request, "events/log.html", context)


@require_POST
@requires_permission(MANAGE_PEOPLE, ADMINISTRATORS_ONLY)
def delivery_again(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    delivery = selectors.delivery_of(workspace_id=request.workspace.id, pk=pk)
    if delivery is None:
        raise Http404("No such delivery in this workspace.")
    if services.delivery_send_again(delivery=delivery):
        messages.success(request, gettext("It is sent again in a moment, with the same event id."))
    else:
        messages.error(
            request,
            gettext("“%(label)s” is disabled: enable it to send this again.") % {"label": delivery.endpoint.label},
        )
    return redirect("events:log")
