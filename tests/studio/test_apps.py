"""Content Apps: the catalogue, a form generated from each app's JSON Schema
(checked with jsonschema before anything is sent), the service's refusals on
the fields, video shots followed by repeating the same request with the same
Idempotency-Key, and "run again with changes" from the stored runs."""

from __future__ import annotations

import json

import httpx
import pytest
from django.urls import reverse

from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_poll
from sandbox.content_apps import VIDEO_SHOT_SECONDS
from studio.models import AppRun
from tests.html import one, select, text_of, texts
from tests.live.support import store_key
from tests.studio.support import BOARD_ID, IMAGE_IDS, PROJECT_ID, key_of


def test_the_catalogue_is_grouped_by_studio_and_group_with_the_reasons_some_cannot_run(
    db, api_key, catalogue, logged_in_client
):
    page = logged_in_client.get(reverse("studio:apps")).content
    assert texts(page, ".studio-catalogue > h2") == ["Image apps", "Video apps"]
    assert "16 of 22 can be run from here." in text_of(one(page, "main"))
    story = [li for li in select(page, ".studio-apps > li") if "Story" in text_of(li)][0]
    assert "Not runnable" in text_of(story) and "send a video turn instead" in text_of(story)
    assert not select(story, "a")
    link = one(page, f"a[href='{reverse('studio:app', args=['image', 'generate'])}']")
    assert text_of(link) == "Generate images"


def test_an_apps_form_is_generated_from_its_schema_with_an_asset_picker(db, api_key, catalogue, logged_in_client):
    page = logged_in_client.get(reverse("studio:app", args=["image", "generate"]), {"board_id": BOARD_ID}).content
    form = one(page, "#app-form")
    prompt = one(form, "textarea[name=prompt]")
    assert prompt["data-max-length"] == "6000" and not prompt.has_attr("maxlength") and prompt.has_attr("required")
    assert "*" in text_of(one(form, f"label[for={prompt['id']}]"))
    assert [o["value"] for o in select(form, "select[name=aspect] option")][:3] == ["", "4:5", "1:1"]
    count = one(form, "input[name=count]")
    assert (count["type"], count["min"], count["max"]) == ("number", "1", "4")
    assert one(form, "select[name=board_id] option[selected]")["value"] == BOARD_ID
    picker = one(form, "fieldset.studio-picker")
    assert text_of(one(picker, "legend")) == "Reference images"
    assert [i["value"] for i in select(picker, "input[type=checkbox]")] == IMAGE_IDS
    assert select(picker, "img")[0]["src"] == "https://cdn.example/0.png"
    assert "Up to 4 images on board" in text_of(picker)  # the schema's description as help, in words


def test_the_form_is_checked_against_the_schema_before_sending(db, api_key, catalogue, logged_in_client):
    url = reverse("studio:app", args=["image", "generate"])
    page = logged_in_client.get(url, {"board_id": BOARD_ID}).content
    data = {
        "prompt": "Bikes in spring",
        "board_id": BOARD_ID,
        "reference_asset_ids": IMAGE_IDS[:5],
        "idempotency_key": key_of(page),
    }
    response = logged_in_client.post(url, data)
    assert response.status_code == 200
    assert "Pick at most 4." in text_of(one(response.content, "fieldset.studio-picker .field-error"))
    assert one(response.content, "textarea[name=prompt]").text.strip() == "Bikes in spring"
    assert len(select(response.content, "fieldset.studio-picker input[checked]")) == 5
    assert not [call for call in catalogue.calls if call.request.method == "POST"]


