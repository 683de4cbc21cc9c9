"""Reruns in Chromium against a real sandbox, on a phone's 375 px: the
failed runs of an agent rerun as one job from the runs list (the
confirmation lists them, the job's page fills in as a worker steps it),
and one failed run sent again with an edited message after the review
shows the changed words; no page scrolls sideways; axe checks every
document and swap (the `page` fixture)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.agents.support import log_in
from tests.helpers import SCREENSHOTS
from tests.objects.jobs_support import worker_thread

pytestmark = pytest.mark.browser

AGENT = "Weekly pipeline report"


def _sideways(page: Page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def _failed_runs(handle) -> str:
    with httpx.Client(base_url=handle.base_url, headers={"Authorization": f"Bearer {handle.mint_key('demo')}"}) as http:
        agent = next(item for item in http.get("/v1/agents").json()["data"] if item["name"] == AGENT)
        for region in ("EMEA", "APAC", "the Americas"):
            body = {"message": f"Report the pipeline for {region}, or fail trying"}
            assert http.post(f"/v1/agents/{agent['id']}/runs", json=body).status_code == 200
    handle.advance(service_seconds=60)
    return agent["id"]


def test_rerun_the_failed_runs_then_one_with_changes_on_a_phone(console, seeded_sandbox, page: Page, monkeypatch):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    agent_id = _failed_runs(seeded_sandbox)
    page.set_viewport_size({"width": 375, "height": 812})
    log_in(page, console.url + f"/runs/?status=failed&agent={agent_id}")
    page.get_by_role("link", name="Rerun failed runs…").click()
    expect(page.get_by_role("heading", name="Rerun failed runs")).to_be_visible()
    expect(page.locator("#rerun-failed-count")).to_contain_text("3 runs failed in the last 24 hours")
    assert _sideways(page) <= 1
    page.screenshot(path=str(SCREENSHOTS / "agents-rerun-failed-phone.png"), full_page=True)

    with worker_thread(monkeypatch):
        page.get_by_role("button", name="Rerun these 3 runs").click()
        expect(page.get_by_role("heading", name="Bulk rerun")).to_be_visible()
        expect(page.locator(".approval-batch__head")).to_contain_text("3 sent again", timeout=30_000)
    expect(page.get_by_role("list", name="Each run").get_by_role("listitem")).to_have_count(3)
    assert _sideways(page) <= 1
    page.screenshot(path=str(SCREENSHOTS / "agents-rerun-batch-phone.png"), full_page=True)

    page.get_by_role("list", name="Each run").get_by_role("link", name=AGENT, exact=False).first.click()
    expect(page.get_by_role("heading", name="Agent run")).to_be_visible()
    page.get_by_role("link", name="Run again with changes").click()
    message = page.get_by_role("textbox", name="Message")
    expect(message).to_have_value("Report the pipeline for the Americas, or fail trying")
    message.fill("Report the pipeline for the Americas and Canada")
    page.get_by_role("button", name="Show what changes").click()
    review = page.locator(".rerun-review")
    expect(review.locator("del")).to_contain_text("fail trying")
    expect(review.locator("ins")).to_contain_text("and Canada")
    assert _sideways(page) <= 1
    page.screenshot(path=str(SCREENSHOTS / "agents-rerun-edit-phone.png"), full_page=True)
    page.get_by_role("button", name="Send as a new run").click()
    expect(page.get_by_text("Sent with your changes as a new run.")).to_be_visible()
