"""The Studio page: start a turn in background mode, follow it, answer its questions."""

from __future__ import annotations

import json
import re

import httpx
from django.urls import reverse

from dashboard.live.models import TrackedOperation
from tests.live.support import CONVERSATION_ID, TURN_ID, turn_body

NEXT_TURN_ID = "9a7b6c5d-0000-4000-8000-00000000beef"


def form_key(html: str) -> str:
    match = re.search(r'name="idempotency_key" value="([^"]+)"', html)
    assert match, "the form carries an idempotency key"
    return match.group(1)


def start_form(client, **overrides) -> dict:
    page = client.get(reverse("studio:index")).content.decode()
    data = {"studio": "website", "message": "A landing page for our spring sale", "idempotency_key": form_key(page)}
    data.update(overrides)
    return data


def test_the_studio_page_offers_the_five_studios_and_a_fresh_idempotency_key(db, api_key, logged_in_client):
    first = logged_in_client.get(reverse("studio:index")).content.decode()
    second = logged_in_client.get(reverse("studio:index")).content.decode()
    for studio, limit in [("website", 3800), ("document", 18000), ("app", 18000), ("image", 3800), ("video", 3800)]:
        assert re.search(rf'<option value="{studio}"[^>]* data-max-length="{limit}"', first)
    assert form_key(first) != form_key(second)
    assert "svc_sk_" not in first


def test_starting_a_turn_sends_background_with_the_forms_idempotency_key(db, remote, api_key, logged_in_client):
    route = remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(202, json={"id": TURN_ID, "status": "building"}, headers={"X-Request-Id": "req_1"})
    )
    data = start_form(logged_in_client, auto="on", conversation_id=CONVERSATION_ID)

    response = logged_in_client.post(reverse("studio:start"), data)

    op = TrackedOperation.objects.get()
    assert response.status_code == 302 and response.url == reverse("studio:turn", args=[op.pk])
    sent = route.calls.last.request
    assert sent.headers["Idempotency-Key"] == data["idempotency_key"]
    assert json.loads(sent.content) == {
        "message": "A landing page for our spring sale",
        "auto": True,
        "background": True,
        "conversation_id": CONVERSATION_ID,
    }
    assert (op.kind, op.remote_id, op.owner_key, op.is_final) == ("studio.turn", TURN_ID, api_key, False)
    assert op.title == "A landing page for our spring sale"
    assert op.next_poll_at is not None


def test_posting_the_same_form_twice_makes_one_turn_and_one_row(db, remote, api_key, logged_in_client):
    route = remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(202, json={"id": TURN_ID, "status": "building"})
    )
    data = start_form(logged_in_client)

    first = logged_in_client.post(reverse("studio:start"), data)
    second = logged_in_client.post(reverse("studio:start"), data)

    assert first.url == second.url
    assert TrackedOperation.objects.count() == 1
    keys = {call.request.headers["Idempotency-Key"] for call in route.calls}
    assert route.call_count == 2 and keys == {data["idempotency_key"]}


def test_a_message_too_long_for_the_studio_is_refused_in_place_and_nothing_is_lost(
    db, remote, api_key, logged_in_client
):
    too_long = "x" * 3801
    data = start_form(logged_in_client, message=too_long, artifact_id="not-a-uuid")
    response = logged_in_client.post(reverse("studio:start"), data)
    body = response.content.decode()
    assert response.status_code == 200
    assert "Website messages can be at most 3,800 characters" in body
    assert too_long in body and "not-a-uuid" in body
    assert form_key(body) == data["idempotency_key"]
    assert remote.calls.call_count == 0
    # The same length is fine for a document.
    remote.post("/v1/studio/document/turns").mock(return_value=httpx.Response(202, json={"id": TURN_ID}))
    ok = logged_in_client.post(reverse("studio:start"), {**data, "studio": "document", "artifact_id": ""})
    assert ok.status_code == 302


def test_a_refusal_from_the_service_lands_on_the_field_with_a_new_key(db, remote, api_key, logged_in_client):
    remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(
            400,
            json={
                "error": {
                    "type": "invalid_request",
                    "message": "Invalid body",
                    "details": {"message": ["is empty after trimming"]},
                },
                "request_id": "req_bad_1",
            },
        )
    )
    data = start_form(logged_in_client)
    response = logged_in_client.post(reverse("studio:start"), data)
    body = response.content.decode()
    assert response.status_code == 200
    assert "is empty after trimming" in body and "req_bad_1" in body
    assert form_key(body) != data["idempotency_key"]
    assert data["message"] in body
    assert TrackedOperation.objects.count() == 0


