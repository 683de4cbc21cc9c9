"""Studio home and the conversation page against a mocked service (respx):
start a turn in background mode, read the conversation as a chat, answer the
director in one click, follow it live (database only), the artifact pane,
and every remote error in place."""

from __future__ import annotations

import json

import httpx
import pytest
from django.urls import reverse

from dashboard.api.testing import RemoteCallCounter
from dashboard.live.models import TrackedOperation
from tests.html import one, parse, select, text_of, textarea_value, texts
from tests.live.support import CONVERSATION_ID, OTHER_SECRET, TURN_ID, store_key, turn_body
from tests.studio.support import finish, form_key

NEXT_TURN_ID = "9a7b6c5d-0000-4000-8000-00000000beef"
SITE_ID = "5b0e1f4a-0000-4000-8000-000000000001"
DOC_ID = "5b0e1f4a-0000-4000-8000-000000000002"
BOARD_ID = "5b0e1f4a-0000-4000-8000-000000000003"
PROJECT_ID = "5b0e1f4a-0000-4000-8000-000000000004"


def start_form(client, **overrides) -> dict:
    page = client.get(reverse("studio:index")).content
    data = {"studio": "website", "message": "A landing page for our spring sale", "idempotency_key": form_key(page)}
    data.update(overrides)
    return data


def site(**extra) -> dict:
    return {"id": SITE_ID, "type": "website", "name": "Spring Sale", "url": "https://app.example/w/1", **extra}


# --- Studio home ----------------------------------------------------------------------


def test_home_shows_the_five_studios_with_what_they_make_and_their_limits(db, api_key, logged_in_client):
    first = logged_in_client.get(reverse("studio:index")).content
    second = logged_in_client.get(reverse("studio:index")).content
    cards = texts(first, ".studio-studios > li")
    assert [card.split(" ")[0] for card in cards] == ["Website", "Document", "App", "Image", "Video"]
    assert "3,800 characters" in cards[0] and "18,000 characters" in cards[1]
    limits = {o["value"]: o["data-max-length"] for o in select(first, "#turn-form select[name=studio] option")}
    assert limits == {"website": "3800", "document": "18000", "app": "18000", "image": "3800", "video": "3800"}
    assert form_key(first) != form_key(second)
    assert not select(first, '#turn-form input[name="conversation_id"]')  # nobody pastes an id
    assert b"svc_sk_" not in first


def test_starting_a_turn_sends_the_forms_key_and_opens_the_conversation(db, remote, api_key, logged_in_client):
    route = remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(202, json={"id": TURN_ID, "status": "building"}, headers={"X-Request-Id": "req_1"})
    )
    data = start_form(logged_in_client, auto="on")
    response = logged_in_client.post(reverse("studio:start"), data)
    again = logged_in_client.post(reverse("studio:start"), data)

    op = TrackedOperation.objects.get()
    assert response.status_code == 302 and response.url == again.url == reverse("studio:turn", args=[op.pk])
    assert json.loads(route.calls.last.request.content) == {
        "message": "A landing page for our spring sale",
        "auto": True,
        "stream": True,
    }
    assert {call.request.headers["Idempotency-Key"] for call in route.calls} == {data["idempotency_key"]}
    assert op.context["message"] == data["message"]


def test_without_progress_a_turn_starts_in_background_mode(db, remote, api_key, logged_in_client, settings):
    settings.STUDIO_TURN_PROGRESS = False
    route = remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(202, json={"id": TURN_ID, "status": "building"}, headers={"X-Request-Id": "req_1"})
    )
    logged_in_client.post(reverse("studio:start"), start_form(logged_in_client))
    assert json.loads(route.calls.last.request.content)["background"] is True
    op = TrackedOperation.objects.get()
    assert (op.remote_id, op.context["request_id"], op.context["events"]) == (TURN_ID, "req_1", [])


