"""One's own notification preferences in the console's API
(dashboard/console_api), scope `notifications`: read as the preferences page
shows them, and replaced (PUT) through the page's own form, so a value is
refused in the page's words. Personal: every role keeps theirs, and nothing
of the workspace is written (no write guard, no service call)."""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any

from django.contrib.auth import get_user_model
from django.http import HttpRequest, QueryDict
from ninja import Router, Schema

from dashboard.console_api.api import ApiRefusal, require_scope
from dashboard.reach import selectors, services
from dashboard.reach.forms import PreferencesForm
from dashboard.reach.models import Cadence
from dashboard.tokens.scopes import NOTIFICATIONS

router = Router(tags=["notifications"])


def _preferences(preference: Any) -> dict[str, Any]:
    delegate = preference.delegate
    return {
        "approval_risks": list(preference.approval_risks or []),
        "my_work_needs_me": preference.my_work_needs_me,
        "my_work_finished": preference.my_work_finished,
        "cadence": preference.cadence,
        "by_email": preference.by_email,
        "slack_user_id": preference.slack_user_id,
        "time_zone": preference.time_zone,
        "quiet_from": preference.quiet_from.strftime("%H:%M") if preference.quiet_from else None,
        "quiet_until": preference.quiet_until.strftime("%H:%M") if preference.quiet_until else None,
        "away_until": preference.away_until.astimezone(UTC).isoformat() if preference.away_until else None,
        "delegate": delegate.get_username() if delegate is not None else None,
    }


class PreferencesIn(Schema):
    approval_risks: list[str] = []
    my_work_needs_me: bool = False
    my_work_finished: bool = False
    cadence: str = Cadence.NOW
    by_email: bool = False
    slack_user_id: str = ""
    time_zone: str = "UTC"
    quiet_from: time | None = None
    quiet_until: time | None = None
    away_until: datetime | None = None
    # The delegate's user name (the page offers them by name).
    delegate: str | None = None


@router.get("/notifications/preferences", summary="Your own notification preferences (what reaches you, how, when not)")
def preferences_get(request: HttpRequest) -> Any:
    require_scope(request, NOTIFICATIONS)
    return _preferences(selectors.preferences_of(request.user))


@router.put(
    "/notifications/preferences",
    summary="Replace your own notification preferences (checked as the preferences page checks them)",
)
def preferences_put(request: HttpRequest, body: PreferencesIn) -> Any:
    require_scope(request, NOTIFICATIONS)
    delegate_pk = None
    if body.delegate:
        delegate_pk = (
            get_user_model()
            .objects.filter(**{get_user_model().USERNAME_FIELD: body.delegate})
            .values_list("pk", flat=True)
            .first()
        )
        if delegate_pk is None:
            raise ApiRefusal(422, "invalid_preferences", f"delegate: nobody is called “{body.delegate[:150]}”.")
    data: dict[str, Any] = {
        "approval_risks": body.approval_risks,
        "cadence": body.cadence,
        "slack_user_id": body.slack_user_id,
        "time_zone": body.time_zone,
        "quiet_from": body.quiet_from.isoformat() if body.quiet_from else "",
        "quiet_until": body.quiet_until.isoformat() if body.quiet_until else "",
        "away_until": body.away_until.isoformat() if body.away_until else "",
        "delegate": str(delegate_pk) if delegate_pk is not None else "",
    }
    # A checkbox the form reads as ticked only when it is sent.
    data.update({name: "on" for name in ("my_work_needs_me", "my_work_finished", "by_email") if getattr(body, name)})
    form = PreferencesForm(_querydict(data), user=request.user)
    if not form.is_valid():
        said = "; ".join(f"{field}: {' '.join(str(m) for m in messages)}" for field, messages in form.errors.items())
        raise ApiRefusal(422, "invalid_preferences", f"Nothing was saved. {said}")
    return _preferences(services.preferences_save(user=request.user, values=form.cleaned_data))


def _querydict(data: dict[str, Any]) -> QueryDict:
    query = QueryDict(mutable=True)
    for name, value in data.items():
        if isinstance(value, list):
            query.setlist(name, [str(item) for item in value])
        else:
            query[name] = value
    return query
