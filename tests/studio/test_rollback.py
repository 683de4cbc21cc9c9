"""Roll back (#36 item 2), against the real sandbox: an earlier kept
version of a document made current again by a revision turn carrying its
whole content (said before sending; one turn on a double click; kept as a
new version once it completes); a version too long for the contract's
limit refused in words with nothing sent; a website's result kept after
each completed turn, listed, and "go back to this" sent as one turn naming
the later requests to undo; the conversation pane links to the versions; a
changed line of a comparison marked word by word."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.idempotency import new_idempotency_key
from dashboard.live.models import TrackedOperation
from sandbox.studio import DIRECTOR_SECONDS, WEBSITE_BUILD_SECONDS
from studio.models import DocumentVersion, TurnResult
from studio.rollback import DOCUMENT_MESSAGE_MAX
from studio.services import turn_continue, turn_start
from studio.versions import versions_diff
from tests.html import one, parse, select, text_of, textarea_value
from tests.live.support import store_key
from tests.studio.support import polled_to_the_end

pytestmark = pytest.mark.django_db

FIRST = "A one-pager for our spring bicycle sale: 20% off city bikes, free helmet with every bike."
SECOND = "Make it about e-bikes instead: 15% off e-bikes, a free lock with every e-bike, open Sundays."


@pytest.fixture(autouse=True)
def tasks_run_at_once(eager_celery):
    return eager_celery


@pytest.fixture
def key(sandbox, settings, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    return store_key(user, sandbox.demo_key)


@pytest.fixture
def revised(sandbox, key):
    first = polled_to_the_end(
        sandbox, turn_start(key=key, studio="document", message=FIRST, auto=True, idempotency_key=new_idempotency_key())
    )
    second = polled_to_the_end(
        sandbox, turn_continue(key=key, turns=[first], message=SECOND, auto=True, idempotency_key=new_idempotency_key())
    )
    versions = list(DocumentVersion.objects.order_by("created_at", "id"))
    assert len(versions) == 2
    return {"first": first, "second": second, "versions": versions}


def test_an_earlier_version_is_made_current_by_one_revision_turn_carrying_it(sandbox, revised, logged_in_client):
    older = revised["versions"][0]
    page = parse(logged_in_client.get(reverse("studio:document_version_restore", args=[older.pk])).content)
    sent_words = textarea_value(one(page, "#restore-message"))
    assert sent_words.endswith(older.content) and "word for word" in sent_words
    assert "revision turn" in text_of(one(page, "#restore-heading").parent)
    key = one(page, "input[name=idempotency_key]")["value"]
    assert not TrackedOperation.objects.exclude(pk__in=[revised["first"].pk, revised["second"].pk]).exists()

    address = reverse("studio:document_version_restore_send", args=[older.pk])
    response = logged_in_client.post(address, {"idempotency_key": key})
    logged_in_client.post(address, {"idempotency_key": key})  # a double click
    turns = TrackedOperation.objects.exclude(pk__in=[revised["first"].pk, revised["second"].pk])
    assert turns.count() == 1
    turn = turns.get()
    assert response.status_code == 302 and response["Location"] == reverse("studio:turn", args=[turn.pk])
    assert turn.context["message"] == sent_words
    # In the version's own conversation, on the same document.
    assert turn.snapshot.get("conversation_id") in (None, revised["second"].snapshot.get("conversation_id"))
    polled_to_the_end(sandbox, turn)
    versions = list(DocumentVersion.objects.order_by("created_at", "id"))
    assert len(versions) == 3 and versions[2].turn_id == turn.pk
    assert versions[2].document_id == older.document_id


def test_a_version_too_long_for_a_turn_is_refused_in_words_and_nothing_is_sent(revised, logged_in_client):
    older = revised["versions"][0]
    DocumentVersion.objects.filter(pk=older.pk).update(content="word " * (DOCUMENT_MESSAGE_MAX // 5))
    page = parse(logged_in_client.get(reverse("studio:document_version_restore", args=[older.pk])).content)
    assert "Nothing was sent" in text_of(one(page, ".alert-error"))
    assert not select(page, "form[action$='/restore/send']")
    response = logged_in_client.post(
        reverse("studio:document_version_restore_send", args=[older.pk]), {"idempotency_key": new_idempotency_key()}
    )
    assert response.status_code == 400
    assert TrackedOperation.objects.count() == 2


def test_the_conversation_pane_links_to_the_versions(revised, logged_in_client):
    second = revised["second"]
    page = parse(logged_in_client.get(reverse("studio:turn", args=[second.pk])).content)
    links = [a["href"] for a in select(page, "#artifact-pane a") if text_of(a) == "Versions"]
    assert links == [reverse("studio:document_versions", args=[revised["versions"][0].document_id])]


def test_a_changed_line_is_marked_word_by_word():
    lines = versions_diff("# Sale\nThe sale ends on Friday at noon.\n", "# Sale\nThe sale ends on Monday at noon.\n")
    removed = next(line for line in lines if line.change == "removed")
    added = next(line for line in lines if line.change == "added")
    assert [piece.text for piece in removed.words if piece.kind == "removed"] == ["Friday "]
    assert [piece.text for piece in added.words if piece.kind == "added"] == ["Monday "]
    unlike = versions_diff("A\nCompletely different words here\n", "A\nNothing alike at all, truly\n")
    assert all(not line.words for line in unlike)


SITE = "A website for Riverside Bakery: sourdough, pastries, opening hours 7-15, a contact form."
SITE_CHANGE = "Make the header dark green and add a page with our catering menu."
SITE_DONE = DIRECTOR_SECONDS["website"] + WEBSITE_BUILD_SECONDS + 5


@pytest.fixture
def site(sandbox, key):
    first = polled_to_the_end(
        sandbox,
        turn_start(key=key, studio="website", message=SITE, auto=True, idempotency_key=new_idempotency_key()),
        SITE_DONE,
    )
    second = polled_to_the_end(
        sandbox,
        turn_continue(key=key, turns=[first], message=SITE_CHANGE, auto=True, idempotency_key=new_idempotency_key()),
        SITE_DONE,
    )
    assert (first.status, second.status) == ("completed", "completed")
    results = list(TurnResult.objects.order_by("created_at", "id"))
    assert [result.turn_id for result in results] == [first.pk, second.pk]
    return {"first": first, "second": second, "results": results}


def test_a_website_goes_back_to_an_earlier_result_by_one_turn_naming_what_to_undo(site, logged_in_client):
    older, newer = site["results"]
    assert older.studio == "website" and older.asked == SITE and older.public_url.startswith("http")
    history = parse(
        logged_in_client.get(reverse("studio:artifact_history", args=["websites", older.artifact_id])).content
    )
    assert len(select(history, ".studio-versions > li")) == 2
    go_back = [a["href"] for a in select(history, ".studio-versions a") if text_of(a) == "Go back to this…"]
    assert go_back == [reverse("studio:artifact_go_back", args=[older.pk])]  # not on the latest

    page = parse(logged_in_client.get(go_back[0]).content)
    message = textarea_value(one(page, "#restore-message"))
    assert SITE in message and f"1. “{SITE_CHANGE}”" in message and older.public_url in message
    key = one(page, "input[name=idempotency_key]")["value"]
    address = reverse("studio:artifact_go_back_send", args=[older.pk])
    response = logged_in_client.post(address, {"idempotency_key": key})
    logged_in_client.post(address, {"idempotency_key": key})  # a double click
    turns = TrackedOperation.objects.exclude(pk__in=[site["first"].pk, site["second"].pk])
    assert turns.count() == 1 and turns.get().context["message"] == message
    assert response["Location"] == reverse("studio:turn", args=[turns.get().pk])


def test_going_back_past_the_message_limit_is_refused_in_words(site, logged_in_client):
    older, newer = site["results"]
    TurnResult.objects.filter(pk=newer.pk).update(asked="more " * 900)
    page = parse(logged_in_client.get(reverse("studio:artifact_go_back", args=[older.pk])).content)
    assert "Nothing was sent" in text_of(one(page, ".alert-error"))
    response = logged_in_client.post(
        reverse("studio:artifact_go_back_send", args=[older.pk]), {"idempotency_key": new_idempotency_key()}
    )
    assert response.status_code == 400 and TrackedOperation.objects.count() == 2
