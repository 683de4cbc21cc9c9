"""The People page: who may see it, what each row says, search and paging,
and a fixed number of queries whatever the page's length."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from dashboard.accounts.models import Passkey
from dashboard.keys.testing import stored_api_key
from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.html import one, select, text_of, texts

pytestmark = pytest.mark.django_db


def make_people(django_user_model, count: int, *, prefix: str = "person") -> list:
    people = []
    for index in range(count):
        user = django_user_model.objects.create_user(username=f"{prefix}{index:02d}", email=f"{prefix}{index}@x.org")
        Person.objects.create(user=user, role=Role.MEMBER)
        people.append(user)
    return people


def test_a_member_is_told_who_may_manage_people(client, django_user_model):
    member = django_user_model.objects.create_user(username="meg")
    Person.objects.create(user=member, role=Role.MEMBER)
    client.force_login(member)

    response = client.get(reverse("people:index"))

    assert response.status_code == 403
    assert text_of(one(response.content, "h1")) == "Not allowed"
    assert "Administrators" in text_of(one(response.content, "main"))


def test_rows_say_role_status_sign_in_second_factor_and_how_many_keys(admin_client, admin, django_user_model):
    gone = django_user_model.objects.create_user(username="zed", email="zed@example.com", is_active=False)
    Person.objects.create(user=gone, role=Role.AUDITOR)
    stored_api_key(user=gone, secret="svc_sk_live_secretvalue1234")
    stored_api_key(user=gone, secret="svc_sk_live_secretvalue5678", key_id="k2", is_active=False)
    Passkey.objects.create(user=gone, name="Laptop", credential_id="cred-zed", public_key=b"\x01")

    response = admin_client.get(reverse("people:index"))

    assert response.status_code == 200
    rows = {
        text_of(one(row, "th")).split()[0]: texts(row, "td") for row in select(response.content, "#people tbody tr")
    }
    assert rows["ada"] == ["Administrator", "active", "now", "off", "0", "0"]  # force_login signed her in
    assert rows["zed"] == ["Auditor", "deactivated", "never", "passkey", "2", "0"]
    # Keys are counted, never shown.
    assert "svc_sk_live" not in response.content.decode()


def test_the_nav_and_the_home_card_are_for_administrators_only(admin_client, client, django_user_model):
    assert "People" in texts(admin_client.get(reverse("home")).content, "nav.main-nav a")
    member = django_user_model.objects.create_user(username="meg")
    client.force_login(member)
    assert "People" not in texts(client.get(reverse("home")).content, "nav.main-nav a")


def test_search_by_name_email_or_username(admin_client, django_user_model):
    make_people(django_user_model, 3)
    django_user_model.objects.create_user(username="grace", email="g.hopper@navy.mil", first_name="Grace")

    by_email = admin_client.get(reverse("people:index"), {"q": "navy"})
    by_name = admin_client.get(reverse("people:index"), {"q": "grace"})

    assert [text_of(cell).split()[0] for cell in select(by_email.content, "#people tbody th")] == ["Grace"]
    assert [text_of(cell).split()[0] for cell in select(by_name.content, "#people tbody th")] == ["Grace"]


def test_paging_walks_every_person_once(admin_client, django_user_model, monkeypatch):
    monkeypatch.setattr("dashboard.people.views.PAGE_SIZE", 4)
    make_people(django_user_model, 9)
    seen: list[str] = []
    url = reverse("people:index")
    while url:
        response = admin_client.get(url)
        seen += [cell.select_one("a")["href"] for cell in select(response.content, "#people tbody th")]
        following = select(response.content, "#people nav.pager a[rel=next]")
        url = reverse("people:index") + following[0]["href"] if following else ""
    assert len(seen) == 10 and len(set(seen)) == 10


def test_a_search_result_swaps_only_the_list(admin_client):
    response = admin_client.get(reverse("people:index"), {"q": "ada"}, HTTP_HX_REQUEST="true")
    from tests.html import root_ids

    assert root_ids(response.content) == ["div#people"]


def test_the_page_costs_the_same_queries_for_3_or_30_people(admin_client, django_user_model):
    make_people(django_user_model, 3, prefix="few")
    with CaptureQueriesContext(connection) as few:
        assert admin_client.get(reverse("people:index")).status_code == 200
    for user in make_people(django_user_model, 27, prefix="many"):
        stored_api_key(user=user, secret=f"svc_sk_live_secret{user.pk:08d}")
    with CaptureQueriesContext(connection) as many:
        response = admin_client.get(reverse("people:index"))
    assert len(select(response.content, "#people tbody tr")) == 31
    assert len(many.captured_queries) == len(few.captured_queries)


def test_a_persons_tokens_are_counted_and_their_link_lists_them_for_an_administrator_to_revoke(
    admin_client, admin, django_user_model
):
    from dashboard.tokens.models import AccessToken
    from dashboard.tokens.services import token_create, token_revoke

    dana = django_user_model.objects.create_user(username="dana")
    Person.objects.create(user=dana, role=Role.MEMBER)
    key = stored_api_key(user=dana, secret="svc_sk_live_danakey12345678")
    stored_api_key(user=dana, secret="svc_sk_live_danakey87654321", key_id="k2")  # two keys, two tokens: no multiplying
    kept = [
        token_create(user=dana, workspace_id=key.workspace_id, name=name, scopes=["read"], days=7, allowed_from=[]).row
        for name in ("Script", "IDE", "Old")
    ]
    token_revoke(token=kept[2], by=dana)

    page = admin_client.get(reverse("people:index")).content
    row = next(r for r in select(page, "#people tbody tr") if text_of(one(r, "th")).startswith("dana"))
    assert texts(row, "td")[-2:] == ["2", "2"]  # stored keys, tokens not revoked
    link = one(row, "td[data-label=Tokens] a")
    listed = admin_client.get(link["href"].split("#")[0]).content
    assert text_of(one(listed, "#everyone-heading")) == "Tokens of dana"
    assert len(select(listed, "#everyone-heading ~ * tbody tr")) == 2
    admin_client.post(reverse("tokens:revoke", args=[kept[0].pk]))
    assert AccessToken.objects.get(pk=kept[0].pk).revoked_at is not None


def test_each_row_shows_the_roles_per_workspace_beside_the_default_in_flat_queries(admin_client, django_user_model):
    """ "Viewer; Approver in Marketing": the workspace roles of every row in one
    query for the page, whether 2 or 50 people have them."""
    from dashboard.people.backends import person_workspace_role_set

    stored_api_key(
        user=django_user_model.objects.create_user(username="keeper"),
        secret="svc_sk_live_keeper00001",
        workspace_id="ws-m",
        workspace_name="Marketing",
    )

    def with_roles(people: list) -> None:
        for user in people:
            Person.objects.filter(user=user).update(role=Role.VIEWER)
            person_workspace_role_set(user=user, workspace_id="ws-m", role=Role.APPROVER)
            person_workspace_role_set(user=user, workspace_id="ws-s", role=Role.MEMBER)  # no key: named by its id

    with_roles(make_people(django_user_model, 2, prefix="few"))
    with CaptureQueriesContext(connection) as few:
        assert admin_client.get(reverse("people:index")).status_code == 200
    with_roles(make_people(django_user_model, 46, prefix="many"))
    with CaptureQueriesContext(connection) as many:
        response = admin_client.get(reverse("people:index"))

    rows = {
        text_of(one(row, "th")).split()[0]: texts(row, "td") for row in select(response.content, "#people tbody tr")
    }
    assert len(rows) == 50
    assert rows["few00"][0] == "Viewer; Approver in Marketing; Member in ws-s"
    assert rows["many45"][0] == "Viewer; Approver in Marketing; Member in ws-s"
    assert rows["ada"][0] == "Administrator"  # none of her own: her default alone
    assert len(many.captured_queries) == len(few.captured_queries)