@pytest.mark.parametrize("status", [400, 422])
def test_the_services_refusal_lands_on_the_field_it_names(db, api_key, catalogue, logged_in_client, status):
    catalogue.post("/v1/studio/image/apps/remove-background").mock(
        return_value=httpx.Response(
            status,
            json={
                "error": {
                    "type": "invalid_request",
                    "message": "Refused",
                    "details": {"source_asset_id": ["is not on the board"]},
                },
                "request_id": f"req_{status}",
            },
        )
    )
    url = reverse("studio:app", args=["image", "remove-background"])
    page = logged_in_client.get(url, {"board_id": BOARD_ID}).content
    data = {"board_id": BOARD_ID, "source_asset_id": IMAGE_IDS[1], "idempotency_key": key_of(page)}
    response = logged_in_client.post(url, data)
    error = text_of(one(response.content, "fieldset.studio-picker .field-error"))
    assert "is not on the board" in error and f"req_{status}" in error
    assert one(response.content, f"input[value='{IMAGE_IDS[1]}']").has_attr("checked")
    assert key_of(response.content) != data["idempotency_key"]  # the corrected body is a new write
    assert AppRun.objects.count() == 0


def test_out_of_credits_says_so_above_the_form(db, api_key, catalogue, logged_in_client):
    catalogue.post("/v1/studio/image/apps/generate").mock(
        return_value=httpx.Response(
            402, json={"error": {"type": "insufficient_credits", "message": "none"}, "request_id": "req_c"}
        )
    )
    url = reverse("studio:app", args=["image", "generate"])
    page = logged_in_client.get(url).content
    response = logged_in_client.post(url, {"prompt": "Bikes", "idempotency_key": key_of(page)})
    box = text_of(one(response.content, "#app-form .remote-error"))
    assert "run out of credits" in box and "req_c" in box


def test_an_image_run_is_kept_shown_as_a_gallery_and_run_again_with_changes(db, api_key, catalogue, logged_in_client):
    route = catalogue.post("/v1/studio/image/apps/generate").mock(
        return_value=httpx.Response(
            200,
            json={
                "status": "complete",
                "credits_charged": 1,
                "assets": [
                    {
                        "id": IMAGE_IDS[0],
                        "url": "https://cdn.example/new.png",
                        "width": 1024,
                        "height": 1280,
                        "prompt": "Bikes",
                    }
                ],
            },
        )
    )
    url = reverse("studio:app", args=["image", "generate"])
    page = logged_in_client.get(url, {"board_id": BOARD_ID}).content
    data = {
        "prompt": "Bikes",
        "aspect": "1:1",
        "count": "1",
        "board_id": BOARD_ID,
        "reference_asset_ids": IMAGE_IDS[:2],
        "idempotency_key": key_of(page),
    }
    response = logged_in_client.post(url, data)
    run = AppRun.objects.get()
    assert response.url == reverse("studio:app_run", args=[run.pk])
    assert json.loads(route.calls.last.request.content) == {
        "prompt": "Bikes",
        "aspect": "1:1",
        "count": 1,
        "board_id": BOARD_ID,
        "reference_asset_ids": IMAGE_IDS[:2],
    }
    shown = logged_in_client.get(response.url).content
    assert one(shown, ".studio-gallery img")["src"] == "https://cdn.example/new.png"
    rerun = one(shown, "a.btn-primary")["href"]
    again = logged_in_client.get(rerun).content
    assert one(again, "textarea[name=prompt]").text.strip() == "Bikes"
    assert one(again, "select[name=aspect] option[selected]")["value"] == "1:1"
    assert [i["value"] for i in select(again, "fieldset.studio-picker input[checked]")] == IMAGE_IDS[:2]


