"""Comments on records, @mentions and watching (objects/comments.py) against a
mocked service (respx): markdown shown sanitised, posting with htmx and
without JavaScript, editing and deleting one's own (an Administrator any),
mentions resolved to people holding a working key of the workspace (an
inbox item at once, a notification by their preferences), watchers told of
comments and of console edits, everything by the workspace of the key, and
the record page's queries flat with 50 comments."""

from __future__ import annotations

import httpx
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.inbox.selectors import header_version, inbox_items
from dashboard.inbox.sources import KIND_RECORD, InboxViewer
from dashboard.keys.models import ApiKey
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from dashboard.reach.models import Delivery, NotificationPreference
from objects import comments
from objects.models import RecordComment, RecordNews, RecordWatch
from tests.html import form_values, one, parse, select, text_of, texts
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, RECORD_ID
from tests.objects.support import WORKSPACE_ID, comment_on_record, store_api_key

pytestmark = pytest.mark.django_db

RECORD_URL = f"/objects/{OBJECT_KEY}/records/{RECORD_ID}/"
RECORD_PATH = f"/v1/objects/{OBJECT_KEY}/records/{RECORD_ID}"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def service(remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    remote.get(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(200, json={"data": []}))
    return remote


@pytest.fixture
def bob(other_user):
    store_api_key(other_user, "svc_sk_bob00123456789abcdefghijklmnopqrstuvwxyzABCD")
    return other_user


def _as(person) -> Client:
    client = Client()
    client.force_login(person)
    return client


def _post(client, body: str, **extra):
    return client.post(f"{RECORD_URL}comments/", {"body": body}, **extra)


_comment = comment_on_record


# --- the pure parts ---------------------------------------------------------------


def test_mentions_are_usernames_after_an_at_sign_not_email_addresses():
    body = "Thanks @Dana and @bob.lee. Mail ops@example.com, cc @dana again, `@x`"
    assert comments.mentioned_names(body) == ["dana", "bob.lee", "x"]


def test_mentions_resolve_only_to_people_holding_a_working_key(user, bob, django_user_model):
    django_user_model.objects.create_user(username="carol", password="a long passphrase here")
    stranger = django_user_model.objects.create_user(username="dave", password="a long passphrase here")
    store_api_key(stranger, "svc_sk_dave0123456789abcdefghijklmnopqrstuvwxyzABCD", workspace_id="ws-elsewhere")
    store_api_key(user)

    found = comments.mentioned_people(workspace_id=WORKSPACE_ID, body="@bob @carol @dave @alice")

    assert sorted(person.get_username() for person in found) == ["alice", "bob"]


# --- posting and showing --------------------------------------------------------------


def test_a_comment_is_shown_as_sanitised_markdown(console, service, user):
    body = "**Bold** and [a link](https://example.com) <script>alert(1)</script> [x](javascript:alert(2))"
    response = _post(console, body, follow=True)

    shown = one(response.content.decode(), "#comments .comment-body")
    assert text_of(one(shown, "strong")) == "Bold"
    assert one(shown, "a[href='https://example.com']")["rel"] == ["noopener", "noreferrer", "nofollow"]
    assert not select(shown, "script")
    assert not [a for a in select(shown, "a") if "javascript" in a.get("href", "")]
    assert "alert(1)" in text_of(shown)  # shown as text, never run
    assert RecordComment.objects.get().body == body


def test_posting_without_javascript_goes_back_to_the_comment(console, service):
    response = _post(console, "First!")

    made = RecordComment.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"{RECORD_URL}#comment-{made.pk}"


def test_posting_with_htmx_answers_the_region_with_the_comment(console, service):
    response = _post(console, "In place", **HTMX)

    html = response.content.decode()
    assert one(html, "section#comments")
    assert texts(html, ".comment-body") == ["In place"]
    assert not select(html, "h1")  # the region only


def test_an_empty_comment_is_refused_in_place(console, service):
    response = _post(console, "   ", **HTMX)

    assert RecordComment.objects.count() == 0
    error = one(response.content.decode(), "#comment-form .field-error")
    assert "empty" in text_of(error)


def test_a_viewer_reads_comments_but_may_not_post(console, service, user, bob):
    _comment(bob, "From Bob")
    person_role_set(user=user, role=Role.VIEWER)

    page = console.get(RECORD_URL).content.decode()
    refused = _post(console, "Mine")

    assert texts(page, "#comments .comment-body") == ["From Bob"]
    assert not select(page, "#comment-form")
    assert "writes" in text_of(one(page, "#comments"))
    assert refused.status_code == 403
    assert RecordComment.objects.count() == 1


# --- edit and delete ---------------------------------------------------------------------


def test_the_author_edits_their_comment_in_place(console, service, user):
    mine = _comment(user, "Draft")

    form = console.get(f"{RECORD_URL}comments/{mine.pk}/edit/", **HTMX).content.decode()
    saved = console.post(f"{RECORD_URL}comments/{mine.pk}/edit/", {f"edit-{mine.pk}-body": "Final"}, **HTMX)

    assert one(form, f"#comment-{mine.pk} textarea").text.strip() == "Draft"
    assert texts(saved.content.decode(), ".comment-body") == ["Final"]
    mine.refresh_from_db()
    assert (mine.body, mine.edited_at is not None) == ("Final", True)


def test_nobody_edits_or_deletes_another_s_comment_but_an_administrator_deletes(console, service, user, bob):
    theirs = _comment(bob, "Bob's words")
    person_role_set(user=user, role=Role.MEMBER)

    page = console.get(RECORD_URL).content.decode()
    edit = console.post(f"{RECORD_URL}comments/{theirs.pk}/edit/", {f"edit-{theirs.pk}-body": "Mine now"})
    delete = console.post(f"{RECORD_URL}comments/{theirs.pk}/delete/")

    assert not select(page, f"#comment-{theirs.pk} .comment-actions")
    assert (edit.status_code, delete.status_code) == (403, 403)
    assert RecordComment.objects.get().body == "Bob's words"

    person_role_set(user=user, role=Role.ADMINISTRATOR)
    page = console.get(RECORD_URL).content.decode()
    assert texts(page, f"#comment-{theirs.pk} .comment-actions button") == ["Delete"]
    assert not select(page, f"#comment-{theirs.pk} .comment-actions a")  # no Edit: their words stay theirs
    assert console.post(f"{RECORD_URL}comments/{theirs.pk}/delete/").status_code == 302
    assert RecordComment.objects.count() == 0


def test_a_viewer_still_deletes_their_own_comment(console, service, user):
    mine = _comment(user)
    person_role_set(user=user, role=Role.VIEWER)

    response = console.post(f"{RECORD_URL}comments/{mine.pk}/delete/", **HTMX)

    assert response.status_code == 200
    assert RecordComment.objects.count() == 0


# --- access follows the key ----------------------------------------------------------------


def test_comments_of_another_workspace_are_never_shown_nor_reached(console, service, user):
    _comment(user, "Elsewhere", workspace_id="ws-other")

    page = console.get(RECORD_URL).content.decode()
    other = RecordComment.objects.get()
    delete = console.post(f"{RECORD_URL}comments/{other.pk}/delete/")

    assert not select(page, ".comment-body")
    assert delete.status_code == 404
    assert RecordComment.objects.count() == 1


def test_a_refused_key_shows_no_comment(console, service, api_key, user):
    _comment(user, "Secret plans")
    api_key.refused_at = api_key.created_at
    api_key.save(update_fields=["refused_at"])

    page = console.get(RECORD_URL).content.decode()

    assert "Secret plans" not in page


# --- mentions and watching reach the inbox ----------------------------------------------------


def test_a_mention_is_in_the_inbox_at_once_and_notified_by_preferences(console, service, bob):
    NotificationPreference.objects.create(user=bob, my_work_needs_me=True, by_email=True)
    bob.email = "bob@example.com"
    bob.save(update_fields=["email"])

    _post(console, "What do you think, @bob?")

    made = RecordComment.objects.get()
    inbox = _as(bob).get("/inbox/").content.decode()
    item = one(inbox, "li[data-kind='record']")
    link = one(item, "a.inbox-item__title")
    assert text_of(link) == "alice mentioned you on Acme renewal"
    assert link["href"] == f"{RECORD_URL}#comment-{made.pk}"
    delivery = Delivery.objects.get(user=bob)
    assert (delivery.kind, delivery.title, delivery.channel) == (
        "mention",
        "alice mentioned you on Acme renewal",
        "email",
    )


def test_the_same_form_sent_twice_makes_one_comment_and_tells_once(console, service, bob):
    """A double click, or a resend after a lost answer: the form's own id
    (its hidden `uid`, fresh on every new form) finds the first comment."""
    page = console.get(RECORD_URL).content.decode()
    sent = {**form_values(one(page, "#comment-form")), "body": "Twice, @bob?"}

    first = console.post(f"{RECORD_URL}comments/", sent)
    again = console.post(f"{RECORD_URL}comments/", sent)

    made = RecordComment.objects.get()
    assert first["Location"] == again["Location"] == f"{RECORD_URL}#comment-{made.pk}"
    assert RecordNews.objects.filter(user=bob).count() == 1
    # The region after a post holds a new form: its next comment is another one.
    after = _post(console, "Another", **HTMX).content.decode()
    assert form_values(one(after, "#comment-form"))["uid"] != sent["uid"]


def test_a_mention_without_saved_preferences_makes_no_notification(console, service, bob):
    _post(console, "@bob see this")

    assert RecordNews.objects.filter(user=bob, kind=RecordNews.Kind.MENTION).count() == 1
    assert Delivery.objects.count() == 0


def test_opening_the_record_settles_its_items(console, service, bob):
    _post(console, "@bob look")
    viewer = InboxViewer(user=bob, workspace_id=WORKSPACE_ID)
    assert [item.kind for item in inbox_items(viewer=viewer)] == [KIND_RECORD]

    _as(bob).get(RECORD_URL)

    assert inbox_items(viewer=InboxViewer(user=bob, workspace_id=WORKSPACE_ID)) == []


def test_watchers_hear_of_new_comments_but_not_their_own(console, service, user, bob):
    bob_client = _as(bob)
    assert bob_client.post(f"{RECORD_URL}watch/", {"on": "1"}).status_code == 302
    page = bob_client.get(RECORD_URL).content.decode()
    assert one(page, ".watch-form button")["aria-pressed"] == "true"

    _post(console, "News for watchers")
    _post(bob_client, "Bob's own reply")

    titles = [row.title for row in RecordNews.objects.filter(user=bob)]
    assert titles == ["alice commented on Acme renewal"]
    assert not RecordNews.objects.filter(user=user).exists()


def test_a_console_edit_reaches_watchers(console, service, user, bob):
    RecordWatch.objects.create(
        user=bob, workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, record_id=RECORD_ID, record_title="Acme renewal"
    )
    service.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    form = parse(console.get(f"{RECORD_URL}edit/").content.decode())
    values = form_values(one(form, "form.record-form"))
    values["seats"] = "12"

    response = console.post(f"{RECORD_URL}edit/", values)

    assert response.status_code in (200, 302)
    news = RecordNews.objects.get(user=bob)
    assert (news.kind, news.title) == ("change", "alice changed Acme renewal (edited)")
    item = inbox_items(viewer=InboxViewer(user=bob, workspace_id=WORKSPACE_ID))[0]
    assert item.url == f"{RECORD_URL}#history"


def test_stopping_watching_ends_the_items(console, service, user, bob):
    bob_client = _as(bob)
    bob_client.post(f"{RECORD_URL}watch/", {"on": "1"}, **HTMX)
    answer = bob_client.post(f"{RECORD_URL}watch/", {"on": "0"}, **HTMX).content.decode()

    _post(console, "Anyone?")

    assert one(answer, ".watch-form button")["aria-pressed"] == "false"
    assert not RecordNews.objects.filter(user=bob).exists()


# --- cost ---------------------------------------------------------------------------------------


def test_the_record_page_s_queries_are_flat_with_50_comments(console, service, user, bob):
    _comment(bob, "One")
    console.get(RECORD_URL)  # the caches warm
    with CaptureQueriesContext(connection) as one_comment:
        console.get(RECORD_URL)
    for n in range(49):
        _comment(bob if n % 2 else user, f"Comment **{n}** @bob")
    with CaptureQueriesContext(connection) as fifty:
        page = console.get(RECORD_URL).content.decode()

    assert len(select(page, "#comments .comment")) == 50
    assert len(fifty) == len(one_comment)


def test_a_mention_changes_the_header_s_version_so_its_next_poll_counts_it(
    console, service, bob, django_capture_on_commit_callbacks
):
    before = header_version(user=bob)
    header = _as(bob).get("/inbox/header").content.decode()
    assert one(header, "#inbox-header")["data-inbox-count"] == "0"

    # The mark is renewed once the comment is committed: a poll never counts before it can see it.
    with django_capture_on_commit_callbacks(execute=True):
        _post(console, "@bob, one for you")

    assert header_version(user=bob) != before
    header = _as(bob).get("/inbox/header").content.decode()
    assert one(header, "#inbox-header")["data-inbox-count"] == "1"


def test_a_watcher_whose_key_was_refused_hears_nothing(console, service, bob):
    RecordWatch.objects.create(user=bob, workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, record_id=RECORD_ID)
    ApiKey.objects.filter(user=bob).update(refused_at=timezone.now())

    _post(console, "Only for people with a working key, @bob")

    assert not RecordNews.objects.filter(user=bob).exists()


def test_a_deleted_comment_takes_its_inbox_items_with_it(console, service, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        _post(console, "@bob a typo")
    made = RecordComment.objects.get()
    before = header_version(user=bob)
    with django_capture_on_commit_callbacks(execute=True):
        console.post(f"{RECORD_URL}comments/{made.pk}/delete/")

    assert not RecordNews.objects.exists()
    assert header_version(user=bob) != before


# --- @-mention suggestions --------------------------------------------------------------


def test_the_comment_box_offers_only_people_holding_a_working_key(console, service, user, bob, django_user_model):
    django_user_model.objects.create_user(username="bea", password="no key of this workspace at all")
    bob.first_name, bob.last_name = "Robert", "Stone"
    bob.save(update_fields=["first_name", "last_name"])
    people_url = one(console.get(RECORD_URL).content.decode(), "[data-mention-query]")["hx-get"]

    by_letter = console.get(people_url, {"q": "b"}, **HTMX).content.decode()
    by_name = console.get(people_url, {"q": "sto"}, **HTMX).content.decode()
    everyone = console.get(people_url, {"q": ""}, **HTMX).content.decode()

    assert [o["data-mention"] for o in select(by_letter, "[role=option]")] == ["bob"]  # never Bea: no key
    assert texts(by_name, "[role=option]") == ["Robert Stone @bob"]
    assert [o["data-mention"] for o in select(everyone, "[role=option]")] == ["alice", "bob"]
    assert select(console.get(people_url, {"q": "zz"}, **HTMX).content.decode(), "[role=option]") == []


def test_the_suggestions_are_of_the_workspace_of_the_key_and_cost_flat_queries(console, service, user, bob):
    page = console.get(RECORD_URL).content.decode()
    people_url = one(page, "[data-mention-query]")["hx-get"]
    console.get(people_url, {"q": "a"}, **HTMX)
    with CaptureQueriesContext(connection) as two_people:
        console.get(people_url, {"q": "a"}, **HTMX)
    ApiKey.objects.filter(user=bob).update(refused_at=timezone.now())  # Bob's key refused: no longer offered
    with CaptureQueriesContext(connection) as one_person:
        answer = console.get(people_url, {"q": ""}, **HTMX).content.decode()
    assert [o["data-mention"] for o in select(answer, "[role=option]")] == ["alice"]
    assert len(one_person) == len(two_people)
