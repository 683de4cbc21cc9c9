"""Notifications outside the tab: one's preferences and chat webhooks, the
delivery log (with "Try again"), and claiming or assigning an item."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.models import PermissionsMixin
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from dashboard.frame.permissions import requires_permission, requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import DECIDE_APPROVALS, MANAGE_PEOPLE
from dashboard.reach import selectors, services
from dashboard.reach.assigning import assignment_notify
from dashboard.reach.forms import ClaimForm, PreferencesForm, WebhookForm
from dashboard.reach.models import ChatWebhook, Delivery
from dashboard.reach.push import push_configured
from dashboard.web.htmx import next_url

READ_ONLY = "Claiming and assigning approvals is for members who may write: ask a workspace admin for such a role."
NOT_AN_APPROVER = (
    "Only Approvers claim or assign approvals. Ask an administrator to make you an Approver (People page)."
)
NOT_AN_ADMINISTRATOR = "Only Administrators add a workspace's chat webhooks. Add one of your own instead."


def _may(request: ConsoleRequest, permission: str) -> bool:
    user = request.user
    return isinstance(user, PermissionsMixin) and user.has_perm(permission)


def _initial(preference) -> dict:
    return {
        "approval_risks": preference.approval_risks,
        "my_work_needs_me": preference.my_work_needs_me,
        "my_work_finished": preference.my_work_finished,
        "cadence": preference.cadence,
        "by_email": preference.by_email,
        "slack_user_id": preference.slack_user_id,
        "time_zone": preference.time_zone,
        "quiet_from": preference.quiet_from,
        "quiet_until": preference.quiet_until,
        "away_until": preference.away_until,
        "delegate": preference.delegate_id,
    }


def _page(request: ConsoleRequest, *, form=None, webhook_form=None, new_secret=None, status: int = 200) -> HttpResponse:
    preference = selectors.preferences_of(request.user)
    own, shared = selectors.webhooks_of(user=request.user, workspace_id=request.workspace.id)
    context = {
        "form": form or PreferencesForm(initial=_initial(preference), user=request.user),
        "webhook_form": webhook_form or WebhookForm(),
        "own_webhooks": own,
        "workspace_webhooks": shared,
        "may_manage": _may(request, MANAGE_PEOPLE),
        "has_email": bool(getattr(request.user, "email", "")),
        "new_secret": new_secret,
        "push_devices": selectors.push_devices_of(user=request.user),
        "push_configured": push_configured(),
        "vapid_public_key": settings.VAPID_PUBLIC_KEY,
    }
    return render(request, "reach/preferences.html", context, status=status)


@require_http_methods(["GET", "POST"])
def preferences(request: ConsoleRequest) -> HttpResponseBase:
    """One's own preferences (personal: every role keeps theirs)."""
    if request.method == "GET":
        return _page(request)
    form = PreferencesForm(request.POST, user=request.user)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    services.preferences_save(user=request.user, values=form.cleaned_data)
    messages.success(request, gettext("Your notification preferences are saved."))
    return redirect("reach:preferences")


def _webhook_add(request: ConsoleRequest, *, workspace_id: str) -> HttpResponseBase:
    form = WebhookForm(request.POST)
    if not form.is_valid():
        return _page(request, webhook_form=form, status=400)
    hook = services.webhook_add(owner=request.user, workspace_id=workspace_id, **form.cleaned_data)
    messages.success(
        request,
        gettext("The webhook “%(cleaned_data)s” is added: it hears of news from now on.")
        % {"cleaned_data": form.cleaned_data["label"]},
    )
    if hook.secret:
        # Shown this once, in this answer only (never in a redirect's cookie or session).
        return _page(request, new_secret={"label": hook.label, "secret": hook.secret})
    return redirect("reach:preferences")


@require_POST
def webhook_add(request: ConsoleRequest) -> HttpResponseBase:
    """One's own chat webhook: one's own notifications go there too."""
    return _webhook_add(request, workspace_id="")


