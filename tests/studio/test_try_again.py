"""Trying again (issue #21, item 2): a failed turn or Content App run offers
"Try again" (its message or inputs once more, a new turn or run under the
key minted with the button) and "Change and try again" (the composer or the
app's form prefilled); a 402 says the credits ran out and offers no retry
anywhere, the frame's message box included.

Turns fail for real in the sandbox (a message that asks it to fail);
refusals are mocked (respx) where the sandbox cannot be made to give them."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from dashboard.api.testing import RemoteCallCounter
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_poll
from sandbox.studio import DIRECTOR_SECONDS
from studio.models import AppRun
from tests.helpers import PASSWORD, fill_login_form
from tests.html import one, select, text_of, textarea_value
from tests.live.support import store_key, turn_body

NEXT_TURN_ID = "9a7b6c5d-0000-4000-8000-00000000beef"

# The sandbox's director fails a turn whose message asks it to.
FAILING = "A landing page for our bakery, and please fail this turn"
CREDITS_402 = {"error": {"type": "insufficient_credits", "message": "No credits left"}, "request_id": "req_402"}


def key_of(html, selector: str = ".studio-try-again") -> str:
    return one(html, f'{selector} input[name="idempotency_key"]')["value"]


@pytest.fixture
def sandbox_client(sandbox, settings, user, logged_in_client):
    settings.SERVICE_BASE_URL = sandbox.base_url
    store_key(user, sandbox.demo_key)
    return logged_in_client


@pytest.fixture
def failed_turn(db, sandbox, sandbox_client) -> TrackedOperation:
    """A website turn started through the page and failed by the sandbox's
    director (one poll after the director's time has passed)."""
    page = sandbox_client.get(reverse("studio:index")).content
    key = one(page, '#turn-form input[name="idempotency_key"]')["value"]
    sandbox_client.post(reverse("studio:start"), {"studio": "website", "message": FAILING, "idempotency_key": key})
    op = TrackedOperation.objects.get(kind="studio.turn")
    sandbox.advance(service_seconds=DIRECTOR_SECONDS["website"])
    op = operation_poll(operation_id=op.pk)
    assert op.is_final and op.status == "failed"
    return op


def test_a_failed_turn_offers_try_again_and_change_and_try_again(failed_turn, sandbox_client):
    page = sandbox_client.get(reverse("studio:turn", args=[failed_turn.pk])).content

    turn = one(page, f"#turn-{failed_turn.pk}")
    assert "The turn failed." in text_of(one(turn, ".alert-error"))
    form = one(turn, "form.studio-try-again")
    assert form["action"] == reverse("studio:try_again", args=[failed_turn.pk])
    assert text_of(one(form, "button[type=submit]")) == "Try again"
    change = one(form, "a.btn")
    assert text_of(change) == "Change and try again"
    assert change["href"] == f"{reverse('studio:turn', args=[failed_turn.pk])}?change={failed_turn.pk}#composer-message"


def test_try_again_is_one_new_turn_of_the_same_conversation_and_the_same_key_twice_is_one(
    failed_turn, sandbox, sandbox_client
):
    key = key_of(sandbox_client.get(reverse("studio:turn", args=[failed_turn.pk])).content)
    turns_at_service = len(sandbox.store.list("turn"))

    with RemoteCallCounter() as calls:
        first = sandbox_client.post(reverse("studio:try_again", args=[failed_turn.pk]), {"idempotency_key": key})
    assert calls.paths == ["/v1/studio/website/turns"]  # one POST, nothing read first
    again = TrackedOperation.objects.exclude(pk=failed_turn.pk).get(kind="studio.turn")
    assert first.status_code == 302 and first["Location"] == reverse("studio:turn", args=[again.pk])
    assert again.context["message"] == FAILING and again.context["idempotency_key"] == key
    assert again.context["conversation_id"] == failed_turn.context["conversation_id"]

    # A double click (or the page's back button and the button again): the same key, the same turn.
    second = sandbox_client.post(reverse("studio:try_again", args=[failed_turn.pk]), {"idempotency_key": key})
    assert second["Location"] == first["Location"]
    assert TrackedOperation.objects.filter(kind="studio.turn").count() == 2
    assert len(sandbox.store.list("turn")) == turns_at_service + 1


def test_change_and_try_again_prefills_the_composer_with_the_message_focused(failed_turn, sandbox_client):
    url = reverse("studio:turn", args=[failed_turn.pk])

    composer = one(sandbox_client.get(f"{url}?change={failed_turn.pk}").content, "#composer-message")
    assert textarea_value(composer) == FAILING
    assert composer.has_attr("autofocus")
    # Anything else leaves the composer empty and unfocused.
    for change in ("", "abc", str(failed_turn.pk + 1)):
        composer = one(sandbox_client.get(f"{url}?change={change}").content, "#composer-message")
        assert textarea_value(composer) == "" and not composer.has_attr("autofocus")


def test_only_the_latest_failed_turn_offers_it_and_a_turn_that_did_not_fail_sends_nothing(
    db, remote, make_turn, logged_in_client
):
    failed = make_turn(due=False)
    TrackedOperation.objects.filter(pk=failed.pk).update(
        status="failed", is_final=True, snapshot=turn_body("failed", error={"message": "It broke."})
    )
    # A later turn of the same conversation (turn_body's conversation id) that completed.
    later = make_turn(
        remote_id=NEXT_TURN_ID,
        due=False,
        status="completed",
        is_final=True,
        snapshot=turn_body("completed", turn_id=NEXT_TURN_ID),
    )
    page = logged_in_client.get(reverse("studio:turn", args=[later.pk])).content
    assert not select(page, ".studio-try-again")

    response = logged_in_client.post(
        reverse("studio:try_again", args=[later.pk]), {"idempotency_key": "7d2c1b0a-0000-4000-8000-000000000009"}
    )
    assert response.status_code == 302 and remote.calls.call_count == 0


def test_a_try_again_that_runs_out_of_credits_says_so_and_offers_no_retry(db, remote, make_turn, logged_in_client):
    route = remote.post("/v1/studio/website/turns").respond(402, json=CREDITS_402)
    op = make_turn(due=False)
    TrackedOperation.objects.filter(pk=op.pk).update(
        status="failed", is_final=True, snapshot=turn_body("failed", error={"message": "It broke."})
    )
    key = key_of(logged_in_client.get(reverse("studio:turn", args=[op.pk])).content)

    response = logged_in_client.post(reverse("studio:try_again", args=[op.pk]), {"idempotency_key": key})

    assert response.status_code == 200 and route.call_count == 1
    box = one(response.content, f"#turn-{op.pk} .remote-error")
    assert "run out of credits" in text_of(box) and "req_402" in text_of(box)
    assert not select(response.content, "[data-retry]")
    assert not select(response.content, ".studio-try-again")
    assert TrackedOperation.objects.count() == 1


def test_a_turn_that_failed_for_credits_offers_no_retry(db, make_turn, logged_in_client):
    op = make_turn(due=False)
    TrackedOperation.objects.filter(pk=op.pk).update(
        status="failed",
        is_final=True,
        snapshot=turn_body("failed", error={"type": "insufficient_credits", "message": "Out of credits."}),
    )

    page = logged_in_client.get(reverse("studio:turn", args=[op.pk])).content

    assert not select(page, ".studio-try-again") and not select(page, "[data-retry]")
    assert "run out of credits" in text_of(one(page, ".studio-no-credits"))


# --- the 402 message box of the frame ---------------------------------------------------


def test_a_402_box_has_no_retry_on_a_page_in_a_partial_or_above_a_form(db, remote, make_turn, logged_in_client):
    remote.get("/v1/studio/apps").respond(402, json=CREDITS_402)
    remote.post("/v1/studio/website/turns").respond(402, json=CREDITS_402)

    full_page = logged_in_client.get(reverse("studio:apps"))
    partial = logged_in_client.get(reverse("studio:apps"), HTTP_HX_REQUEST="true")
    op = make_turn(due=False)
    TrackedOperation.objects.filter(pk=op.pk).update(status="completed", is_final=True)
    above_form = logged_in_client.post(
        reverse("studio:reply", args=[op.pk]),
        {"message": "Add a blog", "idempotency_key": "7d2c1b0a-0000-4000-8000-000000000008"},
    )

    assert full_page.status_code == 402
    for response in (full_page, partial, above_form):
        box = one(response.content, ".remote-error")
        assert box["data-error-kind"] == "insufficient_credits"
        assert "run out of credits" in text_of(box)
        assert not select(box, "[data-retry]") and not select(box, "[data-retry-after]")


# --- Content App runs --------------------------------------------------------------------------


@pytest.fixture
def failed_run(api_key, user) -> AppRun:
    return AppRun.objects.create(
        owner_key=api_key,
        started_by=user,
        studio="image",
        app="generate",
        label="Generate",
        inputs={"prompt": "A red bicycle", "count": 1},
        idempotency_key="7d2c1b0a-0000-4000-8000-000000000001",
        http_status=200,
        status="failed",
        result={"status": "failed", "error": {"type": "generation_failed", "message": "The model gave up."}},
    )


def test_a_failed_run_is_tried_again_once_with_the_same_inputs(db, remote, failed_run, logged_in_client):
    route = remote.post("/v1/studio/image/apps/generate").respond(
        200, json={"status": "complete", "assets": [{"id": "a1", "url": "https://cdn.example/a1.png"}]}
    )
    page = logged_in_client.get(reverse("studio:app_run", args=[failed_run.pk])).content
    form = one(page, "form.studio-try-again")
    change = one(form, "a.btn")
    assert text_of(change) == "Change and try again"
    assert change["href"] == f"{reverse('studio:app', args=['image', 'generate'])}?rerun={failed_run.pk}"
    key = key_of(page)

    first = logged_in_client.post(reverse("studio:app_run_try_again", args=[failed_run.pk]), {"idempotency_key": key})
    second = logged_in_client.post(reverse("studio:app_run_try_again", args=[failed_run.pk]), {"idempotency_key": key})

    again = AppRun.objects.exclude(pk=failed_run.pk).get()
    assert first["Location"] == second["Location"] == reverse("studio:app_run", args=[again.pk])
    assert again.inputs == failed_run.inputs and again.idempotency_key == key
    # Both posts carried the one key: the service answers the second as the first.
    assert {call.request.headers["Idempotency-Key"] for call in route.calls} == {key}
    assert not select(logged_in_client.get(first["Location"]).content, ".studio-try-again")


def test_a_run_tried_again_without_credits_says_so_and_offers_no_retry(db, remote, failed_run, logged_in_client):
    remote.post("/v1/studio/image/apps/generate").respond(402, json=CREDITS_402)
    key = key_of(logged_in_client.get(reverse("studio:app_run", args=[failed_run.pk])).content)

    response = logged_in_client.post(
        reverse("studio:app_run_try_again", args=[failed_run.pk]), {"idempotency_key": key}
    )

    assert "run out of credits" in text_of(one(response.content, ".remote-error"))
    assert not select(response.content, "[data-retry]") and not select(response.content, ".studio-try-again")
    assert AppRun.objects.count() == 1


# --- in Chromium ------------------------------------------------------------------------------


@pytest.fixture
def console(live_server, sandbox, settings, transactional_db, django_user_model):
    settings.SERVICE_BASE_URL = sandbox.base_url
    store_key(django_user_model.objects.create_user(username="dora", password=PASSWORD), sandbox.demo_key)
    return live_server


@pytest.mark.browser
def test_a_failed_turn_tried_again_and_then_changed(console, poller, page: Page, sandbox):
    turns_before = len(sandbox.store.list("turn"))  # the sandbox is the session's: other tests' turns are there
    page.goto(console.url + "/studio/")
    fill_login_form(page, "dora")
    page.get_by_label("Studio", exact=True).select_option("website")
    page.get_by_label("Message").fill(FAILING)
    page.get_by_role("button", name="Start the turn").click()

    chat = page.get_by_role("list", name="Conversation")
    expect(chat.get_by_role("alert").filter(has_text="The turn failed.")).to_be_visible(timeout=45_000)
    page.get_by_role("button", name="Try again").click()

    # One new turn with the same message; it fails again (the sandbox is asked to), and offers both again.
    expect(chat.locator(".chat-bubble--person .chat-text")).to_have_text([FAILING, FAILING])
    expect(chat.locator(".chat-turn").last).to_have_attribute("data-status", "failed", timeout=45_000)
    assert len(sandbox.store.list("turn")) == turns_before + 2
    page.get_by_role("link", name="Change and try again").click()

    composer = page.get_by_label("Your message to the website director")
    expect(composer).to_have_value(FAILING)
    expect(composer).to_be_focused()
