"""Login throttling with django-axes: too many wrong passwords lock the
account, and separately the address they came from (AXES_LOCKOUT_PARAMETERS),
for a cool-off period. The lockout answer is the login page itself, with
the username kept and a message saying when to try again.
"""

from __future__ import annotations

import math
from datetime import timedelta

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Max, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone


class LoginThrottleBackend(AxesStandaloneBackend):
    """axes' lockout check for every login made through a request.

    `authenticate()` without a request (a management command, a test client's
    `login()`) is not a login attempt anyone can repeat from outside, so it
    is let through to the password check instead of raising.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def cool_off_seconds() -> float:
    """How long a pause after too many failures lasts (the login's AXES_COOLOFF_TIME, 15 min unset):
    wrong sign-in codes and wrong current passwords pause for as long as wrong passwords at the login."""
    cool_off = settings.AXES_COOLOFF_TIME
    return cool_off.total_seconds() if cool_off is not None else 15 * 60


def client_address(request: HttpRequest) -> str:
    """The address a request came from: the connection's, or with
    TRUSTED_PROXY_COUNT proxies in front, the one the outermost of them saw
    (X-Forwarded-For is appended to by each proxy; earlier entries are the
    client's to forge)."""
    hops = settings.TRUSTED_PROXY_COUNT
    if hops > 0:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return request.META.get("REMOTE_ADDR", "")


def lockout_remaining(*, username: str, address: str) -> timedelta:
    """How long the lockout of this account or address still lasts: the cool-off
    runs from the last failure that counted."""
    cool_off = get_cool_off() or timedelta(0)
    last = AccessAttempt.objects.filter(Q(username=username) | Q(ip_address=address)).aggregate(
        last=Max("attempt_time")
    )["last"]
    if last is None:
        return cool_off
    return max(timedelta(0), last + cool_off - timezone.now())


def lockout_message(remaining: timedelta) -> str:
    minutes = max(1, math.ceil(remaining.total_seconds() / 60))
    wait = "1 minute" if minutes == 1 else f"{minutes} minutes"
    return (
        "Too many failed logins for this account or from this address, so logging in is paused. "
        f"Try again in {wait}. An administrator can lift the pause sooner."
    )


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the login page, status 429, username kept."""
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    remaining = lockout_remaining(username=username, address=client_address(request))
    context = {
        "form": AuthenticationForm(request, initial={"username": username}),
        "next": request.POST.get("next", request.GET.get("next", "")),
        "lockout_message": lockout_message(remaining),
    }
    return render(request, "registration/login.html", context, status=429)