@require_POST
@requires_permission(MANAGE_PEOPLE, NOT_AN_ADMINISTRATOR)
def workspace_webhook_add(request: ConsoleRequest) -> HttpResponseBase:
    """The workspace's chat webhook: its escalations go there."""
    return _webhook_add(request, workspace_id=request.workspace.id)


def _hook_is_theirs(request: ConsoleRequest, hook: ChatWebhook) -> bool:
    """One's own webhook, or (Administrators) one of the workspace's."""
    mine = hook.owner_id == request.user.pk and not hook.workspace_id
    return mine or (hook.workspace_id == request.workspace.id and _may(request, MANAGE_PEOPLE))


@require_POST
def webhook_remove(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """One's own webhook, or (Administrators) one of the workspace's."""
    hook = get_object_or_404(ChatWebhook, pk=pk)
    if not _hook_is_theirs(request, hook):
        messages.error(request, gettext("This webhook is not yours to remove."))
        return redirect("reach:preferences")
    services.webhook_remove(webhook=hook)
    messages.success(request, gettext("The webhook “%(label)s” is removed.") % {"label": hook.label})
    return redirect("reach:preferences")


@require_POST
def webhook_resume(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Call a paused webhook again: one's own, or (Administrators) the workspace's."""
    hook = get_object_or_404(ChatWebhook, pk=pk)
    if not _hook_is_theirs(request, hook):
        messages.error(request, gettext("This webhook is not yours to resume."))
        return redirect("reach:preferences")
    services.webhook_resume(webhook=hook)
    messages.success(
        request,
        gettext("The webhook “%(label)s” is resumed: the next notification is sent to it.") % {"label": hook.label},
    )
    return redirect("reach:preferences")


@require_http_methods(["GET"])
def delivery_log(request: ConsoleRequest) -> HttpResponse:
    rows = selectors.delivery_log(
        user=request.user,
        workspace_id=request.workspace.id,
        may_see_workspace_hooks=_may(request, MANAGE_PEOPLE),
    )
    return render(request, "reach/log.html", {"rows": rows, "workspace_zone": request.workspace.zone})


@require_POST
def delivery_retry(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Try a delivery that gave up again (one's own: nobody else's changes)."""
    delivery = get_object_or_404(Delivery, pk=pk, user=request.user, workspace_id=request.workspace.id)
    services.delivery_retry(delivery=delivery)
    messages.success(request, gettext("It will be sent again in a moment."))
    return redirect("reach:log")


@require_POST
@requires_write(READ_ONLY)
@requires_permission(DECIDE_APPROVALS, NOT_AN_APPROVER)
def claim(request: ConsoleRequest) -> HttpResponseBase:
    """ "I'm on it", "Release" or an assignment to another approver; seen by
    every approver on the item. An assignment to someone away goes to their delegate."""
    form = ClaimForm(request.POST)
    back = next_url(request, reverse("inbox:index"))
    if not form.is_valid():
        messages.error(request, gettext("This claim could not be read; reload the page and try again."))
        return redirect(back)
    data, workspace_id = form.cleaned_data, request.workspace.id
    if data["action"] == "release":
        services.claim_release(workspace_id=workspace_id, item_key=data["item_key"])
        messages.success(request, gettext("Released: another approver can take it."))
    elif data["action"] == "claim":
        services.claim_take(workspace_id=workspace_id, item_key=data["item_key"], user=request.user)
        messages.success(request, gettext("Claimed: other approvers see you are on it."))
    else:
        people = {person.pk: person for person in selectors.people_to_assign(workspace_id=workspace_id)}
        assignee = people.get(data["assignee"] or 0)
        if assignee is None:
            messages.error(request, gettext("Choose an approver who holds a working key of this workspace."))
            return redirect(back)
        covering = selectors.covering_for(assignee)
        if covering:
            assignee = get_user_model().objects.get(username=covering)
        services.claim_take(
            workspace_id=workspace_id, item_key=data["item_key"], user=assignee, assigned_by=request.user
        )
        assignment_notify(
            workspace_id=workspace_id, item_key=data["item_key"], assignee=assignee, assigned_by=request.user
        )
        messages.success(request, gettext("Assigned to %(username)s.") % {"username": assignee.get_username()})
    return redirect(back)