def test_a_message_over_the_studios_limit_is_refused_in_place_naming_the_limit(db, remote, api_key, logged_in_client):
    too_long = "x" * 3801
    data = start_form(logged_in_client, message=too_long)
    response = logged_in_client.post(reverse("studio:start"), data)
    assert response.status_code == 200
    assert texts(response.content, ".field-error") == [
        "Website messages can be at most 3,800 characters; this one has 3,801, 1 character over. Shorten it to send it."
    ]
    assert one(response.content, "#turn-form textarea[name=message]").text.lstrip("\n") == too_long
    assert form_key(response.content) == data["idempotency_key"]
    assert remote.calls.call_count == 0


@pytest.mark.parametrize(
    ("status", "body", "placed", "same_key"),
    [
        (
            400,
            {"error": {"type": "invalid_request", "message": "Invalid", "details": {"message": ["is blank"]}}},
            ".field-error",
            False,
        ),
        (402, {"error": {"type": "insufficient_credits", "message": "No credits"}}, ".remote-error", False),
        (503, {"error": {"type": "server_error", "message": "down"}}, ".remote-error", True),
    ],
)
def test_remote_errors_on_start_land_in_place_and_keep_what_was_typed(
    db, remote, api_key, logged_in_client, status, body, placed, same_key
):
    remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(status, json={**body, "request_id": f"req_{status}"})
    )
    data = start_form(logged_in_client)
    response = logged_in_client.post(reverse("studio:start"), data)
    assert response.status_code == 200
    assert f"req_{status}" in text_of(one(response.content, placed))
    assert one(response.content, "#turn-form textarea[name=message]").text.lstrip("\n") == data["message"]
    assert (form_key(response.content) == data["idempotency_key"]) is same_key
    assert TrackedOperation.objects.count() == 0
    if status == 402:
        assert "credits" in text_of(one(response.content, ".remote-error")).lower()


def test_home_lists_the_workspaces_conversations_by_anyone_with_their_artifact(
    db, make_turn, api_key, other_user, logged_in_client
):
    teammate_key = store_key(other_user, OTHER_SECRET, "Acme Marketing")
    mine = make_turn(due=False)
    finish(mine, "completed", artifact=site())
    reply = make_turn(remote_id=NEXT_TURN_ID, due=False, owner_key=teammate_key)
    finish(reply, "completed", message="Done")
    elsewhere = make_turn(
        remote_id="other-ws", due=False, owner_key=store_key(other_user, "svc_sk_" + "z" * 40, "Globex")
    )
    finish(elsewhere, "completed", conversation_id="c-elsewhere")

    page = logged_in_client.get(reverse("studio:index")).content
    rows = select(page, ".studio-conversations > li")
    assert len(rows) == 1  # two turns, one conversation; the other workspace is not listed
    assert "Spring Sale" in text_of(rows[0]) and "2 turns" in text_of(rows[0])
    assert one(rows[0], ".studio-conversation__title")["href"] == reverse("studio:turn", args=[reply.pk])


def test_an_item_picked_from_the_library_is_read_and_sent_as_the_artifact(db, remote, api_key, logged_in_client):
    remote.get(f"/v1/websites/{SITE_ID}").mock(
        return_value=httpx.Response(200, json={"id": SITE_ID, "name": "Acme Spring Launch", "status": "published"})
    )
    route = remote.post("/v1/studio/website/turns").mock(return_value=httpx.Response(202, json={"id": TURN_ID}))
    page = logged_in_client.get(reverse("studio:index"), {"studio": "website", "artifact_id": SITE_ID}).content
    assert text_of(one(page, "#start-turn-heading")) == "Work on Acme Spring Launch"
    assert one(page, '#turn-form input[name="artifact_id"]')["value"] == SITE_ID

    data = {
        "studio": "website",
        "artifact_id": SITE_ID,
        "message": "Add a pricing page",
        "idempotency_key": form_key(page),
    }
    assert logged_in_client.post(reverse("studio:start"), data).status_code == 302
    assert json.loads(route.calls.last.request.content)["artifact_id"] == SITE_ID


