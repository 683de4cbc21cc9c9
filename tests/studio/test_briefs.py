"""The team's brief library (issue #36, item 5; studio/briefs.py): saved
messages with `{{variables}}`, private or shared with the workspace,
versioned, found by the palette, and used by filling the variables into the
Studio's new-conversation form (nothing is sent from the brief itself).
Every page reads the console's database only."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from dashboard.api.testing import RemoteCallCounter
from studio.briefs import BriefRefused, brief_create, brief_filled, text_problem, variables_of
from studio.models import Brief, BriefVersion
from tests.html import one, select, text_of, texts
from tests.live.support import store_key

LAUNCH = "A launch site for {{product}}, written for {{ Audience }}.\nMention {{product}} in the title."


# --- the words -------------------------------------------------------------------


def test_variables_are_named_once_in_the_order_they_first_appear():
    assert variables_of(LAUNCH) == ["product", "Audience"]
    assert variables_of("{{ audience }} and {{AUDIENCE}} and {{Date of launch}}") == ["audience", "Date of launch"]
    assert variables_of("No variables, {single} braces") == []


def test_filling_replaces_every_use_whatever_the_case_and_spacing():
    filled = brief_filled(LAUNCH, {"product": "Trail Bike 2", "audience": "weekend riders"})
    assert filled == "A launch site for Trail Bike 2, written for weekend riders.\nMention Trail Bike 2 in the title."
    # A variable without a value stays as written (the form never sends one like that).
    assert brief_filled("Hello {{name}}", {}) == "Hello {{name}}"


@pytest.mark.parametrize(
    ("words", "studio", "said"),
    [
        ("", "", "Write the brief's words."),
        ("Price: {{}}", "", "“{{}}” is not a variable"),
        ("Price: {{ 42 }}", "", "“{{ 42 }}” is not a variable"),
        (" ".join(f"{{{{v{n}}}}}" for n in range(21)), "", "at most 20 variables"),
        ("x" * 3801, "website", "Website messages can be at most 3,800 characters"),
    ],
)
def test_words_that_cannot_be_a_brief_are_refused_in_words(words, studio, said):
    problem = text_problem(words, studio=studio)
    assert problem is not None and said in problem


def test_a_long_brief_fits_a_studio_that_takes_long_messages():
    assert text_problem("x" * 3801, studio="document") is None


# --- the pages -------------------------------------------------------------------


def test_a_brief_is_saved_used_with_its_variables_and_lands_in_the_studio_form(db, api_key, user, logged_in_client):
    made = logged_in_client.post(
        reverse("studio:brief_new"),
        {"name": "  Launch   site ", "studio": "website", "text": LAUNCH, "shared": "on"},
    )
    brief = Brief.objects.get()
    assert made.status_code == 302 and made["Location"] == reverse("studio:brief", args=[brief.pk])
    assert (brief.name, brief.workspace_id, brief.shared, brief.version) == (
        "Launch site",
        api_key.workspace_id,
        True,
        1,
    )
    assert list(brief.versions.values_list("number", "text")) == [(1, LAUNCH)]

    with RemoteCallCounter() as calls:
        listed = logged_in_client.get(reverse("studio:briefs")).content
        page = logged_in_client.get(reverse("studio:brief", args=[brief.pk])).content
        # One variable left empty: said in place, the other's value kept.
        missing = logged_in_client.post(reverse("studio:brief_use", args=[brief.pk]), {"v0": "Trail Bike 2", "v1": ""})
        used = logged_in_client.post(
            reverse("studio:brief_use", args=[brief.pk]), {"v0": "Trail Bike 2", "v1": "weekend riders"}
        )
    assert calls.count == 0  # the console's database only
    assert texts(listed, ".studio-briefs h3") == ["Launch site"]
    assert [label.get_text(strip=True) for label in select(page, "#use-heading ~ form label")] == [
        "product",
        "Audience",
    ]
    assert missing.status_code == 200
    assert one(missing.content, "input[name=v0]")["value"] == "Trail Bike 2"
    assert "required" in text_of(one(missing.content, "#id_v1_error")).lower()

    assert used.status_code == 200
    form = one(used.content, "#turn-form")
    # (A textarea's first newline is not its value: Django writes one, browsers drop it.)
    assert one(form, "textarea[name=message]").get_text().removeprefix("\n") == brief_filled(
        LAUNCH, {"product": "Trail Bike 2", "Audience": "weekend riders"}
    )
    assert one(form, "select[name=studio] option[selected]")["value"] == "website"
    assert "Launch site" in text_of(one(form, "[role=status]"))


def test_an_edit_is_a_new_version_and_only_its_maker_changes_who_sees_it(
    db, api_key, user, django_user_model, logged_in_client
):
    brief = brief_create(
        workspace_id=api_key.workspace_id,
        user_id=user.pk,
        name="Deck",
        text="A deck on {{topic}}",
        studio="",
        shared=True,
    )
    teammate = django_user_model.objects.create_user(username="carol", password="a long passphrase here")
    store_key(teammate, "svc_sk_teammate_0123456789abcdef", "Acme Marketing")  # the same workspace
    client = Client()  # a browser of their own (logged_in_client stays alice's)
    client.force_login(teammate)
    edit = reverse("studio:brief_edit", args=[brief.pk])
    # A teammate edits the words (version 2, theirs); the "shared" box is not theirs to untick.
    saved = client.post(edit, {"name": "Deck", "studio": "document", "text": "A ten-slide deck on {{topic}}"})
    brief.refresh_from_db()
    assert saved.status_code == 302 and (brief.version, brief.studio, brief.shared) == (2, "document", True)
    assert list(brief.versions.values_list("number", "made_by__username")) == [(2, "carol"), (1, "alice")]
    assert not select(client.get(reverse("studio:brief", args=[brief.pk])).content, "input[name=shared]")
    # The same words again: no new version.
    client.post(edit, {"name": "Deck", "studio": "document", "text": "A ten-slide deck on {{topic}}"})
    assert BriefVersion.objects.filter(brief=brief).count() == 2
    # Bad words: said on the field, what was typed kept, nothing saved.
    refused = client.post(edit, {"name": "Deck", "studio": "document", "text": "A deck on {{ }} soon"})
    assert refused.status_code == 200
    assert "is not a variable" in text_of(one(refused.content, "#id_text_error"))
    assert one(refused.content, "textarea[name=text]").get_text().strip() == "A deck on {{ }} soon"
    # Only the maker or an Administrator removes it.
    client.post(reverse("studio:brief_delete", args=[brief.pk]))
    assert Brief.objects.filter(pk=brief.pk).exists()
    logged_in_client.post(reverse("studio:brief_delete", args=[brief.pk]))
    assert not Brief.objects.filter(pk=brief.pk).exists()


def test_private_briefs_stay_with_their_maker_and_no_brief_crosses_workspaces(
    db, api_key, user, other_user, client, django_user_model
):
    mine = brief_create(
        workspace_id=api_key.workspace_id, user_id=user.pk, name="Mine", text="Private words", studio="", shared=False
    )
    shared = brief_create(
        workspace_id=api_key.workspace_id, user_id=user.pk, name="Team", text="Team words", studio="", shared=True
    )
    teammate = django_user_model.objects.create_user(username="carol", password="a long passphrase here")
    store_key(teammate, "svc_sk_teammate_0123456789abcdef", "Acme Marketing")
    client.force_login(teammate)
    assert texts(client.get(reverse("studio:briefs")).content, ".studio-briefs h3") == ["Team"]
    assert client.get(reverse("studio:brief", args=[mine.pk])).status_code == 404
    assert client.get(reverse("studio:brief", args=[shared.pk])).status_code == 200

    store_key(other_user, "svc_sk_other_0123456789abcdefgh", "Globex Research")
    client.force_login(other_user)
    assert not select(client.get(reverse("studio:briefs")).content, ".studio-briefs h3")
    assert client.get(reverse("studio:brief", args=[shared.pk])).status_code == 404
    assert client.post(reverse("studio:brief_use", args=[shared.pk])).status_code == 404
    assert client.post(reverse("studio:brief_delete", args=[shared.pk])).status_code == 404
    assert Brief.objects.count() == 2


def test_a_viewer_reads_briefs_but_cannot_save_or_use_one(db, api_key, user, logged_in_client):
    brief = brief_create(
        workspace_id=api_key.workspace_id, user_id=user.pk, name="Team", text="Words", studio="", shared=True
    )
    api_key.member_role = "viewer"
    api_key.save()
    assert not select(logged_in_client.get(reverse("studio:briefs")).content, "main form[method=post]")
    assert not select(logged_in_client.get(reverse("studio:brief", args=[brief.pk])).content, "main form")
    assert logged_in_client.post(reverse("studio:brief_new"), {"name": "x", "text": "y"}).status_code == 403
    assert logged_in_client.post(reverse("studio:brief_use", args=[brief.pk])).status_code == 403
    assert Brief.objects.count() == 1


def test_the_list_is_searched_and_its_queries_stay_flat_as_briefs_grow(
    db, api_key, user, logged_in_client, django_assert_max_num_queries
):
    def seed(count: int, start: int = 0) -> None:
        Brief.objects.bulk_create(
            Brief(
                workspace_id=api_key.workspace_id,
                created_by=user,
                name=f"Brief {n:04d}",
                text=f"Words {n}",
                shared=True,
            )
            for n in range(start, start + count)
        )

    seed(50)
    with RemoteCallCounter() as calls:
        logged_in_client.get(reverse("studio:briefs"))  # warm
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as at_fifty:
            logged_in_client.get(reverse("studio:briefs"))
        seed(450, start=50)
        with CaptureQueriesContext(connection) as at_five_hundred:
            page = logged_in_client.get(reverse("studio:briefs")).content
    assert calls.count == 0
    assert len(at_five_hundred) == len(at_fifty)
    assert len(select(page, ".studio-briefs > li")) == 500
    found = logged_in_client.get(reverse("studio:briefs"), {"q": "brief 0042"}).content
    assert texts(found, ".studio-briefs h3") == ["Brief 0042"]


def test_a_blank_name_is_refused():
    with pytest.raises(BriefRefused, match="Give the brief a name"):
        brief_create(workspace_id="ws", user_id=1, name=" ", text="x", studio="", shared=False)