def test_the_index_lists_my_recent_turns_live_and_not_other_peoples(
    db, make_turn, other_api_key, other_user, logged_in_client
):
    mine = make_turn(due=False)
    theirs = make_turn(remote_id="their-turn", owner_key=other_api_key, due=False)
    body = logged_in_client.get(reverse("studio:index")).content.decode()
    assert f'id="live-row-{mine.pk}"' in body
    assert reverse("live:status", args=[mine.pk]) + "?view=row" in body
    assert f'id="live-row-{theirs.pk}"' not in body


def test_the_index_lists_the_turns_of_the_workspace_i_am_working_in(db, make_turn, api_key, user, logged_in_client):
    from tests.live.support import store_key

    here = make_turn(due=False)
    api_key.is_active = False
    api_key.save()
    elsewhere_key = store_key(user, "svc_sk_elsewhere0123456789abcdefghijklmnopqrstu", "Globex Research")
    elsewhere = make_turn(remote_id="turn-elsewhere", owner_key=elsewhere_key, due=False)

    body = logged_in_client.get(reverse("studio:index")).content.decode()
    assert f'id="live-row-{elsewhere.pk}"' in body and f'id="live-row-{here.pk}"' not in body
    everything = logged_in_client.get(reverse("live:index")).content.decode()
    assert f'id="live-row-{elsewhere.pk}"' in everything and f'id="live-row-{here.pk}"' in everything
    assert "Globex Research" in everything and "Acme Marketing" in everything


def finish(op, status: str, **snapshot) -> None:
    """Mark the tracked turn final in `status`, its snapshot a turn body with `snapshot`."""
    TrackedOperation.objects.filter(pk=op.pk).update(
        status=status, is_final=True, snapshot=turn_body(status, **snapshot)
    )


def test_a_completed_website_turn_shows_the_director_artifact_and_links(db, make_turn, logged_in_client):
    op = make_turn(due=False)
    finish(
        op,
        "completed",
        message="Your spring sale site is ready.",
        job={"id": "j1", "status": "succeeded", "stage": "complete", "error": None},
        artifact={
            "id": "a1",
            "type": "website",
            "name": "Spring Sale",
            "url": "https://app.example/websites/a1",
            "public_url": "https://spring.example.site",
        },
        brand_new_member={"shape": "unknown"},
    )
    body = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content.decode()
    assert "Your spring sale site is ready." in body
    assert "Spring Sale" in body and "https://app.example/websites/a1" in body and "https://spring.example.site" in body
    assert "stage complete" in body
    assert "brand new member" in body  # an unknown member still shows, as generic JSON
    assert 'hx-trigger="every 2s"' not in body


def test_an_image_turn_shows_thumbnails_and_a_failed_turn_its_error(db, make_turn, logged_in_client):
    op = make_turn(due=False)
    finish(
        op,
        "completed",
        studio="image",
        images=[
            {"id": "i1", "url": "https://cdn.example/i1.png", "prompt": "A red bicycle", "width": 800, "height": 1000}
        ],
    )
    body = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content.decode()
    assert '<img src="https://cdn.example/i1.png" alt="A red bicycle"' in body

    TrackedOperation.objects.filter(pk=op.pk).update(
        status="failed", snapshot=turn_body("failed", error={"message": "The director could not reach the builder."})
    )
    body = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content.decode()
    assert "The turn failed." in body and "could not reach the builder" in body


def needs_input(op) -> None:
    finish(
        op,
        "needs_input",
        message="A few questions first.",
        questions=[{"text": "Which colour scheme?", "options": ["Bright", "Muted"]}, {"text": "Anything else?"}],
    )