def test_a_bad_or_foreign_artifact_id_is_a_clear_message_never_a_500(db, remote, api_key, logged_in_client):
    remote.get(f"/v1/websites/{SITE_ID}").mock(
        return_value=httpx.Response(404, json={"error": {"type": "not_found", "message": "No website"}})
    )
    page = logged_in_client.get(reverse("studio:index"), {"studio": "website", "artifact_id": SITE_ID})
    assert page.status_code == 200
    assert "not in this workspace" in text_of(one(page.content, "#turn-form .alert-error"))
    assert not select(page.content, '#turn-form input[name="artifact_id"][value]')
    # Not an id at all: ignored, the form is a new conversation.
    junk = logged_in_client.get(reverse("studio:index"), {"artifact_id": "../../etc"})
    assert junk.status_code == 200 and text_of(one(junk.content, "#start-turn-heading")) == "Ask a studio director"


# --- the conversation -----------------------------------------------------------------


def test_the_conversation_shows_every_turn_in_order_as_a_chat_to_teammates_too(
    db, remote, make_turn, api_key, other_user, client
):
    remote.get(f"/v1/websites/{SITE_ID}").mock(
        return_value=httpx.Response(200, json={"id": SITE_ID, "name": "Spring Sale"})
    )
    first = make_turn(due=False)
    finish(
        first,
        "needs_input",
        message="A few questions first.",
        questions=[{"text": "Which style?", "options": ["Bold"]}],
    )
    TrackedOperation.objects.filter(pk=first.pk).update(context={"studio": "website", "message": "A website"})
    second = make_turn(remote_id=NEXT_TURN_ID, due=False)
    finish(second, "completed", message="Your website is built and live.", artifact=site())
    TrackedOperation.objects.filter(pk=second.pk).update(
        context={"studio": "website", "message": "Bold", "conversation_id": CONVERSATION_ID}
    )
    store_key(other_user, OTHER_SECRET, "Acme Marketing")  # a teammate: same workspace
    client.force_login(other_user)

    page = client.get(reverse("studio:turn", args=[first.pk])).content
    turns = select(page, ".chat > .chat-turn")
    assert [t["id"] for t in turns] == [f"turn-{first.pk}", f"turn-{second.pk}"]
    assert text_of(one(turns[0], ".chat-bubble--person .chat-text")) == "A website"
    assert "A few questions first." in text_of(one(turns[0], ".chat-bubble--director"))
    assert "Your website is built and live." in text_of(one(turns[1], ".chat-bubble--director"))
    # The questions of an answered turn are no longer buttons.
    assert not select(page, ".option-button")
    assert one(page, "#turn-form")["action"] == reverse("studio:reply", args=[second.pk])


def test_another_workspaces_conversation_is_404(db, make_turn, other_user, client):
    op = make_turn(due=False)
    store_key(other_user, OTHER_SECRET, "Globex Research")
    client.force_login(other_user)
    assert client.get(reverse("studio:turn", args=[op.pk])).status_code == 404
    assert client.get(reverse("studio:conversation_live", args=[op.pk])).status_code == 404
    assert client.post(reverse("studio:reply", args=[op.pk]), {"message": "hi"}).status_code == 404


def needs_input(op, **extra) -> None:
    finish(
        op,
        "needs_input",
        message="A few questions first.",
        questions=[{"text": "Which colour scheme?", "options": ["Bright", "Muted"]}, {"text": "Anything else?"}],
        **extra,
    )


def test_an_option_sends_in_one_click_in_the_same_conversation(db, remote, make_turn, logged_in_client):
    remote.get(f"/v1/websites/{SITE_ID}").mock(return_value=httpx.Response(200, json={"id": SITE_ID}))
    route = remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(202, json={"id": NEXT_TURN_ID, "status": "building"})
    )
    op = make_turn(due=False)
    needs_input(op, artifact=site())
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    forms = select(page, "form.studio-question")
    assert [text_of(one(form, "legend")) for form in forms] == ["Which colour scheme?", "Anything else?"]
    buttons = select(forms[0], "button.option-button")
    assert [(b["name"], b["value"]) for b in buttons] == [("message", "Bright"), ("message", "Muted")]
    key = one(forms[0], 'input[name="idempotency_key"]')["value"]

    click = {"message": "Muted", "idempotency_key": key}
    first = logged_in_client.post(forms[0]["action"], click)
    second = logged_in_client.post(forms[0]["action"], click)  # a double click is the same write

    reply_op = TrackedOperation.objects.get(remote_id=NEXT_TURN_ID)
    assert first.url == second.url == reverse("studio:turn", args=[reply_op.pk])
    sent = json.loads(route.calls.last.request.content)
    assert sent == {
        "message": "Muted",
        "auto": False,
        "stream": True,
        "conversation_id": CONVERSATION_ID,
        "artifact_id": SITE_ID,
    }
    assert {c.request.headers["Idempotency-Key"] for c in route.calls} == {key}
    assert reply_op.context["conversation_id"] == CONVERSATION_ID


