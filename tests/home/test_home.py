"""The home page as an overview, for each console role, against a real
sandbox over HTTP: what needs the person, what runs now, their recent
Studio conversations, runs that failed or wait, records they edited, and
quick actions only for those who may write. Remote calls and queries are
counted, never timed."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.api.testing import RemoteCallCounter
from dashboard.frame.areas import Area, register_area, unregister_area
from dashboard.inbox.models import WorkspaceRefresh
from dashboard.inbox.selectors import inbox_items
from dashboard.inbox.sources import InboxViewer
from objects.models import RecordChange
from tests.home.support import (
    ARTIFACT_NAME,
    RENAMED_TO,
    RUN_ERROR,
    SECTION_TITLES,
    TURN_TITLE,
    WRITE_ACTIONS,
    home_page,
    sandbox_ids,
    sandbox_person,
    section,
)
from tests.html import one, select, text_of, texts

# (console role, sandbox key kind, may write): the key's role narrows the
# console's (a Member with a workspace viewer's key only reads).
ROLES = [
    ("administrator", "demo", True),
    ("approver", "demo", True),
    ("member", "demo", True),
    ("auditor", "demo", False),
    ("viewer", "demo", False),
    ("member", "readonly", False),
]


def action_labels(page) -> list[str]:
    """Every quick action: links and the pickers' buttons."""
    actions = select(page, ".home-actions")
    if not actions:
        return []
    return texts(actions[0], ".home-actions__list > li > a, .home-actions__list summary")


def write_links(page) -> list[str]:
    """Links in the page's main area that start a write: a new record, a chat, a new turn."""
    main = one(page, "main")
    return [
        a["href"]
        for a in main.select("a[href]")
        if a["href"].endswith(("/records/new/", "/chat/")) or "#start-turn" in a["href"]
    ]


@pytest.mark.parametrize(("role", "kind", "may_write"), ROLES)
def test_each_role_sees_its_overview_and_only_writers_get_quick_actions(person, client, role, kind, may_write):
    user, key = person(f"pat-{role}-{kind}", role, kind)
    client.force_login(user)
    response = client.get(reverse("home"))
    assert response.status_code == 200
    page = home_page(response.content)

    assert texts(page, "section.home-section h2") == SECTION_TITLES

    # What needs you: the inbox's first items, as the inbox page lists them, each with its age.
    expected = inbox_items(viewer=InboxViewer(user=user, workspace_id=key.workspace_id))
    needs = section(page, "What needs you")
    rows = select(needs, "[data-home-item]")
    assert [row["data-home-item"] for row in rows] == [item.key for item in expected[:5]]
    assert any("Delete records in deals." in text_of(row) for row in rows)
    for row in rows:  # "waiting 5 days", or for a failure "failed 2 h ago"
        if row.select("time"):
            assert one(row, "time")["datetime"] and ("waiting" in text_of(row) or "failed" in text_of(row))
    assert one(needs, ".home-section__more a")["href"] == reverse("inbox:index")
    assert text_of(one(needs, ".home-section__more a")) == f"Open the inbox ({len(expected)} waiting)"

    # Running now: the turn still building, polled through the console.
    running = one(page, "section#home-running")
    assert texts(running, ".home-list__title") == [TURN_TITLE]
    assert running["hx-get"].startswith(reverse("home_running") + "?v=")
    assert running["hx-trigger"] == "every 3s"

    studio = section(page, "Your recent Studio conversations")
    assert texts(studio, ".home-list__title") == [ARTIFACT_NAME]
    assert "Website · 1 turn" in text_of(studio)

    runs = section(page, "Runs that failed or wait (last 24 hours)")
    failed = [row for row in select(runs, ".home-list__item") if RUN_ERROR in text_of(row)]
    assert len(failed) == 1 and "Lead qualifier" in text_of(failed[0]) and "Failed" in text_of(failed[0])

    # The record's title is what the person wrote into its title field (no title cached, no read per record).
    records = section(page, "Records you edited")
    link = one(records, ".home-list__title")
    assert text_of(link) == RENAMED_TO
    assert link["href"] == reverse("objects:record", args=["deals", sandbox_ids(key)["deal"]])
    assert "Deal · Edited" in text_of(records)

    # Quick actions for those who may write; nothing that writes for anyone else.
    if may_write:
        assert action_labels(page) == list(WRITE_ACTIONS)
        chat = one(page, ".home-actions details:has(summary:-soup-contains('Chat with an agent'))")
        # The agents the person wrote to lately come first (their latest message first); the refresh named them all.
        assert texts(chat, ".home-picker__menu a")[:3] == [
            "Weekly pipeline report",
            "Lead qualifier",
            "Customer FAQ helper",
        ]
    else:
        assert action_labels(page) == []
        assert write_links(page) == []

    # The areas stay below, compact.
    assert "Studio" in texts(page, ".home-areas .card-title")


@pytest.mark.parametrize(("role", "kind", "may_write"), [ROLES[2], ROLES[4]])
def test_one_remote_read_at_most_and_none_on_a_repeat_visit(person, client, role, kind, may_write):
    user, _ = person(f"rae-{role}", role, kind)
    client.force_login(user)
    with RemoteCallCounter() as first:
        client.get(reverse("home"))
    # The record's title needs the object's title field: the objects, read once.
    assert first.paths == ["/v1/objects"]
    with RemoteCallCounter() as repeat:
        client.get(reverse("home"))
        client.get(reverse("home"))
    assert repeat.paths == []


