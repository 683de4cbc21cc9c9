"""Studio turns against a real sandbox over HTTP: every trigger reaches its
state, websites build over (scaled) time, SSE framing, background polling,
idempotent replay, credits and read-only keys.

Tests that need work to finish move the sandbox's clock on past it
(`sandbox.advance`) and read once, instead of polling while real time passes."""

from __future__ import annotations

import httpx
import pytest

from sandbox.images import png_size
from sandbox.studio import DIRECTOR_SECONDS, WEBSITE_BUILD_SECONDS, WEBSITE_REBUILD_SECONDS
from tests.sandbox.support import read_events

WEBSITE_BRIEF = "A website for our bakery in Berlin with opening hours and a contact form"


# Simulated seconds until a new website is built: the director answers, then the build runs.
WEBSITE_DONE = DIRECTOR_SECONDS["website"] + WEBSITE_BUILD_SECONDS


def turn_after(api: httpx.Client, sandbox, turn_id: str, *, service_seconds: float) -> dict:
    """GET /v1/turns/{id} once, after moving the sandbox's clock on by
    `service_seconds` of simulated time: the work is skipped, not waited for."""
    sandbox.advance(service_seconds=service_seconds)
    return api.get(f"/v1/turns/{turn_id}").json()


def turn(api: httpx.Client, studio: str, **body) -> httpx.Response:
    return api.post(f"/v1/studio/{studio}/turns", json=body)


def test_a_clear_website_brief_builds_then_completes_with_a_public_url(api, sandbox):
    response = turn(api, "website", message=WEBSITE_BRIEF)
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "studio.turn" and body["studio"] == "website"
    assert body["status"] == "building"
    assert body["job"]["status"] == "queued" and body["job"]["stage"] == "generate" and body["job"]["error"] is None
    artifact = body["artifact"]
    assert artifact["type"] == "website" and artifact["public_url"] is None
    assert artifact["url"].startswith(api.base_url.__str__().rstrip("/") + "/app/")

    # Read once before the clock moves (the build has only just begun), then
    # once after the director and the whole build.
    building = api.get(f"/v1/turns/{body['id']}").json()
    final = turn_after(api, sandbox, body["id"], service_seconds=WEBSITE_DONE)
    assert building["status"] == "building"
    assert final["status"] == "completed"
    assert final["job"] == {**final["job"], "status": "succeeded", "stage": "complete", "error": None}
    assert final["artifact"]["public_url"]
    site = api.get(f"/v1/websites/{artifact['id']}").json()
    assert site["status"] == "published" and site["build"]["status"] == "succeeded"


def test_a_short_message_asks_questions_and_a_reply_in_the_conversation_proceeds(api):
    first = turn(api, "website", message="A site please").json()
    assert first["status"] == "needs_input"
    assert first["artifact"] is None  # the site does not exist before the questions are answered
    assert first["questions"] and all(q["text"] and q["options"] for q in first["questions"])

    reply = turn(api, "website", message="Bold", conversation_id=first["conversation_id"]).json()
    assert reply["conversation_id"] == first["conversation_id"]
    assert reply["status"] == "building" and reply["artifact"]["type"] == "website"


def test_auto_skips_the_questions_even_for_a_short_message(api):
    body = turn(api, "app", message="CRM", auto=True).json()
    assert body["status"] == "completed"
    assert body["artifact"]["type"] == "app"
    assert api.get(f"/v1/apps/{body['artifact']['id']}").json()["status"] == "live"


def test_a_short_document_brief_proposes_an_outline_and_any_go_ahead_writes_it(api):
    first = turn(api, "document", message="A sales deck").json()
    assert first["status"] == "needs_input"
    assert [s["heading"] for s in first["outline"]["sections"]][:2] == ["Title", "Problem"]

    second = turn(api, "document", message="Yes", conversation_id=first["conversation_id"]).json()
    assert second["status"] == "completed"
    document = api.get(f"/v1/documents/{second['artifact']['id']}").json()
    assert document["doc_type"] == "deck"
    assert "## Problem" in document["content"]


def test_a_question_is_answered_directly_without_touching_the_artifact(api):
    made = turn(api, "document", message="Write a one-pager about our spring collection for retailers").json()
    before = api.get(f"/v1/documents/{made['artifact']['id']}").json()

    answer = turn(api, "document", message="Can you make it shorter?", artifact_id=made["artifact"]["id"]).json()
    assert answer["status"] == "completed"
    assert answer["artifact"]["id"] == made["artifact"]["id"]
    after = api.get(f"/v1/documents/{made['artifact']['id']}").json()
    assert after["content"] == before["content"] and after["revision"] == before["revision"]


