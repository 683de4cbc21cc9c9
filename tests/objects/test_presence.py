"""Presence on records (objects/presence.py): heartbeats, expiry, oneself
left out, a page left ends at once, access by the key's workspace; the poll
(the page's heartbeat) as parsed HTML, 204 while unchanged, and its queries
flat however many people are there."""

from __future__ import annotations

import json
from datetime import timedelta

import httpx
import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.accounts.middleware import is_background
from objects import presence
from objects.models import RecordPresence
from objects.selectors import object_definition_cache_key
from objects.views import presence as presence_views
from tests.html import one, select, text_of, texts
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, RECORD_ID
from tests.objects.support import WORKSPACE_ID, store_api_key

pytestmark = pytest.mark.django_db

OTHER_RECORD = "7a1c2d3e-0000-4000-8000-0000000000a2"
POLL_URL = f"/objects/{OBJECT_KEY}/presence/"
LEAVE_URL = "/objects/presence/leave/"
RECORD_URL = f"/objects/{OBJECT_KEY}/records/{RECORD_ID}/"
RECORD_PATH = f"/v1/objects/{OBJECT_KEY}/records/{RECORD_ID}"


def token(n: int = 0) -> str:
    return f"page-token-{n:06d}-abcdef"


def beat(user, *, n: int = 0, record_id: str = RECORD_ID, field_key: str = "", workspace_id=WORKSPACE_ID, ago=0.0):
    presence.presence_beat(
        user=user,
        token=token(n),
        workspace_id=workspace_id,
        object_key=OBJECT_KEY,
        record_id=record_id,
        field_key=field_key,
        now=timezone.now() - timedelta(seconds=ago),
    )


def others(viewer, record_id: str = RECORD_ID, workspace_id: str = WORKSPACE_ID) -> list[str]:
    found = presence.presence_of_others(
        viewer=viewer, workspace_id=workspace_id, object_key=OBJECT_KEY, record_id=record_id
    )
    return [present.words for present in found.people]


@pytest.fixture
def definition_cached():
    cache.set(object_definition_cache_key(workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY), DEALS, 60)


@pytest.fixture
def dana(django_user_model):
    return django_user_model.objects.create_user(
        username="dana", first_name="Dana", last_name="Scully", password="a long enough passphrase"
    )


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# ---- the store ----


def test_others_see_a_beat_and_oneself_is_left_out(user, dana):
    beat(dana, n=1)
    beat(user, n=2)
    assert others(user) == ["Dana Scully is viewing"]
    assert others(dana) == ["alice is viewing"]  # a person without a name by their username


def test_a_page_that_stops_beating_is_gone_within_seconds(user, dana):
    beat(dana, ago=presence.PRESENCE_SECONDS - 1)
    assert others(user) == ["Dana Scully is viewing"]
    beat(dana, ago=presence.PRESENCE_SECONDS + 1)
    assert others(user) == []


def test_leaving_ends_it_at_once_and_only_ones_own_page(user, dana):
    beat(dana, n=1)
    assert presence.presence_end(user=user, token=token(1)) == 0  # someone else's token: nothing
    assert others(user) == ["Dana Scully is viewing"]
    assert presence.presence_end(user=dana, token=token(1)) == 1
    assert others(user) == []


def test_editing_names_the_field_from_the_cached_definition(user, dana, definition_cached):
    beat(dana, field_key="amount")
    assert others(user) == ["Dana Scully is editing Amount"]
    beat(dana, field_key="no_such_field")
    assert others(user) == ["Dana Scully is viewing"]


def test_two_tabs_of_one_person_are_one_entry_editing_first(user, dana, definition_cached):
    beat(dana, n=1)
    beat(dana, n=2, field_key="seats")
    assert others(user) == ["Dana Scully is editing Seats"]
    presence.presence_end(user=dana, token=token(2))
    assert others(user) == ["Dana Scully is viewing"]  # the other tab is still open