def test_a_turn_that_needs_input_can_be_answered_in_the_same_conversation(db, remote, make_turn, logged_in_client):
    route = remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(202, json={"id": NEXT_TURN_ID, "status": "building"})
    )
    op = make_turn(due=False)
    needs_input(op)
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content.decode()
    assert "Which colour scheme?" in page and "Bright" in page and "Muted" in page
    assert reverse("studio:reply", args=[op.pk]) in page
    key = form_key(page)

    data = {"answer_0": "Muted", "message": "Use our logo colours.", "idempotency_key": key}
    first = logged_in_client.post(reverse("studio:reply", args=[op.pk]), data)
    second = logged_in_client.post(reverse("studio:reply", args=[op.pk]), data)

    reply_op = TrackedOperation.objects.get(remote_id=NEXT_TURN_ID)
    assert first.url == second.url == reverse("studio:turn", args=[reply_op.pk])
    assert TrackedOperation.objects.count() == 2
    sent = json.loads(route.calls.last.request.content)
    assert sent["conversation_id"] == CONVERSATION_ID and sent["background"] is True
    assert sent["message"] == "Which colour scheme?\nMuted\n\nUse our logo colours."
    assert {c.request.headers["Idempotency-Key"] for c in route.calls} == {key}


def test_an_empty_reply_is_refused_in_place(db, remote, make_turn, logged_in_client):
    op = make_turn(due=False)
    needs_input(op)
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content.decode()
    response = logged_in_client.post(reverse("studio:reply", args=[op.pk]), {"idempotency_key": form_key(page)})
    assert response.status_code == 200
    assert "Pick an answer or write a reply." in response.content.decode()
    assert remote.calls.call_count == 0


def test_another_users_turn_is_404(db, make_turn, other_user, client):
    op = make_turn(due=False)
    client.force_login(other_user)
    assert client.get(reverse("studio:turn", args=[op.pk])).status_code == 404
    assert client.post(reverse("studio:reply", args=[op.pk]), {"message": "hi"}).status_code == 404


def test_starting_a_turn_without_a_key_sends_you_to_the_key_settings(db, remote, logged_in_client):
    page = logged_in_client.get(reverse("studio:index")).content.decode()
    assert "Add an API key" in page and reverse("keys:add") in page
    data = start_form(logged_in_client)
    response = logged_in_client.post(reverse("studio:start"), data)
    assert response.status_code == 302 and response.url.startswith(reverse("keys:list"))
    assert remote.calls.call_count == 0


def test_out_of_credits_is_shown_above_the_form_with_the_request_id_and_nothing_typed_is_lost(
    db, remote, api_key, logged_in_client
):
    remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(
            402,
            json={"error": {"type": "insufficient_credits", "message": "No credits left"}, "request_id": "req_402"},
        )
    )
    data = start_form(logged_in_client)
    response = logged_in_client.post(reverse("studio:start"), data)
    body = response.content.decode()
    assert response.status_code == 200
    assert "credits" in body.lower() and "req_402" in body
    assert data["message"] in body
    # A refused write is over: sending the form again is a new write.
    assert form_key(body) != data["idempotency_key"]
    assert TrackedOperation.objects.count() == 0
    assert "Traceback" not in body and "svc_sk_" not in body


def test_an_unreachable_service_keeps_the_key_so_sending_again_is_the_same_write(db, remote, api_key, logged_in_client):
    down = httpx.Response(503, json={"error": {"type": "server_error", "message": "down"}, "request_id": "req_503"})
    route = remote.post("/v1/studio/website/turns").mock(
        # The transport's first attempt and both of its retries fail, then the service is back.
        side_effect=[down, down, down, httpx.Response(202, json={"id": TURN_ID, "status": "building"})]
    )
    data = start_form(logged_in_client)
    failed = logged_in_client.post(reverse("studio:start"), data).content.decode()
    assert "req_503" in failed and form_key(failed) == data["idempotency_key"]

    again = logged_in_client.post(reverse("studio:start"), {**data, "idempotency_key": form_key(failed)})
    assert again.status_code == 302
    assert [c.request.headers["Idempotency-Key"] for c in route.calls] == [data["idempotency_key"]] * 4
    assert TrackedOperation.objects.count() == 1


def test_a_finished_turn_offers_to_continue_its_conversation(db, make_turn, logged_in_client):
    op = make_turn(due=False)
    finish(op, "completed", artifact={"id": "5b0e1f4a-0000-4000-8000-000000000001", "name": "Site"})
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content.decode()
    link = re.search(r'href="([^"]+)">Continue this conversation', page).group(1).replace("&amp;", "&")
    form = logged_in_client.get(link).content.decode()
    assert f'value="{CONVERSATION_ID}"' in form
    assert 'value="5b0e1f4a-0000-4000-8000-000000000001"' in form
    assert re.search(r'<option value="website"[^>]* selected', form)