def test_a_message_containing_fail_ends_failed_with_an_error(api):
    body = turn(api, "image", message="Make this fail on purpose, a long enough brief").json()
    assert body["status"] == "failed"
    assert body["error"]["message"]
    assert api.get(f"/v1/turns/{body['id']}").json()["status"] == "failed"


def test_image_turn_answers_images_of_the_requested_count_and_aspect_on_a_board(api):
    body = turn(api, "image", message="Three images of a red fox in the snow, 16:9").json()
    assert body["status"] == "completed" and body["artifact"]["type"] == "image"
    assert len(body["images"]) == 3
    for image in body["images"]:
        assert (image["width"], image["height"]) == (1280, 720)
        assert image["board_id"] == body["artifact"]["id"]
        picture = httpx.get(image["url"])
        assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
        assert png_size(picture.content) == (1280, 720)
    on_board = api.get("/v1/images", params={"board_id": body["artifact"]["id"]}).json()["data"]
    assert {i["id"] for i in on_board} == {i["id"] for i in body["images"]}


def test_video_turn_applies_edits_and_returns_paid_actions_as_pending_requests(api):
    body = turn(api, "video", message="Add a title card, add music and film a new shot of the shop").json()
    assert body["status"] == "completed" and body["artifact"]["type"] == "video"
    assert body["video"]["operations_applied"] == 2
    assert [r["kind"] for r in body["video"]["pending_requests"]] == ["generate"]
    trim = turn(api, "video", message="Trim the first clip by two seconds", artifact_id=body["artifact"]["id"]).json()
    assert trim["video"]["operations_applied"] == 0
    assert trim["video"]["operations_skipped"][0]["operation"] == "trim"


def test_artifact_of_another_studio_and_unknown_conversation_are_404(api):
    site = turn(api, "website", message=WEBSITE_BRIEF).json()
    wrong = turn(api, "document", message="Revise this please, add a pricing table", artifact_id=site["artifact"]["id"])
    assert wrong.status_code == 404 and wrong.json()["error"]["type"] == "not_found"
    unknown = turn(api, "website", message=WEBSITE_BRIEF, conversation_id="00000000-0000-4000-8000-000000000000")
    assert unknown.status_code == 404


@pytest.mark.parametrize(
    "studio,limit", [("website", 3800), ("image", 3800), ("video", 3800), ("document", 18000), ("app", 18000)]
)
def test_message_length_limits_per_studio(api, studio, limit):
    too_long = turn(api, studio, message="x" * (limit + 1))
    assert too_long.status_code == 400
    assert "message" in too_long.json()["error"]["details"]
    assert turn(api, studio, message="").status_code == 400


def test_stream_sends_turn_plan_status_then_result(api):
    with api.stream(
        "POST",
        "/v1/studio/document/turns",
        json={"message": "Write a report on our Q3 newsletter results", "stream": True},
    ) as response:
        assert response.status_code == 200
        events = read_events(response)
    steps = events[1][1]["steps"]
    # One status per step as the director reaches it, then the final one.
    assert [name for name, _ in events] == ["turn", "plan", *["status"] * len(steps), "result"]
    assert [data["message"] for _, data in events[2 : 1 + len(steps)]] == steps[:-1]
    result = events[-1][1]
    assert result["id"] == events[0][1]["id"] and result["status"] == "completed"
    assert api.get(f"/v1/turns/{result['id']}").json()["status"] == "completed"


def test_stream_of_a_failing_turn_ends_with_an_error_event_carrying_the_request_id(api):
    with api.stream(
        "POST",
        "/v1/studio/app/turns",
        json={"message": "This one will fail, sorry", "stream": True},
        headers={"X-Request-Id": "req-stream-fail-1"},
    ) as response:
        events = read_events(response)
    assert [name for name, _ in events] == ["turn", "plan", "status", "status", "error"]
    assert events[-1][1]["request_id"] == "req-stream-fail-1" and events[-1][1]["message"]


def test_stream_status_events_arrive_as_the_work_advances(api, sandbox):
    """The first events come before the director's time has passed: a client
    reading the stream sees the work advance, not everything at the end."""
    from sandbox.studio import DIRECTOR_SECONDS

    started = sandbox.clock.now()
    with api.stream(
        "POST", "/v1/studio/document/turns", json={"message": "Write a report on our Q3 newsletter", "stream": True}
    ) as response:
        arrivals = [
            (line[len("event: ") :], sandbox.clock.now())
            for line in response.iter_lines()
            if line.startswith("event: ")
        ]
    director = sandbox.clock.real_seconds(DIRECTOR_SECONDS["document"])
    first_status = next(at for name, at in arrivals if name == "status")
    # Ordered on the sandbox's clock, not against a wall-clock budget (a loaded
    # machine delays the first event too): progress comes before the end, and
    # the end only once the director's time has passed.
    assert first_status < arrivals[-1][1]
    assert (arrivals[-1][1] - started).total_seconds() >= director


