"""Share links (issue #21, item 8): a read-only snapshot of a document or a
board's images, opened without an account, without the service and without
anyone's key; expiring, revocable, noindex, rate-limited per address."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from dashboard.audit.models import AuditEntry
from dashboard.keys.testing import stored_api_key
from studio import sharing
from studio.models import DocumentVersion, ShareLink
from studio.views.share import MADE_SESSION_KEY
from tests.html import one, parse, select, text_of

DOC_ID = "5b0e1f4a-0000-4000-8000-0000000000d1"
BOARD_ID = "5b0e1f4a-0000-4000-8000-0000000000b1"
OTHER_SECRET = "svc_sk_sharing0123456789abcdefghijklmnopqrstuvwxyzAB"

pytestmark = pytest.mark.django_db


def _document(remote) -> None:
    remote.get(f"/v1/documents/{DOC_ID}").mock(
        return_value=httpx.Response(
            200,
            json={
                "id": DOC_ID,
                "name": "Q3 proposal",
                "doc_type": "proposal",
                "content": "## Why us\n\nWe are *fast*.\n\n<script>alert(1)</script>",
            },
        )
    )


def _share_document(client, remote, days: str = "7") -> tuple[ShareLink, str]:
    """Make a link the way a maker does; the link and the address shown once."""
    _document(remote)
    response = client.post(reverse("studio:share_new", args=["documents", DOC_ID]), {"days": days})
    assert response.status_code == 302 and response["Location"] == reverse("studio:shares")
    page = parse(client.get(reverse("studio:shares")).content)
    address = one(page, "#share-made-url")["value"]
    return ShareLink.objects.get(), address


def test_a_maker_creates_a_link_that_keeps_a_snapshot_and_only_the_tokens_hash(api_key, logged_in_client, remote):
    _document(remote)
    form = parse(logged_in_client.get(reverse("studio:share_new", args=["documents", DOC_ID])).content)
    assert [radio["value"] for radio in select(form, "input[name=days]")] == ["1", "7", "30"]
    assert one(form, "input[name=days][checked]")["value"] == "7"

    link, address = _share_document(logged_in_client, remote, days="30")

    token = address.rstrip("/").rsplit("/", 1)[1]
    assert len(token) >= 40 and token not in link.token_hash and link.token_hash == sharing.share_token_hash(token)
    assert link.title == "Q3 proposal" and link.workspace_id == api_key.workspace_id
    assert link.snapshot["document"]["content"].startswith("## Why us")
    assert timedelta(days=29, hours=23) < link.expires_at - timezone.now() <= timedelta(days=30)
    # The address is shown once: the list again does not show it.
    assert not select(logged_in_client.get(reverse("studio:shares")).content, "#share-made-url")
    assert MADE_SESSION_KEY not in logged_in_client.session
    entry = AuditEntry.objects.get(action="share_created")
    assert entry.kind == AuditEntry.KIND_WRITE and entry.area == "studio" and entry.workspace_id == api_key.workspace_id
    assert "Q3 proposal" in entry.summary and token not in str(entry.details) and token not in entry.path


def test_the_link_opens_without_a_session_without_a_remote_call_and_without_chrome(api_key, logged_in_client, remote):
    _link, address = _share_document(logged_in_client, remote)
    calls = remote.calls.call_count

    response = Client().get(address)

    assert response.status_code == 200
    assert remote.calls.call_count == calls  # the snapshot only: no key, no service
    assert response["X-Robots-Tag"].startswith("noindex")
    page = parse(response.content)
    assert one(page, "meta[name=robots]")["content"].startswith("noindex")
    assert text_of(one(page, "h1")) == "Q3 proposal"
    assert text_of(one(page, ".document-content h2")) == "Why us"
    assert not select(page, ".document-content script") and not select(page, "script")
    assert not select(page, ".site-header") and not select(page, "nav") and not select(page, "form")


def test_a_boards_images_are_shared_as_their_files_addresses(api_key, logged_in_client, remote):
    remote.get("/v1/images/boards").respond(200, json={"data": [{"id": BOARD_ID, "name": "Spring campaign"}]})
    remote.get("/v1/images").respond(
        200,
        json={"data": [{"id": "i1", "url": "https://cdn.example/1.png", "width": 4, "height": 5, "prompt": "A bike"}]},
    )
    logged_in_client.post(reverse("studio:share_new", args=["boards", BOARD_ID]), {"days": "1"})
    address = one(logged_in_client.get(reverse("studio:shares")).content, "#share-made-url")["value"]
    calls = remote.calls.call_count

    page = parse(Client().get(address).content)

    assert remote.calls.call_count == calls
    image = one(page, ".studio-gallery img")
    assert image["src"] == "https://cdn.example/1.png" and image["alt"] == "A bike"
    assert ShareLink.objects.get().snapshot == {
        "images": [{"url": "https://cdn.example/1.png", "prompt": "A bike", "width": 4, "height": 5}]
    }


def test_a_revoked_link_is_a_404_page_in_words(api_key, logged_in_client, remote):
    link, address = _share_document(logged_in_client, remote)

    response = logged_in_client.post(reverse("studio:share_revoke", args=[link.pk]))
    assert response.status_code == 302
    opened = Client().get(address)

    assert opened.status_code == 404 and opened["X-Robots-Tag"].startswith("noindex")
    assert text_of(one(parse(opened.content), "h1")) == "Link not found"
    assert "revoked" in text_of(one(parse(opened.content), "main p"))
    row = one(logged_in_client.get(reverse("studio:shares")).content, "tbody tr")
    assert "Revoked" in text_of(row) and not select(row, "button")
    assert AuditEntry.objects.filter(action="share_revoked").count() == 1


def test_an_expired_or_unknown_link_is_the_same_404(api_key, logged_in_client, remote):
    link, address = _share_document(logged_in_client, remote)
    ShareLink.objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(seconds=1))

    expired = Client().get(address)
    unknown = Client().get(reverse("studio:shared", args=["x" * 43]))

    assert expired.status_code == unknown.status_code == 404
    assert text_of(one(parse(expired.content), "main")) == text_of(one(parse(unknown.content), "main"))


def test_another_persons_link_cannot_be_revoked(api_key, logged_in_client, remote, other_user):
    link, address = _share_document(logged_in_client, remote)
    stored_api_key(user=other_user, secret=OTHER_SECRET, workspace_id=api_key.workspace_id)
    other = Client()
    other.force_login(other_user)

    assert other.post(reverse("studio:share_revoke", args=[link.pk])).status_code == 404
    assert Client().get(address).status_code == 200


def test_opening_links_is_rate_limited_per_address(api_key, logged_in_client, remote, monkeypatch):
    _link, address = _share_document(logged_in_client, remote)
    monkeypatch.setattr(sharing, "OPEN_LIMIT", 2)
    stranger = Client(REMOTE_ADDR="203.0.113.9")

    answers = [stranger.get(address).status_code for _ in range(3)]
    elsewhere = Client(REMOTE_ADDR="203.0.113.10").get(address)

    assert answers == [200, 200, 429]
    busy = stranger.get(address)
    assert int(busy["Retry-After"]) >= 1 and text_of(one(parse(busy.content), "h1")) == "Too many requests"
    assert elsewhere.status_code == 200


@pytest.mark.browser
def test_a_share_link_opens_logged_out_at_375_px_and_answers_404_once_revoked(
    live_server, transactional_db, django_user_model, page
):
    from playwright.sync_api import expect

    maker = django_user_model.objects.create_user(username="mia", password="a long enough passphrase")
    snapshot = {"document": sharing.document_snapshot({"name": "Launch notes", "content": "## Plan\n\n- Ship it"})}
    link, token = sharing.share_create(
        user=maker, workspace_id="ws-test", key=None, kind=ShareLink.DOCUMENT, title="Launch notes",
        source_id=DOC_ID, snapshot=snapshot, days=7,
    )  # fmt: skip
    page.set_viewport_size({"width": 375, "height": 800})

    page.goto(live_server.url + reverse("studio:shared", args=[token]))

    expect(page.get_by_role("heading", name="Launch notes", level=1)).to_be_visible()
    expect(page.get_by_role("article", name="Document content").get_by_role("heading", name="Plan")).to_be_visible()
    expect(page.get_by_role("link", name="Log in")).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    sharing.share_revoke(user=maker, workspace_id="ws-test", key=None, pk=link.pk)
    page.reload()

    expect(page.get_by_role("heading", name="Link not found")).to_be_visible()


def test_a_signed_in_person_whose_key_was_refused_still_reads_a_shared_page(api_key, logged_in_client, remote):
    _link, address = _share_document(logged_in_client, remote)
    api_key.refused_at = timezone.now()
    api_key.save(update_fields=["refused_at"])

    response = logged_in_client.get(address)

    assert response.status_code == 200 and text_of(one(parse(response.content), "h1")) == "Q3 proposal"


def test_a_kept_version_is_shared_from_the_consoles_row_without_a_remote_call(
    api_key, logged_in_client, remote, make_turn
):
    version = DocumentVersion.objects.create(
        workspace_id=api_key.workspace_id,
        document_id=DOC_ID,
        turn=make_turn(due=False),
        name="Q3 proposal",
        content_format="markdown",
        content="## First draft",
    )
    url = reverse("studio:share_new", args=["documents", DOC_ID]) + f"?version={version.pk}"

    response = logged_in_client.post(url, {"days": "1"})

    assert response.status_code == 302 and remote.calls.call_count == 0
    link = ShareLink.objects.get()
    assert link.version_pk == version.pk and link.snapshot["document"]["content"] == "## First draft"
    other = reverse("studio:share_new", args=["documents", "another-doc"]) + f"?version={version.pk}"
    assert logged_in_client.get(other).status_code == 404  # a version of another document


def test_the_library_offers_sharing_only_to_a_role_that_writes(api_key, logged_in_client, remote):
    _document(remote)
    item = reverse("studio:library_item", args=["documents", DOC_ID])
    share = reverse("studio:share_new", args=["documents", DOC_ID])

    assert one(logged_in_client.get(item).content, f".page-header a[href='{share}']")
    api_key.member_role = "viewer"
    api_key.save()
    assert not select(logged_in_client.get(item).content, f".page-header a[href='{share}']")
