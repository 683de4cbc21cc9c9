"""Back, edit, send: a write form sent again with other values under the key
of its first send. The service makes nothing twice (409), and the page says
so in words: "This form was already sent with other values and made a
record. Send again to make another.", with a link to what was made where the
console saw it, and a fresh key so that "Send again" makes another. Never
the service's jargon ("Idempotency key: was used with a different body or
path").

FORMS is the table of every write form of the console (a form with an
IdempotencyKeyField); `test_every_write_form_is_in_the_table` fails when a
new one is not in it. Each is walked against the real sandbox over HTTP:
the first send succeeds, the edited resend with the same key gets the
service's own 409, and the form as its view handles a refusal
(`failed_write`) must carry the words and a new key. The forms people send
most (a record, a Studio turn, an agent's chat message) are also walked
through their pages, Back included.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django import forms
from django.test import RequestFactory
from django.urls import reverse

from dashboard.api import ServiceClient, errors
from dashboard.frame.forms import failed_write
from dashboard.idempotency import IdempotencyKeyField, new_idempotency_key
from dashboard.keys.testing import store_sandbox_key
from tests.html import form_values, one, parse, text_of

pytestmark = pytest.mark.django_db

# A bare 409 is jargon; the same digits inside a request id (hex) are not.
JARGON = re.compile(r"idempoten|different body|body or path|\b409\b|conflict", re.IGNORECASE)
SAID = "This form was already sent with other values and made a record. Send again to make another."

# Modules that define the console's forms.
FORM_MODULES = (
    "objects.forms",
    "objects.bulk",
    "objects.views.kanban",
    "objects.views.imports",
    "studio.forms",
    "studio.content_apps",
    "agents.forms",
    "dashboard.frame.forms",
    "dashboard.accounts.forms",
    "dashboard.people.forms",
    "dashboard.keys.forms",
    "dashboard.palette.forms",
    "dashboard.audit.forms",
    "dashboard.reach.forms",
)


def write_forms() -> set[str]:
    """Every form class of the console that carries a form key (a write form)."""
    found = set()
    for name in FORM_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or not issubclass(cls, forms.BaseForm):
                continue
            if any(isinstance(field, IdempotencyKeyField) for field in getattr(cls, "base_fields", {}).values()):
                found.add(f"{cls.__module__}.{cls.__qualname__}")
    return found


@dataclass(frozen=True)
class Walk:
    """How a form is made bound, as its view makes it (`make(data)`), and the
    names of its key fields (most have one, `idempotency_key`)."""

    make: Callable[[dict], forms.BaseForm]
    keys: tuple[str, ...] = ("idempotency_key",)


def _plain(path: str, **kwargs: Any) -> Callable[[dict], forms.BaseForm]:
    def make(data: dict) -> forms.BaseForm:
        module, _, name = path.rpartition(".")
        return getattr(importlib.import_module(module), name)(data, **kwargs)

    return make


def _record_form(data: dict) -> forms.BaseForm:
    from objects.forms import RecordForm

    definition = {"key": "deals", "fields": [{"key": "name", "label": "Name", "type": "text", "is_title": True}]}
    return RecordForm(data, definition=definition, zone=None)


def _app_form(data: dict) -> forms.BaseForm:
    from studio.content_apps import AppForm, read_app

    app = read_app({"id": "poster", "studio": "image", "label": "Poster", "inputs": {"type": "object"}})
    assert app is not None
    return AppForm(data, app=app)


def _questions_form(path: str) -> Callable[[dict], forms.BaseForm]:
    def make(data: dict) -> forms.BaseForm:
        module, _, name = path.rpartition(".")
        return getattr(importlib.import_module(module), name)(data, questions=[])

    return make


FORMS: dict[str, Walk] = {
    "objects.forms.ObjectForm": Walk(_plain("objects.forms.ObjectForm")),
    "objects.forms.ObjectSettingsForm": Walk(_plain("objects.forms.ObjectSettingsForm")),
    "objects.forms.FieldRemoveForm": Walk(_plain("objects.forms.FieldRemoveForm")),
    "objects.forms.RecordForm": Walk(_record_form),
    "objects.forms.RelationshipForm": Walk(_plain("objects.forms.RelationshipForm", objects=[])),
    "objects.forms.RecordDeleteForm": Walk(_plain("objects.forms.RecordDeleteForm")),
    "objects.forms.RecordUndoForm": Walk(_plain("objects.forms.RecordUndoForm")),
    "objects.forms.RecordPutBackForm": Walk(_plain("objects.forms.RecordPutBackForm")),
    "objects.forms.RecordThenForm": Walk(_plain("objects.forms.RecordThenForm", field_keys=("seats",))),
    "objects.bulk.BulkForm": Walk(_plain("objects.bulk.BulkForm", fields=[], zone=None)),
    "objects.views.kanban.MoveForm": Walk(_plain("objects.views.kanban.MoveForm")),
    "objects.views.imports.UploadForm": Walk(_plain("objects.views.imports.UploadForm")),
    "studio.forms.TurnForm": Walk(_plain("studio.forms.TurnForm")),
    "studio.forms.MessageForm": Walk(_plain("studio.forms.MessageForm")),
    "studio.forms.TryAgainForm": Walk(_plain("studio.forms.TryAgainForm")),
    "studio.forms.RestoreVersionForm": Walk(_plain("studio.forms.RestoreVersionForm")),
    "studio.forms.AnotherTakeForm": Walk(_plain("studio.forms.AnotherTakeForm")),
    "studio.content_apps.AppForm": Walk(_app_form),
    "agents.forms.AgentCreateForm": Walk(_questions_form("agents.forms.AgentCreateForm")),
    "agents.forms.AgentChangeForm": Walk(_questions_form("agents.forms.AgentChangeForm")),
    "agents.forms.AgentRenameForm": Walk(_plain("agents.forms.AgentRenameForm")),
    "agents.forms.AgentActionForm": Walk(_plain("agents.forms.AgentActionForm")),
    "agents.forms.ApprovalDecisionForm": Walk(
        _plain("agents.forms.ApprovalDecisionForm"), keys=("key_approve", "key_reject", "key_always")
    ),
    "agents.forms.ChatForm": Walk(_plain("agents.forms.ChatForm")),
    "agents.forms.RerunForm": Walk(_plain("agents.forms.RerunForm")),
    "agents.forms.RerunEditForm": Walk(_plain("agents.forms.RerunEditForm")),
    "agents.forms.RerunBatchForm": Walk(_plain("agents.forms.RerunBatchForm")),
    "agents.forms.ApprovalBatchForm": Walk(_plain("agents.forms.ApprovalBatchForm")),
    "agents.forms.GrantRevokeForm": Walk(_plain("agents.forms.GrantRevokeForm")),
    "agents.forms.ReinstructForm": Walk(_plain("agents.forms.ReinstructForm"), keys=("key_reject", "key_message")),
}


def test_every_write_form_is_in_the_table():
    assert write_forms() == set(FORMS), "a write form is missing from FORMS (or one was removed)"


@pytest.fixture
def service(sandbox, settings, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    settings.SERVICE_MAX_RETRIES = 0
    client = ServiceClient(api_key=sandbox.demo_key)
    store_sandbox_key(user, client, sandbox.demo_key)
    return client


def sent_twice(service: ServiceClient, key: str) -> errors.ApiError:
    """The first send (a record made) and the edited resend under its key:
    the real sandbox's refusal."""
    service.post("/v1/objects/deals/records", json={"values": {"name": "First send"}}, idempotency_key=key)
    with pytest.raises(errors.ApiError) as refused:
        service.post("/v1/objects/deals/records", json={"values": {"name": "Edited"}}, idempotency_key=key)
    return refused.value