def test_background_answers_202_at_once_and_the_turn_is_polled_to_completion(api, sandbox):
    response = turn(api, "app", message="Build an app to track event sign-ups per company", background=True)
    assert response.status_code == 202
    body = response.json()
    assert body["id"] and body["status"] == "building"
    # An app is made as soon as the director has answered.
    final = turn_after(api, sandbox, body["id"], service_seconds=DIRECTOR_SECONDS["app"])
    assert final["status"] == "completed" and final["artifact"]["type"] == "app"


def test_same_idempotency_key_replays_the_turn_and_makes_one_website(fresh_api):
    before = len(fresh_api.get("/v1/websites", params={"limit": 100}).json()["data"])
    headers = {"Idempotency-Key": "website-turn-once"}
    first = fresh_api.post("/v1/studio/website/turns", json={"message": WEBSITE_BRIEF}, headers=headers)
    second = fresh_api.post("/v1/studio/website/turns", json={"message": WEBSITE_BRIEF}, headers=headers)
    assert first.status_code == second.status_code == 200
    assert second.json()["id"] == first.json()["id"]
    assert second.headers["idempotent-replayed"] == "true"
    assert len(fresh_api.get("/v1/websites", params={"limit": 100}).json()["data"]) == before + 1


def test_out_of_credits_is_402_and_read_only_is_403(client_for):
    poor = client_for("no_credits").post("/v1/studio/website/turns", json={"message": WEBSITE_BRIEF})
    assert poor.status_code == 402 and poor.json()["error"]["type"] == "insufficient_credits"
    viewer = client_for("readonly").post("/v1/studio/image/turns", json={"message": "A fox in the snow at dusk"})
    assert viewer.status_code == 403 and viewer.json()["error"]["type"] == "permission"


def test_turns_charge_credits(fresh_sandbox, fresh_api):
    from sandbox.seed import DEMO_WORKSPACE_ID

    def credits() -> float:
        return fresh_sandbox.store.get("workspace", DEMO_WORKSPACE_ID)["credits"]

    before = credits()
    turn(fresh_api, "image", message="Two images of a lighthouse at night, 1:1")
    assert credits() == before - 2  # one credit per image made


def test_turn_of_another_workspace_is_404(api, client_for):
    body = turn(api, "document", message="Write an invoice for 3 hours of design work at 90 EUR").json()
    assert client_for("other_workspace").get(f"/v1/turns/{body['id']}").status_code == 404


def test_a_website_edit_rebuilds_and_keeps_the_site_public(api, sandbox):
    made = turn(api, "website", message=WEBSITE_BRIEF).json()
    built = turn_after(api, sandbox, made["id"], service_seconds=WEBSITE_DONE)
    assert built["status"] == "completed"
    public_url = built["artifact"]["public_url"]

    edit = turn(api, "website", message="Make the header green and add a menu page", artifact_id=made["artifact"]["id"])
    body = edit.json()
    assert body["status"] == "building" and body["artifact"]["id"] == made["artifact"]["id"]
    assert body["job"]["id"] != built["job"]["id"]
    assert body["artifact"]["public_url"] == public_url  # the live site stays up while it rebuilds
    assert api.get(f"/v1/websites/{made['artifact']['id']}").json()["status"] == "building"
    final = turn_after(api, sandbox, body["id"], service_seconds=DIRECTOR_SECONDS["website"] + WEBSITE_REBUILD_SECONDS)
    assert final["status"] == "completed" and final["job"]["status"] == "succeeded"
    assert api.get(f"/v1/websites/{made['artifact']['id']}").json()["status"] == "published"


def test_an_image_turn_on_a_board_adds_to_that_board(api):
    board = turn(api, "image", message="A lighthouse on a cliff at dusk, 1:1").json()["artifact"]
    more = turn(api, "image", message="Two more images with a stormy sky", artifact_id=board["id"]).json()
    assert more["artifact"]["id"] == board["id"] and len(more["images"]) == 2
    listed = api.get("/v1/images/boards", params={"limit": 100}).json()["data"]
    assert next(b for b in listed if b["id"] == board["id"])["image_count"] == 3