def test_a_video_shot_is_followed_by_repeating_the_same_request_with_the_same_key(
    db, api_key, catalogue, logged_in_client
):
    building = {"status": "building", "job": {"id": "job-1", "status": "building"}}
    done = {
        "status": "complete",
        "job": {"id": "job-1", "status": "succeeded"},
        "asset": {"id": "v1", "url": "https://cdn.example/v1.svg", "width": 720, "height": 1280, "duration_seconds": 8},
    }
    route = catalogue.post("/v1/studio/video/apps/generate").mock(
        side_effect=[
            httpx.Response(202, json=building),
            httpx.Response(202, json=building),
            httpx.Response(200, json=done),
        ]
    )
    url = reverse("studio:app", args=["video", "generate"])
    page = logged_in_client.get(url, {"project_id": PROJECT_ID, "prompt": "A drone shot"}).content
    assert one(page, "select[name=project_id] option[selected]")["value"] == PROJECT_ID  # prefilled from the link
    data = {"prompt": "A drone shot", "project_id": PROJECT_ID, "idempotency_key": key_of(page)}
    response = logged_in_client.post(url, data)
    run = AppRun.objects.get()
    op = run.operation
    assert (op.kind, op.remote_id, op.is_final) == ("studio.app_shot", "job-1", False)

    operation_poll(operation_id=op.pk)
    operation_poll(operation_id=op.pk)
    op.refresh_from_db()
    assert (op.status, op.is_final) == ("complete", True)
    bodies = {call.request.content for call in route.calls}
    keys = {call.request.headers["Idempotency-Key"] for call in route.calls}
    assert route.call_count == 3 and len(bodies) == 1 and keys == {data["idempotency_key"]}
    shown = logged_in_client.get(response.url).content
    assert one(shown, ".studio-asset img")["src"] == "https://cdn.example/v1.svg"


def test_the_motion_apps_questions_say_how_to_refine_the_prompt(db, api_key, catalogue, logged_in_client):
    catalogue.post("/v1/studio/video/apps/motion").mock(
        return_value=httpx.Response(
            200,
            json={
                "status": "needs_input",
                "motion": {
                    "status": "needs_input",
                    "questions": [{"text": "What should it show?", "options": ["A chart"]}],
                    "hint": "Be specific.",
                },
            },
        )
    )
    url = reverse("studio:app", args=["video", "motion"])
    page = logged_in_client.get(url).content
    response = logged_in_client.post(url, {"prompt": "Logo", "idempotency_key": key_of(page)})
    shown = text_of(one(logged_in_client.get(response.url).content, "main"))
    assert "What should it show?" in shown and "Be specific." in shown and "Run again with changes" in shown


def test_an_unknown_app_is_404_and_a_foreign_run_too(db, api_key, catalogue, logged_in_client, other_user, client):
    assert logged_in_client.get(reverse("studio:app", args=["image", "no-such-app"])).status_code == 404
    run = AppRun.objects.create(
        owner_key=api_key, started_by=api_key.user, studio="image", app="generate", idempotency_key="k" * 20
    )
    store_key(other_user, "svc_sk_" + "q" * 40, "Globex")
    client.force_login(other_user)
    assert client.get(reverse("studio:app_run", args=[run.pk])).status_code == 404


# --- against the sandbox: one job, one charge -------------------------------------------


def credits(sandbox) -> float:
    return next(ws for ws in sandbox.store.list("workspace") if ws["name"] == "Acme Marketing")["credits"]


def test_a_video_shot_run_from_the_console_makes_one_job_and_one_charge(db, sandbox, settings, user, client):
    settings.SERVICE_BASE_URL = sandbox.base_url
    key = store_key(user, sandbox.demo_key)
    client.force_login(user)
    project = next(p for p in sandbox.store.list("video_project") if p["workspace_id"] == key.workspace_id or True)
    before_credits, before_shots = credits(sandbox), len(sandbox.store.list("video_shot"))
    url = reverse("studio:app", args=["video", "generate"])
    page = client.get(url, {"project_id": project["id"]}).content
    data = {"prompt": "A slow dolly shot across the shop", "project_id": project["id"], "idempotency_key": key_of(page)}
    client.post(url, data)
    client.post(url, data)  # a double submit is the same run
    op = AppRun.objects.get().operation
    for _ in range(2):
        sandbox.advance(service_seconds=VIDEO_SHOT_SECONDS / 2 + 1)
        operation_poll(operation_id=op.pk)
    op.refresh_from_db()
    assert op.status == "complete"
    assert len(sandbox.store.list("video_shot")) == before_shots + 1
    assert credits(sandbox) == before_credits - 10
    assert TrackedOperation.objects.count() == 1


