"""Idempotency keys minted at form render and kept over re-posts."""

from __future__ import annotations

import uuid

from django import forms
from django.http import QueryDict

from dashboard.idempotency import IdempotencyKeyField, new_idempotency_key, renew_idempotency_key
from tests.html import one


class NoteForm(forms.Form):
    text = forms.CharField(max_length=5)
    idempotency_key = IdempotencyKeyField()


def rendered_key(form: forms.Form) -> str:
    field = one(str(form["idempotency_key"]), "input[name=idempotency_key]")
    assert field.get("value"), "the hidden field was not rendered with a value"
    return field["value"]


def test_new_keys_are_distinct_uuids():
    first, second = new_idempotency_key(), new_idempotency_key()
    assert first != second
    assert uuid.UUID(first) and uuid.UUID(second)


def test_each_rendered_form_gets_its_own_hidden_key_which_stays_the_same_within_the_form():
    form, other = NoteForm(), NoteForm()

    assert one(str(form["idempotency_key"]), "input")["type"] == "hidden"
    assert rendered_key(form) == rendered_key(form)
    assert rendered_key(form) != rendered_key(other)
    uuid.UUID(rendered_key(form))


def test_a_posted_key_is_kept_when_the_form_is_valid_and_when_it_is_re_rendered():
    key = new_idempotency_key()

    valid = NoteForm(data={"text": "hi", "idempotency_key": key})
    invalid = NoteForm(data={"text": "too long", "idempotency_key": key})

    assert valid.is_valid() and valid.cleaned_data["idempotency_key"] == key
    assert not invalid.is_valid()
    assert list(invalid.errors) == ["text"]
    assert rendered_key(invalid) == key


def test_a_missing_key_gets_a_fresh_one_instead_of_an_invisible_error():
    form = NoteForm(data={"text": "hi"})

    assert form.is_valid()
    uuid.UUID(form.cleaned_data["idempotency_key"])


def test_a_malformed_key_is_refused_and_the_form_re_renders_with_a_fresh_one():
    form = NoteForm(data={"text": "hi", "idempotency_key": "<script>"})

    assert not form.is_valid()
    assert "idempotency_key" in form.errors
    uuid.UUID(rendered_key(form))


def test_renewing_gives_a_bound_form_a_new_key_and_keeps_what_was_typed():
    key = new_idempotency_key()
    form = NoteForm(data=QueryDict(f"text=hello&idempotency_key={key}"))
    assert form.is_valid()
    rendered_key(form)  # the old key was rendered (and cached) once

    new_key = renew_idempotency_key(form)

    assert new_key != key
    assert rendered_key(form) == new_key
    assert one(str(form["text"]), "input[name=text]")["value"] == "hello"


def test_renewing_an_unbound_form():
    form = NoteForm()
    old_key = rendered_key(form)
    new_key = renew_idempotency_key(form)
    assert new_key != old_key
    assert rendered_key(form) == new_key
