"""The confirmation page of a message's Approve / Reject
(`reach:decide`, /notifications/decide/<token>): GET shows, POST decides.

A mail scanner that opens every link decides nothing (GET never decides).
Only the token's own person decides, signed in as themselves: a link
forwarded to, or opened by, anyone else says whose it is and asks them to
sign in as that person, showing nothing of the approval. The decision is the
token's (dashboard/reach/decision_tokens.py: once, through the area's
decision flow, with the token's Idempotency-Key). A service that cannot be
reached is the frame's error page, and the link still works on a retry."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from dashboard.reach.decision_tokens import (
    DECISIONS,
    UNKNOWN,
    approval_decider,
    recipient_key,
    token_find,
    token_person,
    token_redeem,
    token_refusal,
)
from dashboard.reach.forms import StepUpCodeForm
from dashboard.reach.models import DecisionToken

TEMPLATE = "reach/decide.html"


def _answer(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    response = render(request, TEMPLATE, context, status=status)
    # The address holds the token: never sent on to another site (same-origin, not no-referrer:
    # with that, browsers post the form with `Origin: null` and Django's CSRF check refuses it).
    response.headers["Referrer-Policy"] = "same-origin"
    return response


def _not_yours(request: HttpRequest, token: DecisionToken) -> HttpResponse | None:
    """Whose link it is, when the person signed in (or nobody) is not its person."""
    if request.user.is_authenticated and request.user.pk == token.user_id:
        return None
    sign_in = f"{reverse(settings.LOGIN_URL)}?{urlencode({'next': request.get_full_path()})}"
    context = {
        "state": "not-yours",
        "person": token_person(token),
        "signed_in_as": request.user.get_username() if request.user.is_authenticated else "",
        "sign_in": sign_in,
    }
    return _answer(request, context, status=403 if request.user.is_authenticated else 200)


@login_not_required
@never_cache
@require_http_methods(["GET", "POST"])
def decide(request: HttpRequest, token: str) -> HttpResponse:
    found = token_find(token)
    if found is None:
        return _answer(request, {"state": "refused", "words": UNKNOWN}, status=404)
    not_yours = _not_yours(request, found)
    if not_yours is not None:
        return not_yours
    base = {"person": token_person(found), "console_url": reverse("inbox:index")}
    asked_code = ""
    if request.method == "POST":
        decision = request.POST.get("decision", "")
        redeemed = token_redeem(
            token=found,
            decision=decision if decision in DECISIONS else "",
            session=request.session,
            code=request.POST.get("step_up_code", "")[:64],
        )
        if not redeemed.needs_code:
            state = "decided" if redeemed.decided else "counted" if redeemed.counted else "refused"
            return _answer(request, {**base, "state": state, "words": redeemed.words, "status": redeemed.status})
        # A fresh second factor first (or a wrong code): the approval again, the code asked for beside the buttons.
        asked_code = redeemed.words
    refusal = token_refusal(found)
    decider = approval_decider()
    key = recipient_key(found)
    if refusal or decider is None or key is None:
        return _answer(request, {**base, "state": "refused", "words": refusal or "Approvals cannot be decided here."})
    shown = decider.shown(key=key, token=found, session=request.session)
    if shown is None:
        words = "The service no longer lists this approval (decided elsewhere, or removed): nothing can be decided."
        return _answer(request, {**base, "state": "refused", "words": words})
    wanted = request.GET.get("d", "")
    context = {
        **base,
        "state": "pending" if shown.status == "pending" else "refused",
        "words": shown.words,
        "shown": shown,
        "wanted": wanted if wanted in DECISIONS else "",
        "step_up_form": StepUpCodeForm(request.POST or None, refused=asked_code),
        **shown.context,
    }
    return _answer(request, context, status=422 if asked_code else 200)