def test_an_odd_schema_still_gives_a_form_and_checks_what_it_can(db, api_key, remote, logged_in_client):
    odd = {
        "studio": "image",
        "id": "odd",
        "label": "Odd",
        "runnable": True,
        "inputs": {
            "type": "object",
            "required": "not a list",
            "properties": {
                "note": {"type": ["string", "null"]},
                "settings": {"type": "object", "description": "Typed as JSON"},
                "level": {"type": "integer", "minimum": 1.5, "maximum": "ten"},
                "bad name!": {"type": "string"},
                "ok": {"type": "boolean"},
            },
        },
    }
    remote.get("/v1/studio/apps").mock(return_value=httpx.Response(200, json={"apps": [odd]}))
    route = remote.post("/v1/studio/image/apps/odd").mock(return_value=httpx.Response(200, json={"status": "complete"}))
    url = reverse("studio:app", args=["image", "odd"])
    page = logged_in_client.get(url)
    assert page.status_code == 200
    assert [f["name"] for f in select(page.content, "#app-form [name]") if f["name"] != "csrfmiddlewaretoken"] == [
        "idempotency_key",
        "note",
        "settings",
        "level",
        "ok",
    ]
    refused = logged_in_client.post(url, {"settings": "{not json", "idempotency_key": key_of(page.content)})
    assert "line 1" in text_of(one(refused.content, ".has-error .field-error")).lower()
    sent = logged_in_client.post(url, {"settings": '{"a": 1}', "ok": "on", "idempotency_key": key_of(page.content)})
    assert sent.status_code == 302
    assert json.loads(route.calls.last.request.content) == {"settings": {"a": 1}, "ok": True}


def test_a_box_the_schema_turns_on_by_default_starts_ticked_and_can_be_switched_off(
    db, api_key, remote, logged_in_client
):
    app = {
        "studio": "image",
        "id": "cutout",
        "label": "Cut out",
        "runnable": True,
        "inputs": {
            "type": "object",
            "properties": {
                "keep_shadow": {"type": "boolean", "default": True, "description": "Keep the shadow"},
                "sharpen": {"type": "boolean"},
            },
        },
    }
    remote.get("/v1/studio/apps").mock(return_value=httpx.Response(200, json={"apps": [app]}))
    route = remote.post("/v1/studio/image/apps/cutout").mock(
        return_value=httpx.Response(200, json={"status": "complete"})
    )
    url = reverse("studio:app", args=["image", "cutout"])
    page = logged_in_client.get(url)
    assert one(page.content, '#app-form input[name="keep_shadow"]').has_attr("checked")
    assert not one(page.content, '#app-form input[name="sharpen"]').has_attr("checked")

    # Showing another board keeps the box as the person left it (absent from the post = unticked).
    again = logged_in_client.post(url, {"show_board": "1", "idempotency_key": key_of(page.content)})
    assert not one(again.content, '#app-form input[name="keep_shadow"]').has_attr("checked")

    # Unticked: the service is told false, or its default of true would stand.
    sent = logged_in_client.post(url, {"idempotency_key": key_of(page.content)})
    assert sent.status_code == 302
    assert json.loads(route.calls.last.request.content) == {"keep_shadow": False}
    run = AppRun.objects.get()
    assert {"label": "Keep shadow", "text": "No", "picture": ""} in run.asked

    # Run again with changes starts from what was sent: still off.
    rerun = logged_in_client.get(url, {"rerun": run.pk})
    assert not one(rerun.content, '#app-form input[name="keep_shadow"]').has_attr("checked")

    ticked = logged_in_client.post(url, {"keep_shadow": "on", "idempotency_key": key_of(rerun.content)})
    assert ticked.status_code == 302
    assert json.loads(route.calls.last.request.content) == {"keep_shadow": True}