def test_decide_for_me_sends_auto(db, remote, make_turn, logged_in_client):
    route = remote.post("/v1/studio/website/turns").mock(return_value=httpx.Response(202, json={"id": NEXT_TURN_ID}))
    op = make_turn(due=False)
    needs_input(op)
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    button = one(page, ".studio-quick button[value='Decide for me and make it now.']")
    form = button.find_parent("form")
    data = {i["name"]: i["value"] for i in select(form, "input[type=hidden]")} | {button["name"]: button["value"]}
    assert logged_in_client.post(form["action"], data).status_code == 302
    assert json.loads(route.calls.last.request.content)["auto"] is True


def test_an_outline_of_any_shape_is_shown_as_an_outline_with_approve(db, remote, make_turn, logged_in_client):
    route = remote.post("/v1/studio/website/turns").mock(return_value=httpx.Response(202, json={"id": NEXT_TURN_ID}))
    op = make_turn(due=False)
    outline = {
        "title": "Partnership proposal",
        "doc_type": "proposal",
        "sections": [{"heading": "Why us", "points": ["Reach", {"text": "Price"}]}, {"title": "Next steps"}],
    }
    needs_input(op, outline=outline)
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    assert text_of(one(page, ".studio-outline h3")) == "Proposed outline: Partnership proposal"
    assert texts(page, ".studio-outline > ol.outline > li > .outline-heading") == ["Why us", "Next steps"]
    assert texts(page, ".studio-outline ol ol .outline-heading") == ["Reach", "Price"]
    approve = one(page, ".studio-quick button.btn-primary")
    assert text_of(approve) == "Approve the outline"
    form = approve.find_parent("form")
    data = {i["name"]: i["value"] for i in select(form, "input[type=hidden]")} | {"message": approve["value"]}
    logged_in_client.post(form["action"], data)
    assert json.loads(route.calls.last.request.content)["message"] == "The outline is approved: write it."


def test_an_empty_or_over_long_message_is_refused_in_place(db, remote, make_turn, logged_in_client):
    op = make_turn(due=False)
    finish(op, "completed", message="Done")
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    # The limit is data for the counter, never a maxlength that would cut a paste (issue #21).
    assert one(page, "#composer-message")["data-max-length"] == "3800"
    assert not one(page, "#composer-message").has_attr("maxlength")
    empty = logged_in_client.post(reverse("studio:reply", args=[op.pk]), {"idempotency_key": form_key(page)})
    assert "Write a message" in text_of(one(empty.content, "#composer-message_error"))
    too_long = logged_in_client.post(
        reverse("studio:reply", args=[op.pk]), {"message": "y" * 3801, "idempotency_key": form_key(page)}
    )
    assert "at most 3,800 characters" in text_of(one(too_long.content, "#composer-message_error"))
    assert textarea_value(one(too_long.content, "#composer-message")) == "y" * 3801
    assert remote.calls.call_count == 0


def test_a_refused_reply_keeps_the_message_and_says_why(db, remote, make_turn, logged_in_client):
    remote.post("/v1/studio/website/turns").mock(
        return_value=httpx.Response(
            402, json={"error": {"type": "insufficient_credits", "message": "none"}, "request_id": "req_r402"}
        )
    )
    op = make_turn(due=False)
    finish(op, "completed", message="Done")
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    response = logged_in_client.post(
        reverse("studio:reply", args=[op.pk]), {"message": "Now add a blog", "idempotency_key": form_key(page)}
    )
    assert response.status_code == 200
    assert "req_r402" in text_of(one(response.content, "#turn-form .remote-error"))
    assert textarea_value(one(response.content, "#composer-message")) == "Now add a blog"