def test_the_grid_sees_every_record_of_the_object_and_a_page_without_one_leaves(user, dana, other_user):
    beat(dana, n=1, record_id=RECORD_ID)
    beat(other_user, n=2, record_id=OTHER_RECORD)
    found = presence.presence_of_others(viewer=user, workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY)
    assert {rid: [p.words for p in people] for rid, people in found.by_record.items()} == {
        RECORD_ID: ["Dana Scully is viewing"],
        OTHER_RECORD: ["bob is viewing"],
    }
    assert found.names == ["bob", "Dana Scully"]
    beat(other_user, n=2, record_id="")  # the grid's editor closed: no record open
    assert others(user, OTHER_RECORD) == []


def test_presence_of_one_workspace_is_not_shown_in_another(user, dana):
    beat(dana, workspace_id="ws-elsewhere")
    assert others(user) == []
    assert others(user, workspace_id="ws-elsewhere") == ["Dana Scully is viewing"]
    assert presence.presence_of_others(viewer=user, workspace_id="", object_key=OBJECT_KEY).people == ()


def test_the_version_changes_with_who_is_there_and_what_they_edit(user, dana, definition_cached):
    def version():
        return presence.presence_of_others(
            viewer=user, workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, record_id=RECORD_ID
        ).version

    empty = version()
    beat(dana)
    viewing = version()
    beat(dana)  # a new beat alone changes nothing shown
    assert version() == viewing
    beat(dana, field_key="amount")
    assert len({empty, viewing, version()}) == 3


def test_rows_long_past_are_pruned(dana):
    beat(dana, n=1, ago=presence.PRESENCE_KEEP_SECONDS + 5)
    beat(dana, n=2)
    assert presence.presence_prune() == 1
    assert list(RecordPresence.objects.values_list("token", flat=True)) == [token(2)]


def test_only_tokens_a_page_could_have_made_are_taken():
    assert presence.valid_token(presence.presence_token())
    assert presence.valid_token("short") == ""
    assert presence.valid_token("a" * 16 + "/../" + "b" * 8) == ""


# ---- the poll and the beacon ----


def poll(client, *, of: str = RECORD_ID, v: str = "", n: int = 0, **data):
    query = "&".join(part for part in (f"of={of}" if of else "", f"v={v}" if v else "") if part)
    return client.post(f"{POLL_URL}?{query}", {"token": token(n), **data}, HTTP_HX_REQUEST="true")


def test_both_views_are_background_posts():
    assert is_background(presence_views.presence) and is_background(presence_views.presence_leave)


def test_the_record_page_has_its_presence_region_with_its_own_token(user, logged_in_client, remote):
    store_api_key(user)
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    remote.get(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(200, json={"data": []}))
    html = logged_in_client.get(RECORD_URL).content.decode()
    region = one(html, "#presence[data-presence]")
    assert presence.valid_token(region["data-presence-token"])
    assert region["data-presence-record"] == RECORD_ID
    assert region["hx-post"] == f"{POLL_URL}?of={RECORD_ID}&v="
    assert region["hx-trigger"] == "load, every 2s, presence:now"
    assert region["data-presence-leave"] == LEAVE_URL
    assert json.loads(region["hx-vals"]) == {"token": region["data-presence-token"], "record": RECORD_ID}
    assert region["data-presence-src"] == "/static/js/presence.js"  # its code comes after the page
    assert RecordPresence.objects.count() == 0  # the page wrote nothing: its first poll beats


def test_the_poll_beats_and_shows_the_others_then_204_while_unchanged(user, dana, definition_cached):
    store_api_key(user)
    store_api_key(dana, secret="svc_sk_dana0123456789abcdefghijklmnopqrstuvwxyzABCD")
    alice, other = client_of(user), client_of(dana)

    first = poll(alice, n=1, record=RECORD_ID)
    assert first.status_code == 200
    assert select(first.content, ".presence-person") == []  # alone: oneself is not shown
    assert RecordPresence.objects.filter(user=user, record_id=RECORD_ID).count() == 1

    poll(other, n=2, record=RECORD_ID, field="amount")
    shown = poll(alice, n=1, record=RECORD_ID)
    assert texts(shown.content, ".presence-person") == ["Dana Scully is editing Amount"]
    region = one(shown.content, "#presence")
    assert "load" not in region["hx-trigger"]  # a swapped-in region does not poll again at once
    version = region["hx-post"].split("v=")[1]

    assert poll(alice, n=1, record=RECORD_ID, v=version).status_code == 204
    poll(other, n=2, record=RECORD_ID)  # the editor closed
    changed = poll(alice, n=1, record=RECORD_ID, v=version)
    assert texts(changed.content, ".presence-person") == ["Dana Scully is viewing"]


