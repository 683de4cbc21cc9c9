"""See it (issue #21, item 3): a website's or app's preview in the pane (a
sandboxed iframe for an address the CSP frame-src lists, else a link and the
latest screenshot), phone and desktop widths, and progress as elapsed time
against the contract's typical duration with the stage in words."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.live.models import TrackedOperation
from studio.preview import progress
from tests.html import one, select, text_of
from tests.live.support import turn_body

SITE_ID = "5b0e1f4a-0000-4000-8000-000000000001"
APP_ID = "5b0e1f4a-0000-4000-8000-000000000005"
PREVIEW_HOST = "https://sites.example"  # a deployment's STUDIO_PREVIEW_HOSTS
PUBLISHED = f"{PREVIEW_HOST}/spring-sale/"
ELSEWHERE = "https://spring-sale.elsewhere.example/"
SHOT = "https://cdn.example/shots/spring-sale.png"  # the fake service's asset host (tests/studio/conftest.py)


@pytest.fixture(autouse=True)
def preview_host(settings):
    """The frame-src the pages are sent lists PREVIEW_HOST, as
    STUDIO_PREVIEW_HOSTS does in a deployment (settings builds the policy
    once, at start; dashboard/frame/images.py reads the directive)."""
    policy = {**settings.CONTENT_SECURITY_POLICY}
    directives = {**policy["DIRECTIVES"]}
    directives["frame-src"] = [*directives["frame-src"], PREVIEW_HOST]
    settings.CONTENT_SECURITY_POLICY = {**policy, "DIRECTIVES": directives}


def website_turn(make_turn, *, status="completed", final=True, minutes_ago=0.0, editing=False, **artifact):
    op = make_turn(due=False)
    TrackedOperation.objects.filter(pk=op.pk).update(
        status=status,
        is_final=final,
        snapshot=turn_body(status, artifact={"id": SITE_ID, "type": "website", "name": "Spring Sale", **artifact}),
        context={"studio": "website", "message": "A site", "artifact_id": SITE_ID if editing else ""},
        created_at=timezone.now() - timedelta(minutes=minutes_ago),
    )
    op.refresh_from_db()
    return op


def site_read(remote, **fields):
    return remote.get(f"/v1/websites/{SITE_ID}").mock(
        return_value=httpx.Response(200, json={"id": SITE_ID, "name": "Spring Sale", **fields})
    )


def pane_of(client, op, query=""):
    return client.get(reverse("studio:turn", args=[op.pk]) + query).content


# --- the preview --------------------------------------------------------------------------


def test_a_published_site_on_an_allowed_host_is_framed_in_a_sandbox(db, remote, make_turn, logged_in_client):
    site_read(remote, public_url=PUBLISHED, build={"status": "succeeded", "stage": "complete"})
    page = pane_of(logged_in_client, website_turn(make_turn))
    frame = one(page, "#artifact-pane iframe")
    assert frame["src"] == PUBLISHED
    # Scripts run, in an opaque origin: no product cookies, forms, pop-ups or top navigation.
    assert frame["sandbox"] == ["allow-scripts"]
    assert frame["title"] == "Preview of Spring Sale"
    assert "studio-preview__frame--desktop" in frame["class"]
    assert not select(page, "#artifact-pane [data-studio-progress]")


def test_the_width_toggle_is_two_links_that_set_the_frame_width(db, remote, make_turn, logged_in_client):
    site_read(remote, public_url=PUBLISHED)
    op = website_turn(make_turn)
    page = pane_of(logged_in_client, op, "?width=phone")
    toggle = select(page, "[data-studio-preview] [role=group] a")
    assert [text_of(link) for link in toggle] == ["Desktop", "Phone"]
    # Without JavaScript they are links; with htmx they swap the pane alone.
    assert [link["href"] for link in toggle] == ["?width=desktop#artifact-pane", "?width=phone#artifact-pane"]
    assert toggle[1]["hx-get"] == reverse("studio:artifact_pane", args=[op.pk]) + "?width=phone"
    assert [link.get("aria-current") for link in toggle] == [None, "true"]
    assert "studio-preview__frame--phone" in one(page, "#artifact-pane iframe")["class"]

    region = logged_in_client.get(toggle[0]["hx-get"], HTTP_HX_REQUEST="true").content
    assert "studio-preview__frame--desktop" in one(region, "iframe")["class"]
    # An unknown width is the default, never an error.
    assert "studio-preview__frame--desktop" in one(pane_of(logged_in_client, op, "?width=tv"), "iframe")["class"]


def test_an_address_on_another_host_is_a_link_and_the_latest_screenshot(db, remote, make_turn, logged_in_client):
    site_read(remote, public_url=ELSEWHERE, screenshot_url=SHOT)
    page = pane_of(logged_in_client, website_turn(make_turn))
    assert not select(page, "#artifact-pane iframe")
    preview = one(page, "[data-studio-preview]")
    assert one(preview, "img")["src"] == SHOT
    assert one(preview, "img")["alt"] == "The latest screenshot of Spring Sale"
    assert "opens in a tab of its own, with “The published site” above" in text_of(preview)
    assert text_of(one(page, f"#artifact-pane a[target=_blank][href='{ELSEWHERE}']")) == "The published site"


def test_an_app_on_the_products_host_is_framed_on_its_library_page(db, remote, api_key, logged_in_client):
    app_url = f"{PREVIEW_HOST}/apps/{APP_ID}"
    remote.get(f"/v1/apps/{APP_ID}").mock(
        return_value=httpx.Response(200, json={"id": APP_ID, "name": "Booking", "url": app_url})
    )
    page = logged_in_client.get(reverse("studio:library_item", args=["apps", APP_ID]) + "?width=phone").content
    assert one(page, "iframe")["src"] == app_url
    # No conversation to swap the pane in: the toggle is plain links.
    assert all("hx-get" not in link.attrs for link in select(page, "[data-studio-preview] [role=group] a"))


def test_the_policy_frames_only_listed_hosts(db, remote, make_turn, logged_in_client):
    site_read(remote)
    response = logged_in_client.get(reverse("studio:turn", args=[website_turn(make_turn).pk]))
    policy = dict(
        (part.strip().split(" ", 1) + [""])[:2] for part in response["Content-Security-Policy"].split(";") if part
    )
    sources = policy["frame-src"].split()
    assert PREVIEW_HOST in sources
    assert not {"*", "https:", "http:"} & set(sources)


# --- progress -----------------------------------------------------------------------------


def test_a_building_site_shows_elapsed_time_against_the_typical_five_minutes(db, remote, make_turn, logged_in_client):
    site_read(remote, build={"status": "queued", "stage": "generate"})
    page = pane_of(logged_in_client, website_turn(make_turn, minutes_ago=2.2))
    shown = one(page, "[data-studio-progress]")
    assert text_of(one(shown, "p")) == "Writing the pages · About 2 of ~5 minutes"
    bar = one(shown, "progress")
    assert (bar["value"], bar["max"]) == ("2", "5")


def test_past_the_typical_time_the_bar_is_indeterminate(db, remote, make_turn, logged_in_client):
    site_read(remote)
    op = website_turn(make_turn, status="building", final=False, minutes_ago=7)
    shown = one(pane_of(logged_in_client, op), "[data-studio-progress]")
    assert text_of(one(shown, "p")) == "Building · About 7 minutes so far; it usually takes up to ~5 minutes"
    assert "value" not in one(shown, "progress").attrs


@pytest.mark.parametrize(
    ("studio", "editing", "seconds", "words", "value", "most"),
    [
        ("website", False, 20, "Under a minute of ~5 minutes", 0, 5),
        ("website", False, 150, "About 2 of ~5 minutes", 2, 5),
        # An edit: 20-90 s plus a 1-3 min rebuild.
        ("website", True, 60, "About 1 of ~5 minutes", 1, 5),
        ("app", False, 70, "About 1 of ~2 minutes", 1, 2),
        ("app", False, 200, "About 3 minutes so far; it usually takes up to ~2 minutes", None, 2),
    ],
)
def test_progress_words_never_claim_more_than_whole_minutes(studio, editing, seconds, words, value, most):
    now = timezone.now()
    said = progress(studio=studio, editing=editing, started=now - timedelta(seconds=seconds), now=now, stage="generate")
    assert said is not None
    assert (said["words"], said["value"], said["max"], said["stage"]) == (words, value, most, "writing the pages")


def test_a_studio_without_a_typical_time_shows_no_progress():
    now = timezone.now()
    assert progress(studio="document", editing=False, started=now, now=now) is None
    assert progress(studio="website", editing=False, started=None, now=now) is None


# --- in Chromium --------------------------------------------------------------------------


@pytest.mark.browser
def test_a_published_website_is_previewed_at_both_widths(
    live_server, sandbox, settings, transactional_db, django_user_model, page
):
    """The sandbox's seeded site, published on its app origin (a local host,
    which frame-src lists outside production): framed with its page inside,
    then at a phone's width. axe checks the page through the `page` fixture."""
    from playwright.sync_api import expect

    from tests.helpers import PASSWORD, SCREENSHOTS, csp_violations, fill_login_form
    from tests.live.support import store_key

    settings.SERVICE_BASE_URL = sandbox.base_url
    user = django_user_model.objects.create_user(username="dora", password=PASSWORD)
    store_key(user, sandbox.demo_key)
    site = next(s for s in sandbox.store.list("website") if s["name"] == "Acme Spring Launch")
    violations = csp_violations(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    page.goto(live_server.url + reverse("studio:library_item", args=["websites", site["id"]]))
    fill_login_form(page, "dora")
    frame = page.get_by_title("Preview of Acme Spring Launch")
    expect(frame).to_be_visible()
    expect(frame).to_have_attribute("src", f"{sandbox.base_url}/app/sites/acme-spring-launch")
    # The sandbox serves the published site's page there: the frame shows the site, not a 404.
    site_page = page.frame_locator("iframe[title='Preview of Acme Spring Launch']")
    expect(site_page.get_by_role("heading", level=1)).to_have_text("Acme Spring Launch")
    expect(site_page.get_by_role("navigation", name="Site").get_by_role("link", name="Collection")).to_be_visible()
    widths = page.get_by_role("group", name="Preview width")
    expect(widths.get_by_role("link", name="Desktop")).to_have_attribute("aria-current", "true")
    # Desktop is the site at a laptop's width, scaled to the pane: its own window is 1,280 px wide
    # (the site lays itself out for a desktop), and the frame on the page is no wider than the pane.
    expect(page.get_by_text("As a 1280 px wide screen shows it, scaled to fit.")).to_be_visible()
    assert (
        page.frame_locator("iframe[title='Preview of Acme Spring Launch']")
        .locator(":root")
        .evaluate("() => window.innerWidth")
        == 1280
    )
    pane_box = page.locator("#artifact-pane").bounding_box()
    frame_box = frame.bounding_box()
    assert frame_box["width"] <= pane_box["width"] and frame_box["x"] >= pane_box["x"]
    assert 0 < frame_box["height"] < 800  # scaled down as a whole, not cut off
    page.screenshot(path=str(SCREENSHOTS / "studio-website-preview-desktop.png"), full_page=True)

    widths.get_by_role("link", name="Phone").click()
    expect(widths.get_by_role("link", name="Phone")).to_have_attribute("aria-current", "true")
    assert frame.bounding_box()["width"] <= 375
    page.screenshot(path=str(SCREENSHOTS / "studio-website-preview-phone.png"), full_page=True)
    assert violations == []