def test_building_shows_the_stage_and_a_failure_its_error_and_request_id(db, make_turn, logged_in_client):
    op = make_turn(due=False)
    TrackedOperation.objects.filter(pk=op.pk).update(
        snapshot=turn_body("building", job={"id": "j", "status": "queued", "stage": "generate", "error": None})
    )
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    assert "stage generate" in text_of(one(page, ".studio-progress"))
    assert one(page, "#studio-thread")["hx-trigger"] == "every 2s"

    finish(op, "failed", error={"type": "director_failed", "message": "It broke.", "request_id": "req_fail"})
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    failure = text_of(one(page, ".chat-bubble--director .alert-error"))
    assert "The turn failed." in failure and "It broke." in failure and "req_fail" in failure
    assert not one(page, "#studio-thread").get("hx-trigger")


def test_the_live_poll_reads_only_the_database(db, make_turn, logged_in_client, django_assert_max_num_queries):
    op = make_turn(due=False)
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    poll = one(page, "#studio-thread")["hx-get"]
    with RemoteCallCounter() as calls:
        with django_assert_max_num_queries(3):  # session, user, the shown turns
            unchanged = logged_in_client.get(poll, HTTP_HX_REQUEST="true")
        assert unchanged.status_code == 204 and unchanged.content == b""
        finish(op, "completed", message="Your website is built and live.", artifact=site())
        final = logged_in_client.get(poll, HTTP_HX_REQUEST="true")
    assert calls.count == 0
    assert final.status_code == 286
    assert "Your website is built and live." in text_of(one(final.content, "#studio-thread"))
    # The pane is asked for again (a separate request) now that there is something new.
    loader = one(final.content, "[hx-target='#artifact-pane']")
    assert loader["hx-get"] == reverse("studio:artifact_pane", args=[op.pk])


# --- the artifact pane ----------------------------------------------------------------


def test_a_documents_content_is_shown_readably_and_inert(db, remote, make_turn, logged_in_client):
    remote.get(f"/v1/documents/{DOC_ID}").mock(
        return_value=httpx.Response(
            200,
            json={
                "id": DOC_ID,
                "name": "Q3 proposal",
                "format": "markdown",
                "content": "# Q3 proposal\n\n- **Reach** more people\n\n<script>alert(1)</script>\n\n"
                "[click](javascript:alert(2)) <img src=x onerror=alert(3)>\n\n[site](https://acme.example)",
            },
        )
    )
    op = make_turn(due=False)
    finish(op, "completed", studio="document", artifact={"id": DOC_ID, "type": "document", "name": "Q3 proposal"})
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    doc = one(page, ".document-content")
    assert text_of(one(doc, "h1")) == "Q3 proposal" and text_of(one(doc, "li strong")) == "Reach"
    assert not select(doc, "script, img, [onerror]")
    assert [a.get("href") for a in select(doc, "a")] == ["https://acme.example"]  # never javascript:
    assert "noopener" in one(doc, "a[href]")["rel"]


def img_link(figure):
    """The link that wraps the picture (its full size)."""
    (picture,) = figure.select("a > img")
    return picture.parent


def test_an_image_board_is_a_gallery_with_dimensions_and_prompts(db, remote, make_turn, logged_in_client):
    remote.get("/v1/images/boards").mock(
        return_value=httpx.Response(200, json={"data": [{"id": BOARD_ID, "name": "Spring", "image_count": 1}]})
    )
    images = remote.get("/v1/images", params={"board_id": BOARD_ID}).mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    {
                        "id": "i1",
                        "url": "https://cdn.example/i1.png",
                        "width": 1024,
                        "height": 1280,
                        "prompt": "A red bike",
                    }
                ]
            },
        )
    )
    op = make_turn(due=False)
    finish(op, "completed", studio="image", artifact={"id": BOARD_ID, "type": "image", "name": "Spring"})
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    figure = one(page, "#artifact-pane .studio-gallery figure")
    assert one(figure, "img")["src"] == "https://cdn.example/i1.png" and one(figure, "img")["alt"] == "A red bike"
    assert "1024 × 1280" in text_of(one(figure, "figcaption"))
    assert img_link(figure)["href"] == "https://cdn.example/i1.png"  # enlarge
    # And its actions: the image's own page (Content Apps that take it, download, favourite).
    assert one(figure, "figcaption a")["href"] == reverse("studio:library_item", args=["images", "i1"])
    assert images.called


