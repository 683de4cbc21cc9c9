"""A read-only member and every write address of the Studio: one refusal
(`dashboard.frame.permissions.requires_write`) before anything is read or
sent. The addresses are found from studio/urls.py through Django's resolver,
not listed by hand, so a new write view cannot be left unguarded."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.live.models import TrackedOperation
from studio import urls
from studio.forms import READ_ONLY, SHARE_READ_ONLY
from studio.models import AppRun
from tests.html import parse, select
from tests.write_guard import area_addresses, refusal_of, refused_writes

pytestmark = pytest.mark.django_db

REFUSAL = f"Your role in this workspace (viewer) can only read. {READ_ONLY}"
SHARE_REFUSAL = f"Your role in this workspace (viewer) can only read. {SHARE_READ_ONLY}"
SHARE_WRITES = {"studio:share_new", "studio:share_images", "studio:share_revoke"}
# What a forged form would carry: enough for any Studio write to go ahead.
FORGED = {
    "studio": "website",
    "message": "Make it now",
    "auto": "on",
    "prompt": "A red bicycle",
    "idempotency_key": "7d2c1b0a-0000-4000-8000-000000000001",
}
# Not a write: a ZIP of images the person may read, built for them alone
# (studio/views/zips.py), and the person's own selection kept in their
# session (studio/views/selection.py); the role matrix lists them as personal.
PERSONAL = {"studio:library_zip", "studio:selection_update", "studio:selection_add_all", "studio:selection_clear"}
# Writes the enumeration must find (proof that it finds any at all).
KNOWN_WRITES = {"studio:start", "studio:reply", "studio:app", *SHARE_WRITES}


@pytest.fixture
def viewer(api_key, logged_in_client):
    api_key.member_role = "viewer"
    api_key.save()
    return logged_in_client


def test_every_address_that_takes_a_post_refuses_a_viewer_before_any_remote_call(viewer, remote, make_turn):
    turn = make_turn(due=False)
    operations = TrackedOperation.objects.count()
    # A real turn for a `pk`: a forged reply to a conversation that exists.
    addresses = [
        address
        for address in area_addresses(urls, [str(turn.pk), "image", "images", "remove-background"])
        if address[0] not in PERSONAL
    ]
    # Share links say why in their own words (studio/forms.py SHARE_READ_ONLY).
    shares = [address for address in addresses if address[0] in SHARE_WRITES]
    writes = refused_writes(viewer, [address for address in addresses if address not in shares], FORGED, REFUSAL)
    writes |= refused_writes(viewer, shares, FORGED, SHARE_REFUSAL)

    assert writes >= KNOWN_WRITES
    assert remote.calls.call_count == 0
    assert TrackedOperation.objects.count() == operations
    assert not AppRun.objects.exists()


def test_an_htmx_post_gets_the_refusal_as_a_message_box_it_can_swap(viewer, remote, make_turn):
    turn = make_turn(due=False)

    response = viewer.post(reverse("studio:reply", args=[turn.pk]), FORGED, HTTP_HX_REQUEST="true")

    assert response.status_code == 200  # htmx 2 swaps nothing on a 403
    assert refusal_of(parse(response.content)) == REFUSAL
    assert remote.calls.call_count == 0


def test_a_viewer_still_reads_an_apps_page_the_refusal_is_only_for_its_run(viewer, remote):
    remote.get("/v1/studio/apps").respond(
        200, json={"apps": [{"studio": "image", "id": "remove-background", "label": "Remove background"}]}
    )

    response = viewer.get(reverse("studio:app", args=["image", "remove-background"]))

    assert response.status_code == 200
    assert not select(response.content, "#app-form")
    assert select(response.content, ".read-only-note")