def test_the_grid_poll_lists_records_open_by_others(user, dana):
    store_api_key(user)
    store_api_key(dana, secret="svc_sk_dana0123456789abcdefghijklmnopqrstuvwxyzABCD")
    poll(client_of(dana), of="", n=2, record=OTHER_RECORD)
    html = poll(client_of(user), of="", n=1).content
    assert [item["data-presence-of"] for item in select(html, "[data-presence-of]")] == [OTHER_RECORD]
    assert text_of(one(html, ".presence-summary")) == "Open by others: Dana Scully"
    assert not RecordPresence.objects.filter(user=user).exists()  # the grid itself is not a record open


def test_the_beacon_ends_ones_presence_at_once(user, dana):
    store_api_key(user)
    store_api_key(dana, secret="svc_sk_dana0123456789abcdefghijklmnopqrstuvwxyzABCD")
    other = client_of(dana)
    poll(other, n=2, record=RECORD_ID)
    assert others(user) == ["Dana Scully is viewing"]
    assert client_of(user).post(LEAVE_URL, {"token": token(2)}).status_code == 204  # not alice's page
    assert others(user) == ["Dana Scully is viewing"]
    assert other.post(LEAVE_URL, {"token": token(2)}).status_code == 204
    assert others(user) == []


def test_without_a_working_key_nothing_is_written_or_shown(user, dana, logged_in_client):
    beat(dana)
    response = poll(logged_in_client, n=1, record=RECORD_ID)  # no key at all
    assert response.status_code == 286 and response.content == b""
    key = store_api_key(user)
    key.refused_at = timezone.now()
    key.save(update_fields=["refused_at"])
    response = poll(logged_in_client, n=1, record=RECORD_ID)
    # The key gate's quiet box (dashboard/frame/key_gate.py) instead of the region; polling stops.
    assert response.status_code == 286
    assert select(response.content, "#presence, .presence-person") == []
    assert not RecordPresence.objects.filter(user=user).exists()


def test_a_key_of_another_workspace_sees_none_of_this_ones_presence(user, dana):
    store_api_key(user, workspace_id="ws-elsewhere")
    beat(dana)
    html = poll(client_of(user), n=1, record=RECORD_ID).content
    assert select(html, ".presence-person") == []
    assert RecordPresence.objects.get(user=user).workspace_id == "ws-elsewhere"


def test_the_polls_queries_are_flat_with_twenty_people_there(user, django_user_model, definition_cached):
    store_api_key(user)
    alice = client_of(user)

    def counted() -> tuple[int, int]:
        poll(alice, n=0, record=RECORD_ID)  # warm: the session's and the key's reads as every poll
        with CaptureQueriesContext(connection) as changed:
            shown = poll(alice, n=0, record=RECORD_ID)
        version = one(shown.content, "#presence")["hx-post"].split("v=")[1]
        with CaptureQueriesContext(connection) as unchanged:
            assert poll(alice, n=0, record=RECORD_ID, v=version).status_code == 204
        return len(changed), len(unchanged)

    beat(django_user_model.objects.create_user(username="person-0", first_name="Person", last_name="0"), n=100)
    one_there = counted()
    for i in range(1, 20):
        person = django_user_model.objects.create_user(username=f"person-{i}", first_name="Person", last_name=str(i))
        beat(person, n=100 + i, field_key="amount" if i % 2 else "")
    twenty = counted()
    assert len(texts(poll(alice, n=0, record=RECORD_ID).content, ".presence-person")) == 20
    assert twenty == one_there