def test_a_video_projects_pending_request_opens_its_content_app_prefilled(db, remote, make_turn, logged_in_client):
    remote.get("/v1/videos").mock(
        return_value=httpx.Response(200, json={"data": [{"id": PROJECT_ID, "name": "Launch", "shots": []}]})
    )
    op = make_turn(due=False)
    finish(
        op,
        "completed",
        studio="video",
        artifact={"id": PROJECT_ID, "type": "video", "name": "Launch"},
        video={
            "operations_applied": 2,
            "operations_skipped": [{"operation": "trim", "reason": "The project has no shots yet."}],
            "pending_requests": [
                {"app": "generate", "label": "Film an AI shot", "prompt": "A drone shot of the shop"},
                {"app": None, "kind": "captions", "label": "Add captions"},
            ],
        },
    )
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    ops = one(page, ".studio-video-ops")
    assert "Edits applied: 2" in text_of(ops) and "Trim: The project has no shots yet." in text_of(ops)
    rows = select(ops, ".studio-pending > li")
    link = one(rows[0], "a")
    assert link["href"].startswith(reverse("studio:app", args=["video", "generate"]) + f"?project_id={PROJECT_ID}")
    assert "prompt=A%20drone%20shot" in link["href"]
    assert "Not available through the console" in text_of(rows[1])


def test_a_pane_read_that_fails_is_a_message_in_the_pane_and_the_chat_stands(db, remote, make_turn, logged_in_client):
    remote.get(f"/v1/websites/{SITE_ID}").mock(
        return_value=httpx.Response(
            500, json={"error": {"type": "server_error", "message": "x"}, "request_id": "req_p"}
        )
    )
    op = make_turn(due=False)
    finish(op, "completed", message="Built.", artifact=site(public_url="https://spring.example"))
    response = logged_in_client.get(reverse("studio:turn", args=[op.pk]))
    assert response.status_code == 200
    assert "req_p" in text_of(one(response.content, "#artifact-pane .remote-error"))
    assert one(response.content, "#artifact-pane a[href='https://spring.example']")
    assert "Built." in text_of(one(response.content, ".chat"))

    remote.get(f"/v1/websites/{SITE_ID}").mock(
        return_value=httpx.Response(
            200, json={"id": SITE_ID, "name": "Spring Sale", "build": {"status": "succeeded", "stage": "complete"}}
        )
    )
    pane = logged_in_client.get(reverse("studio:artifact_pane", args=[op.pk]), HTTP_HX_REQUEST="true")
    assert text_of(one(pane.content, "[data-build-status]")) == "Succeeded · stage complete"
    assert parse(pane.content).find("html") is None  # only the pane


def test_an_artifact_the_service_no_longer_has_is_said_in_the_pane(db, remote, make_turn, logged_in_client):
    remote.get(f"/v1/websites/{SITE_ID}").mock(
        return_value=httpx.Response(404, json={"error": {"type": "not_found", "message": "gone"}})
    )
    op = make_turn(due=False)
    finish(op, "completed", artifact=site())
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk]))
    assert page.status_code == 200
    assert "no longer has this website" in text_of(one(page.content, "#artifact-pane .alert-warning"))


def test_a_read_only_member_sees_the_conversation_without_write_buttons(
    db, remote, make_turn, api_key, logged_in_client
):
    api_key.member_role = "viewer"
    api_key.save()
    op = make_turn(due=False)
    needs_input(op)
    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content
    assert "Which colour scheme?" in text_of(one(page, ".chat"))
    assert not select(page, "form.studio-question, .studio-quick, #turn-form")