def assert_said_in_words(text: str) -> None:
    text = re.sub(r"\s+([.,])", r"\1", text)  # text_of puts a space after the link
    assert SAID.removesuffix(".") in text
    assert not JARGON.search(text), text


@pytest.mark.parametrize("name", sorted(FORMS))
def test_each_write_form_sent_again_with_other_values_says_so_in_words(name, service, user):
    walk = FORMS[name]
    key = new_idempotency_key()
    refusal = sent_twice(service, key)
    assert isinstance(refusal, errors.ConflictError)
    form = walk.make(dict.fromkeys(walk.keys, key))
    form.is_valid()
    request = RequestFactory().post("/")
    request.user = user

    box = failed_write(request, form, refusal)

    assert box is None, "the refusal lands on the form, above its fields"
    said = " ".join(str(error) for error in form.non_field_errors())
    assert_said_in_words(said)
    if walk.keys == ("idempotency_key",):
        # A fresh key: "Send again" is a new write, which makes another.
        assert form.data[form.add_prefix("idempotency_key")] != key


# --- through the pages, Back included ----------------------------------------------


def the_form(response, selector: str):
    return one(response.content, selector)


def test_a_record_form_sent_back_edited_and_again_says_what_it_made_and_makes_another(service, logged_in_client):
    new = reverse("objects:record_new", args=["deals"])
    page = logged_in_client.get(new)
    form = one(page.content, "form#record-form")
    data = form_values(form)
    title = "name"  # the demo workspace's deals: a required text field "name"
    first = logged_in_client.post(new, {**data, title: "Acme renewal"})
    assert first.status_code == 302
    made_at = first["Location"]

    # Back: the same page, the same key; edited and sent again.
    again = logged_in_client.post(new, {**data, title: "Acme renewal, edited"})

    assert again.status_code == 200
    alert = one(one(again.content, "form#record-form"), ".error-summary")
    assert text_of(one(alert, ".alert-title")) == "Already sent"
    assert_said_in_words(text_of(alert))
    assert one(alert, "a")["href"] == made_at
    assert text_of(one(alert, "a")) == "a record"
    fresh = form_values(one(again.content, "form#record-form"))
    assert fresh["idempotency_key"] != data["idempotency_key"]
    assert not JARGON.search(text_of(parse(again.content).select_one("main")))

    # Send again: another record.
    another = logged_in_client.post(new, {**fresh, title: "Acme renewal, edited"})
    assert another.status_code == 302 and another["Location"] != made_at
    names = [r["values"].get("name") for r in service.paginate("/v1/objects/deals/records")]
    assert names.count("Acme renewal") == 1 and names.count("Acme renewal, edited") == 1


def test_the_words_never_carry_the_jargon_whatever_the_service_says(service, user):
    """Another implementation may word its refusal otherwise: details naming
    `Idempotency-Key`, or only a message. Same words."""
    for details in ({"Idempotency-Key": ["reused"]}, {}):
        refusal = errors.ConflictError(
            "Idempotency-Key reuse with a different payload", status=409, details=details, request_id="req_1"
        )
        form = _plain("agents.forms.RerunForm")({"idempotency_key": new_idempotency_key()})
        form.is_valid()
        failed_write(RequestFactory().post("/"), form, refusal)
        said = " ".join(str(error) for error in form.non_field_errors())
        assert "This form was already sent with other values and made what it asked for." in said
        assert "request id req_1" in said
        assert not JARGON.search(said.replace("request id req_1", ""))
