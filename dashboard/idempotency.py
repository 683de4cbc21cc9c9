"""Idempotency keys for remote writes: one per logical action.

A form gets a fresh key when it is rendered (a hidden field). Posting the
same rendered form twice, or re-posting it after a timeout, sends the same key,
so the service replays the first result instead of doing the work again.

After the service refuses the values (422/400), the view re-renders the form
with a NEW key (`renew_idempotency_key(form)`): the corrected body is a new
logical write, and reusing the old key with a different body answers 409.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django import forms
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponseBase, QueryDict
from django.utils.http import url_has_allowed_host_and_scheme

if TYPE_CHECKING:
    from dashboard.api.hooks import RemoteWrite

# UUIDs (what we mint) and other opaque tokens of reasonable length.
IDEMPOTENCY_KEY_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{15,127}$")


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


def is_idempotency_key(value: object) -> bool:
    return isinstance(value, str) and bool(IDEMPOTENCY_KEY_PATTERN.match(value))


class IdempotencyKeyField(forms.CharField):
    """A hidden field holding the form's idempotency key.

    - Unbound form: a fresh key per form instance (the initial is a callable,
      evaluated once per bound field).
    - Bound form: the posted key is kept when it is well formed, so a
      re-render of an invalid form and its next post reuse it.
    - A missing key (a hand-made request) gets a fresh one instead of an
      error on a field the person cannot see; a malformed one is refused
      and the re-rendered form carries a fresh key.
    """

    widget = forms.HiddenInput
    default_error_messages = {
        "invalid": "This form was changed or has expired; please submit it again.",
    }

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", 128)
        kwargs.setdefault("initial", new_idempotency_key)
        kwargs.setdefault("label", "")
        super().__init__(**kwargs)

    def bound_data(self, data, initial):
        if is_idempotency_key(data):
            return data
        return initial

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return new_idempotency_key()
        if not is_idempotency_key(value):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return value

    def has_changed(self, initial, data) -> bool:
        # A new key is not an edit the person made.
        return False


def renew_idempotency_key(form: forms.BaseForm, field_name: str = "idempotency_key") -> str:
    """Give a bound form a fresh key before re-rendering it (after the service
    refused its values). Returns the new key."""
    key = new_idempotency_key()
    if form.is_bound:
        data = form.data.copy() if isinstance(form.data, QueryDict) else dict(form.data)
        data[form.add_prefix(field_name)] = key
        form.data = data
    else:
        form.initial = {**form.initial, field_name: key}
    # Drop the cached bound field (it caches its initial) so the new key renders.
    getattr(form, "_bound_fields_cache", {}).pop(field_name, None)
    return key


# --- what a sent form made -------------------------------------------------------------
# Back, edit, send: the form carries the key of its first send, and the service
# refuses the other body (409) without making anything twice. To say what that
# first send made, and link to it, the console remembers per form key, for
# FORM_SENT_MEMORY_HOURS: the remote write it made (the write hook: method and
# path) and the page the console then sent the person to (a form's success is
# a redirect to what it made: the new record, the conversation, the run).

_SENT = "form-sent:"
# Posted names that hold a form's key: `idempotency_key` (with a form prefix)
# and the decision forms' `key_approve`, `key_reject`, ...
_KEY_FIELD_NAME = re.compile(r"(?:^|-)(?:idempotency_key|key_[a-z_]+)$")


def _memory_seconds() -> int:
    return int(settings.FORM_SENT_MEMORY_HOURS * 3600)


def _remember(key: str, **facts: str) -> None:
    known = cache.get(_SENT + key) or {}
    cache.set(_SENT + key, {**known, **facts}, timeout=_memory_seconds())


def form_sent_write(write: RemoteWrite) -> None:
    """Write hook: a successful write sent with a form key is remembered under that key."""
    if write.succeeded and is_idempotency_key(write.idempotency_key):
        _remember(write.idempotency_key, method=write.method, path=write.path)


def form_sent(key: str) -> dict[str, str]:
    """What the form sent with `key` made, as far as the console knows:
    `method` and `path` of its remote write, `page` it led to (each may be absent)."""
    if not is_idempotency_key(key):
        return {}
    found = cache.get(_SENT + key)
    return dict(found) if isinstance(found, dict) else {}


def _redirect_target(response: HttpResponseBase) -> str:
    if response.status_code in (301, 302, 303):
        return response.get("Location", "")
    return response.get("HX-Redirect", "") if response.status_code == 200 else ""


class FormSentMiddleware:
    """After a post that succeeded (a redirect), remember where it led under
    each form key it carried, so a resend of that form can link to it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if request.method == "POST":
            target = _redirect_target(response)
            if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
                for name, value in request.POST.items():
                    if _KEY_FIELD_NAME.search(name) and isinstance(value, str) and is_idempotency_key(value):
                        _remember(value, page=target)
        return response


def posted_key(form: Any, field_name: str = "idempotency_key") -> str:
    """The key a bound form was posted with (before it is renewed)."""
    if not getattr(form, "is_bound", False):
        return ""
    value = form.data.get(form.add_prefix(field_name), "")
    return value if is_idempotency_key(value) else ""
