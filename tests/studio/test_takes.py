"""Alternatives side by side (#36 item 4), against the real sandbox: another
take of a finished document (its brief read and changeable first, sent once
on a double click as a new document the director decides), of an image turn
(new images on the same board) and of a Content App run (the same inputs);
the takes one at a time with a pager, any two side by side, "keep this one";
the pages read the console's rows (no remote call once a take is done) and
stay at a fixed number of queries whatever the set holds."""

from __future__ import annotations

import httpx
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from dashboard.api.testing import RemoteCallCounter
from dashboard.idempotency import new_idempotency_key
from dashboard.live.models import TrackedOperation
from studio.forms import DECIDE_MESSAGE
from studio.models import AppRun, DocumentVersion, Take, TakeSet
from studio.services import turn_continue, turn_start
from studio.takes import MAX_TAKES, take_another_turn
from tests.html import one, parse, select, text_of, textarea_value
from tests.live.support import store_key
from tests.studio.support import polled_to_the_end

pytestmark = pytest.mark.django_db

BRIEF = "A one-pager for our spring bicycle sale: 20% off city bikes, free helmet with every bike."
MORE = "Mention that we open on Sundays too."
PICTURES = "Two pictures of a red city bike in spring light"


@pytest.fixture(autouse=True)
def tasks_run_at_once(eager_celery):
    return eager_celery


