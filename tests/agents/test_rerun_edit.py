"""Rerun with changes, against the real sandbox: the edit form is prefilled
with what woke the run; a first submit shows what changes (by words, the
event by the JSON diff) and sends nothing; an input changed after its
review is reviewed again; the review's Send makes one new run with the
edited input, one on a double submit; bad JSON is refused in place with
everything typed kept."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from agents.rerun_input import input_changes
from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from dashboard.live.models import TrackedOperation
from dashboard.web.word_diff import word_changes
from tests.html import one, parse, select, text_of, textarea_value

pytestmark = pytest.mark.django_db

CHAT_BRIEF = "Answer questions about our products and pricing in chat"
MESSAGE = "Summarise the deals closed in March for the board"


@pytest.fixture
def run(sandbox, settings, user, logged_in_client):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    store_sandbox_key(user, service, sandbox.demo_key)
    agent = service.post("/v1/agents", json={"message": CHAT_BRIEF})["agent"]
    answer = service.post(f"/v1/agents/{agent['id']}/runs", json={"message": MESSAGE, "payload": {"month": 3}})
    return {"id": answer["run_id"], "agent_id": agent["id"], "service": service}


def _key(page) -> str:
    return one(page, "#rerun-edit input[name=idempotency_key]")["value"]


def test_review_shows_the_changed_words_then_send_makes_one_new_run(run, logged_in_client):
    page = parse(logged_in_client.get(reverse("agents:run_rerun_edit", args=[run["id"]])).content)
    assert textarea_value(one(page, "textarea[name=message]")) == MESSAGE
    assert json.loads(textarea_value(one(page, "textarea[name=payload]"))) == {"month": 3}
    edited = {"message": MESSAGE.replace("March", "April"), "payload": '{"month": 4}', "idempotency_key": _key(page)}
    address = reverse("agents:run_rerun_edited", args=[run["id"]])

    review = parse(logged_in_client.post(address, edited, HTTP_HX_REQUEST="true").content)
    assert [text_of(tag) for tag in select(review, ".rerun-words del")] == ["March"]
    assert [text_of(tag) for tag in select(review, ".rerun-words ins")] == ["April"]
    assert [text_of(tag) for tag in select(review, ".json-diff li")] == ["“month” changed from 3 to 4"]
    assert not TrackedOperation.objects.exists()  # the review sent nothing
    send = one(review, "button[name=reviewed]")

    # Changed again after the review: the Send of that review only reviews again.
    stale = {**edited, "message": MESSAGE.replace("March", "May"), "reviewed": send["value"]}
    again = parse(logged_in_client.post(address, stale, HTTP_HX_REQUEST="true").content)
    assert "changed after the last review" in text_of(one(again, ".rerun-review"))
    assert not TrackedOperation.objects.exists()

    sent = logged_in_client.post(address, {**edited, "reviewed": send["value"]}, HTTP_HX_REQUEST="true")
    assert sent.status_code in (200, 204) and sent.headers.get("HX-Redirect", "").startswith(
        reverse("agents:chat", args=[run["agent_id"]])
    )
    logged_in_client.post(address, {**edited, "reviewed": send["value"]}, HTTP_HX_REQUEST="true")  # a double Send
    op = TrackedOperation.objects.get()
    body = json.loads(op.context["body_json"])
    assert body["message"] == MESSAGE.replace("March", "April") and body["payload"] == {"month": 4}
    assert op.remote_id == edited["idempotency_key"]


def test_bad_json_is_refused_in_place_and_the_typed_message_is_kept(run, logged_in_client):
    page = parse(logged_in_client.get(reverse("agents:run_rerun_edit", args=[run["id"]])).content)
    typed = {"message": "A new message typed by hand", "payload": '{"month": 4,', "idempotency_key": _key(page)}
    response = logged_in_client.post(
        reverse("agents:run_rerun_edited", args=[run["id"]]), typed, HTTP_HX_REQUEST="true"
    )
    form = parse(response.content)
    assert textarea_value(one(form, "textarea[name=message]")) == typed["message"]
    assert textarea_value(one(form, "textarea[name=payload]")) == typed["payload"]
    assert "not valid JSON" in text_of(one(form, "#id_payload_error"))
    assert not select(form, "button[name=reviewed]") and not TrackedOperation.objects.exists()


def test_the_words_of_a_change():
    pieces = word_changes("Send the report on Friday", "Send the short report on Monday")
    assert [(p.kind, p.text) for p in pieces if p.kind != "same"] == [
        ("added", "short "),
        ("removed", "Friday"),
        ("added", "Monday"),
    ]
    same = input_changes(message_before="Hi", payload_before=None, message_after="Hi", payload_after=None)
    assert same.same and not same.empty
    emptied = input_changes(message_before="Hi", payload_before=None, message_after="", payload_after=None)
    assert emptied.message_changed and emptied.empty