def test_the_form_says_what_the_last_runs_of_the_app_charged_and_this_months_use(db, sandbox, settings, user, client):
    """Cost before the click, against the sandbox's own charges: two image
    runs (1 then 2 images) through the console, then the form's cost line."""
    settings.SERVICE_BASE_URL = sandbox.base_url
    store_key(user, sandbox.demo_key)
    client.force_login(user)
    url = reverse("studio:app", args=["image", "generate"])
    first = one(client.get(url).content, "#app-cost")
    assert "No run of this app through the console has said its charge yet" in text_of(first)
    before = credits(sandbox)
    for count in (1, 2):
        page = client.get(url).content
        client.post(url, {"prompt": f"Bikes in the rain {count}", "count": count, "idempotency_key": key_of(page)})
    charged = before - credits(sandbox)

    assert sorted(AppRun.objects.values_list("credits_charged", flat=True)) == [1, 2] and charged == 3
    line = text_of(one(client.get(url).content, "#app-cost"))
    assert "The last 2 runs of this app charged about 2 credits (2, 1, newest first)" in line
    assert "3 credits by you, 3 by the workspace" in line


@pytest.mark.django_db
def test_the_cost_line_costs_two_queries_whatever_the_runs_and_counts_only_this_workspace(
    user, other_user, django_assert_num_queries
):
    from datetime import UTC, timedelta

    from django.utils import timezone

    from studio.costs import app_costs

    mine, colleague, elsewhere = store_key(user, "k1"), store_key(other_user, "k2"), store_key(user, "k3", "Globex")
    now = timezone.now()
    rows = [
        AppRun(owner_key=key, started_by_id=key.user_id, studio="image", app=app, idempotency_key=f"{n}", **extra)
        for n, (key, app, extra) in enumerate(
            [(mine, "generate", {"credits_charged": 2})] * 500
            + [(colleague, "generate", {"credits_charged": 4})] * 500
            + [(colleague, "upscale", {"credits_charged": 1})]
            + [(mine, "generate", {"credits_charged": None})]  # said no charge: not counted
            + [(elsewhere, "generate", {"credits_charged": 1000})]  # another workspace
        )
    ]
    AppRun.objects.bulk_create(rows)
    # Last month's runs count in the app's recent charges, not in this month's use.
    old = AppRun.objects.filter(owner_key=mine, credits_charged=2).order_by("pk")[:100].values_list("pk", flat=True)
    AppRun.objects.filter(pk__in=list(old)).update(created_at=now - timedelta(days=40))

    with django_assert_num_queries(2):
        costs = app_costs(workspace_id=mine.workspace_id, user_id=user.pk, studio="image", app="generate", zone=UTC)

    assert len(costs.last) == 5 and set(costs.last) <= {2, 4}
    assert costs.month_mine == 400 * 2
    assert costs.month_workspace == 400 * 2 + 500 * 4 + 1


@pytest.mark.django_db
def test_a_video_shots_charge_is_kept_on_its_run_when_it_is_final(user):
    from dashboard.live.services import operation_track
    from studio.live import SHOT_KIND, shots_final

    key = store_key(user, "k1")
    ops = [
        operation_track(owner_key=key, kind=SHOT_KIND, remote_id=f"job-{n}", snapshot=snapshot)
        for n, snapshot in enumerate(
            [{"status": "complete", "credits_charged": 10}, {"status": "complete", "credits_charged": "ten"}]
        )
    ]
    runs = [
        AppRun.objects.create(
            owner_key=key, started_by=user, studio="video", app="generate", idempotency_key=f"k{n}", operation=op
        )
        for n, op in enumerate(ops)
    ]

    shots_final([op.pk for op in ops])
    shots_final([op.pk for op in ops])  # called again for the same rows (a retried batch): the same

    assert [AppRun.objects.get(pk=run.pk).credits_charged for run in runs] == [10, None]  # "ten" is no charge
