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

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict

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