def test_the_home_page_counts_its_queries(person, client, django_assert_max_num_queries):
    """Everything on it comes from a fixed number of queries, whatever the
    amount of work: the frame's (session, user, key, permissions, console
    role, the switcher, the header's version and count), the inbox's items
    (stored rows, builder questions, dismissals, the person's work, their
    records' mentions and watched news: read once and shared by every
    section), the running rows, the stored runs, the
    records edited, and the version "What needs you" polls with (the
    header's version and whether the workspace was read: three)."""
    user, _ = person("quinn")
    client.force_login(user)
    client.get(reverse("home"))  # the objects' read, kept a minute; the header's count, kept under its version
    with django_assert_max_num_queries(22):
        client.get(reverse("home"))


def test_the_new_record_picker_loads_when_opened_then_shows_at_once(person, client):
    user, _ = person("pia", work=False)
    client.force_login(user)
    with RemoteCallCounter() as calls:
        page = home_page(client.get(reverse("home")).content)
    assert calls.paths == []  # nothing to title, and nobody opened the picker yet
    picker = one(page, ".home-actions details[hx-get]")
    assert text_of(one(picker, "summary")) == "New record"
    assert picker["hx-get"] == reverse("objects:home_picker") and picker["hx-trigger"] == "toggle once"
    # Without JavaScript it still leads somewhere: every object.
    assert texts(picker, ".home-picker__menu a") == ["All objects"]

    with RemoteCallCounter() as calls:
        menu = client.get(picker["hx-get"], HTTP_HX_REQUEST="true")
    assert calls.paths == ["/v1/objects"]
    choices = {text_of(a): a["href"] for a in select(menu.content, "a")}
    assert choices == {
        "Company": reverse("objects:record_new", args=["companies"]),
        "Contact": reverse("objects:record_new", args=["contacts"]),
        "Deal": reverse("objects:record_new", args=["deals"]),
        "All objects": reverse("objects:index"),
    }

    with RemoteCallCounter() as calls:
        page = home_page(client.get(reverse("home")).content)
    assert calls.paths == []
    picker = one(page, ".home-actions details:has(summary:-soup-contains('New record'))")
    assert not picker.has_attr("hx-get")
    assert texts(picker, ".home-picker__menu a") == ["Company", "Contact", "Deal", "All objects"]


def test_a_viewer_opening_the_picker_address_gets_no_choice_and_no_read(person, client):
    user, _ = person("vic", "viewer", work=False)
    client.force_login(user)
    with RemoteCallCounter() as calls:
        menu = client.get(reverse("objects:home_picker"), HTTP_HX_REQUEST="true")
    assert calls.paths == []
    assert texts(menu.content, "a") == ["All objects"]


def test_a_service_that_does_not_answer_leaves_the_home_page_standing(person, client, settings):
    user, _ = person("sam")
    settings.SERVICE_BASE_URL = "http://127.0.0.1:9"  # nothing listens: refused at once
    client.force_login(user)
    response = client.get(reverse("home"))
    assert response.status_code == 200
    page = home_page(response.content)
    # Without the object's definition the record is named by what it is and its id's start.
    deal = RecordChange.objects.get(user=user).record_id
    assert texts(section(page, "Records you edited"), ".home-list__title") == [f"deals {deal[:8]}"]
    # The picker asks again when opened, and says so if the service still does not answer.
    menu = client.get(reverse("objects:home_picker"), HTTP_HX_REQUEST="true")
    assert menu.status_code == 200
    assert "could not be read" in text_of(one(menu.content, ".home-picker__note"))
    assert texts(menu.content, "a") == ["All objects"]


def test_a_person_with_nothing_yet_is_told_what_will_appear(console, django_user_model, client):
    user, key = sandbox_person(django_user_model, console, username="nell", role="member", kind="demo")
    client.force_login(user)
    page = home_page(client.get(reverse("home")).content)
    assert texts(page, "section.home-section h2") == SECTION_TITLES
    # Before the inbox's first refresh of the workspace "nothing waits" would be a guess: the card is reading.
    needs = one(page, "section#home-needs-you")
    assert text_of(one(needs, "[data-home-reading]")).startswith("Reading the workspace…")
    assert needs["aria-busy"] == "true" and not select(needs, ".home-empty")
    # The workspace read once (and nothing in it waits): now the card says so.
    WorkspaceRefresh.objects.create(workspace_id=key.workspace_id, refreshed_at=timezone.now())
    page = home_page(client.get(reverse("home")).content)
    empty = texts(page, ".home-empty")
    assert empty[0].startswith("Nothing waits for you.")
    assert empty[1].startswith("Nothing of yours is running.")
    assert "appear here" in empty[2] and "appear here" in empty[3] and "appear in this list" in empty[4]
    # Nothing runs: nothing polls.
    assert not one(page, "section#home-running").has_attr("hx-get")


def test_an_area_whose_section_fails_is_left_out_and_the_page_stands(person, client, caplog):
    def broken(viewer):
        raise ValueError("a row of an unexpected shape")

    user, _ = person("bea", work=False)
    client.force_login(user)
    register_area(Area(name="broken", order=99, home_sections=(broken,)))
    try:
        response = client.get(reverse("home"))
    finally:
        unregister_area("broken")
    assert response.status_code == 200
    assert texts(home_page(response.content), "section.home-section h2") == SECTION_TITLES
    assert "home section" in caplog.text


def test_a_person_without_a_key_gets_the_prompt_and_the_areas_only(client, django_user_model, db):
    user = django_user_model.objects.create_user(username="kit", password="x" * 20)
    client.force_login(user)
    with RemoteCallCounter() as calls:
        page = home_page(client.get(reverse("home")).content)
    assert calls.paths == []
    assert select(page, "section.home-section") == [] and action_labels(page) == []
    assert "Add an API key to get started" in text_of(one(page, "main"))
    assert texts(page, "#home-areas-heading") == ["All areas"]