@pytest.fixture
def key(sandbox, settings, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    return store_key(user, sandbox.demo_key)


def sent(key, studio: str, message: str, **more) -> TrackedOperation:
    return turn_start(key=key, studio=studio, message=message, auto=True, idempotency_key=new_idempotency_key(), **more)


@pytest.fixture
def document(sandbox, key) -> TrackedOperation:
    return polled_to_the_end(sandbox, sent(key, "document", BRIEF))


def take_form(client, turn: TrackedOperation):
    return parse(client.get(reverse("studio:take_turn_new", args=[turn.pk])).content)


def test_a_finished_document_offers_another_take_whose_brief_is_read_first(sandbox, key, document, logged_in_client):
    pane = parse(logged_in_client.get(reverse("studio:turn", args=[document.pk])).content)
    link = next(a for a in select(pane, "#artifact-pane a") if text_of(a) == "Another take")
    assert link["href"] == reverse("studio:take_turn_new", args=[document.pk])

    # After a revision (and a one-click "decide for me"), the brief is every message the person sent, in order.
    revised = polled_to_the_end(
        sandbox, turn_continue(key=key, turns=[document], message=MORE, idempotency_key=new_idempotency_key())
    )
    decided = polled_to_the_end(
        sandbox,
        turn_continue(
            key=key, turns=[document, revised], message=DECIDE_MESSAGE, idempotency_key=new_idempotency_key()
        ),
    )
    page = take_form(logged_in_client, decided)
    assert textarea_value(one(page, "textarea[name=message]")) == f"{BRIEF}\n\n{MORE}"
    assert "new document" in text_of(one(page, "#take-heading").parent)


def test_another_take_is_one_new_document_kept_as_take_2_and_a_double_click_is_one(sandbox, document, logged_in_client):
    page = take_form(logged_in_client, document)
    key = one(page, "input[name=idempotency_key]")["value"]
    address = reverse("studio:take_turn_new", args=[document.pk])
    changed = f"{BRIEF} Make it playful."

    with RemoteCallCounter() as calls:
        first = logged_in_client.post(address, {"message": changed, "idempotency_key": key})
        logged_in_client.post(address, {"message": changed, "idempotency_key": key})
    assert calls.paths == ["/v1/studio/document/turns"] * 2  # the same key: the service answers the same turn
    take_turn = TrackedOperation.objects.exclude(pk=document.pk).get(kind="studio.turn")
    assert take_turn.context["message"] == changed and take_turn.context["auto"] is True
    assert not take_turn.context["artifact_id"]  # a new document, not a revision of the first
    take_set = TakeSet.objects.get()
    assert [(t.number, t.turn_id) for t in take_set.takes.all()] == [(1, document.pk), (2, take_turn.pk)]
    assert first.status_code == 302 and first["Location"] == f"{reverse('studio:takes', args=[take_set.pk])}?take=2"

    # While it is made, the page follows it by polling the console only.
    making = parse(logged_in_client.get(first["Location"]).content)
    poll = one(making, "#takes-progress")
    assert "being made" in text_of(poll)
    with RemoteCallCounter() as calls:
        unchanged = logged_in_client.get(poll["hx-get"], headers={"HX-Request": "true"})
    assert unchanged.status_code == 204 and calls.paths == []

    polled_to_the_end(sandbox, take_turn)
    with RemoteCallCounter() as calls:
        done = logged_in_client.get(poll["hx-get"], headers={"HX-Request": "true"})
    assert calls.paths == [] and done.status_code == 286
    region = parse(done.content)
    assert not select(region, "#takes-progress")
    kept = DocumentVersion.objects.get(turn=take_turn)
    assert text_of(one(region, ".studio-take__document")) and kept.content


def test_the_takes_one_at_a_time_side_by_side_and_keep_this_one(sandbox, key, document, logged_in_client):
    second = polled_to_the_end(
        sandbox,
        take_another_turn(
            key=key,
            workspace_id=key.workspace_id,
            source=document,
            message=BRIEF,
            idempotency_key=new_idempotency_key(),
        ).turn,
    )
    take_set = TakeSet.objects.get()
    versions = {v.turn_id: v for v in DocumentVersion.objects.all()}
    assert set(versions) == {document.pk, second.pk}

    with RemoteCallCounter() as calls:
        page = parse(logged_in_client.get(reverse("studio:takes", args=[take_set.pk])).content)
        compare = parse(logged_in_client.get(f"{reverse('studio:takes_compare', args=[take_set.pk])}?a=1&b=2").content)
    assert calls.paths == []  # every take's content is the console's kept version
    pager = one(page, "nav[aria-label=Takes]")
    assert [text_of(a) for a in select(pager, "a:not([rel])")] == ["Take 1", "Take 2"]
    assert text_of(one(pager, "[aria-current=page]")) == "Take 2"  # none kept: the newest
    assert text_of(one(page, "#take-heading")).startswith("Take 2 of 2")
    previous = one(pager, "a[rel=prev]")
    assert previous["href"] == "?take=1" and previous["hx-target"] == "#take"

    sides = select(compare, ".studio-takes-side__take")
    assert [text_of(one(side, "h2.card-title")).split(" · ")[0] for side in sides] == ["Left: take 1", "Right: take 2"]
    assert all(select(side, ".document-content") for side in sides)

    # Keep take 1 from the comparison: back to it, and the set opens on the kept take.
    form = select(sides[0], "form")[0]
    fields = {i["name"]: i.get("value", "") for i in select(form, "input") if i.get("name")}
    response = logged_in_client.post(form["action"], fields)
    assert response["Location"] == f"{reverse('studio:takes_compare', args=[take_set.pk])}?a=1&b=2"
    take_set.refresh_from_db()
    assert take_set.kept.number == 1
    opened = parse(logged_in_client.get(reverse("studio:takes", args=[take_set.pk])).content)
    assert text_of(one(opened, "nav[aria-label=Takes] [aria-current=page]")) == "Take 1 (kept)"
    assert text_of(one(opened, ".studio-take .badge")) == "The one kept"
    # The take's conversation names it.
    pane = parse(logged_in_client.get(reverse("studio:turn", args=[second.pk])).content)
    assert any(text_of(a) == "Take 2 · all takes" for a in select(pane, "#artifact-pane a"))


def test_an_image_take_makes_new_images_on_the_same_board(sandbox, key, logged_in_client):
    first = polled_to_the_end(sandbox, sent(key, "image", PICTURES), studio="image")
    board = first.snapshot["artifact"]["id"]
    page = take_form(logged_in_client, first)
    assert textarea_value(one(page, "textarea[name=message]")) == PICTURES
    logged_in_client.post(
        reverse("studio:take_turn_new", args=[first.pk]),
        {"message": PICTURES, "idempotency_key": one(page, "input[name=idempotency_key]")["value"]},
    )
    second = polled_to_the_end(sandbox, TrackedOperation.objects.exclude(pk=first.pk).get(), studio="image")
    assert second.context["artifact_id"] == board
    take_set = TakeSet.objects.get()
    with RemoteCallCounter() as calls:
        compare = parse(logged_in_client.get(reverse("studio:takes_compare", args=[take_set.pk])).content)
    assert calls.paths == []
    first_ids = {i["id"] for i in first.snapshot["images"]}
    second_ids = {i["id"] for i in second.snapshot["images"]}
    assert first_ids and second_ids and not first_ids & second_ids
    shown = [
        {a["href"].rstrip("/").rsplit("/", 1)[-1] for a in select(side, ".studio-gallery a.small")}
        for side in select(compare, ".studio-takes-side__take")
    ]
    assert shown == [first_ids, second_ids]


def test_another_take_of_a_content_app_run_sends_the_same_inputs(db, remote, api_key, user, logged_in_client):
    run = AppRun.objects.create(
        owner_key=api_key,
        started_by=user,
        studio="image",
        app="generate",
        label="Generate",
        inputs={"prompt": "A red bicycle", "count": 1},
        idempotency_key=new_idempotency_key(),
        http_status=200,
        status="complete",
        result={"status": "complete", "assets": [{"id": "a1", "url": "https://cdn.example/a1.png"}]},
    )
    route = remote.post("/v1/studio/image/apps/generate").mock(
        return_value=httpx.Response(
            200, json={"status": "complete", "assets": [{"id": "a2", "url": "https://cdn.example/a2.png"}]}
        )
    )
    page = parse(logged_in_client.get(reverse("studio:app_run", args=[run.pk])).content)
    form = one(page, "form.studio-another-take")
    key = one(form, "input[name=idempotency_key]")["value"]
    first = logged_in_client.post(form["action"], {"idempotency_key": key})
    logged_in_client.post(form["action"], {"idempotency_key": key})
    again = AppRun.objects.exclude(pk=run.pk).get()
    assert again.inputs == run.inputs and {c.request.headers["Idempotency-Key"] for c in route.calls} == {key}
    take_set = TakeSet.objects.get()
    assert first["Location"] == f"{reverse('studio:takes', args=[take_set.pk])}?take=2"
    compare = parse(logged_in_client.get(reverse("studio:takes_compare", args=[take_set.pk])).content)
    pictures = [[img["src"] for img in select(side, "img")] for side in select(compare, ".studio-takes-side__take")]
    assert pictures == [["https://cdn.example/a1.png"], ["https://cdn.example/a2.png"]]


def test_a_full_set_is_refused_in_words_and_nothing_is_sent(sandbox, key, document, logged_in_client):
    take_set = TakeSet.objects.create(workspace_id=key.workspace_id, studio="document", kind=TakeSet.TURN)
    Take.objects.create(takes=take_set, number=1, turn=document)
    for number in range(2, MAX_TAKES + 1):
        Take.objects.create(takes=take_set, number=number, turn=sent(key, "document", f"{BRIEF} ({number})"))
    page = take_form(logged_in_client, document)
    with RemoteCallCounter() as calls:
        response = logged_in_client.post(
            reverse("studio:take_turn_new", args=[document.pk]),
            {"message": "Keep this typed", "idempotency_key": one(page, "input[name=idempotency_key]")["value"]},
        )
    assert calls.paths == []
    answer = parse(response.content)
    assert f"already has {MAX_TAKES} takes" in text_of(one(answer, ".alert-error"))
    assert textarea_value(one(answer, "textarea[name=message]")) == "Keep this typed"


def test_the_takes_pages_queries_stay_flat_as_the_set_grows(sandbox, key, document, logged_in_client):
    take_set = TakeSet.objects.create(workspace_id=key.workspace_id, studio="document", kind=TakeSet.TURN)
    Take.objects.create(takes=take_set, number=1, turn=document)

    def queries() -> int:
        address = f"{reverse('studio:takes', args=[take_set.pk])}?take=1"
        logged_in_client.get(address)  # the first load after turns finish tells their toasts once (dashboard/inbox)
        with CaptureQueriesContext(connection) as seen:
            logged_in_client.get(address)
        return len(seen)

    Take.objects.create(takes=take_set, number=2, turn=polled_to_the_end(sandbox, sent(key, "document", f"{BRIEF} 2")))
    with_two = queries()
    for number in range(3, MAX_TAKES + 1):
        Take.objects.create(
            takes=take_set, number=number, turn=polled_to_the_end(sandbox, sent(key, "document", f"{BRIEF} {number}"))
        )
    assert queries() == with_two


def test_another_workspaces_takes_are_not_found(sandbox, key, document, logged_in_client):
    take_set = TakeSet.objects.create(workspace_id="ws_someone_else", studio="document", kind=TakeSet.TURN)
    Take.objects.create(takes=take_set, number=1, turn=document)
    for name in ("studio:takes", "studio:takes_compare", "studio:takes_live"):
        assert logged_in_client.get(reverse(name, args=[take_set.pk])).status_code == 404
    assert logged_in_client.post(reverse("studio:take_keep", args=[take_set.pk]), {"take": 1}).status_code == 404


def test_a_turn_still_running_offers_no_take(sandbox, key, logged_in_client):
    running = sent(key, "document", BRIEF)
    response = logged_in_client.get(reverse("studio:take_turn_new", args=[running.pk]))
    assert response.status_code == 409
    assert "Nothing finished to take again" in text_of(one(parse(response.content), "#take-heading"))
    assert not select(response.content, "form textarea")
