"""Shared by the tests of studio."""

from __future__ import annotations

from playwright.sync_api import Page

from dashboard.live.models import TrackedOperation
from tests.helpers import fill_login_form
from tests.html import one
from tests.live.support import turn_body


def paste(page: Page, box, text: str) -> None:
    """Paste as a person does: the text on the clipboard, then Ctrl+V in the box."""
    page.evaluate("text => navigator.clipboard.writeText(text)", text)
    box.click()
    page.keyboard.press("ControlOrMeta+V")


def posts_from(page: Page) -> list[str]:
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if request.method == "POST" else None)
    return sent


BOARD_ID = "5b0e1f4a-0000-4000-8000-0000000000b1"

PROJECT_ID = "5b0e1f4a-0000-4000-8000-0000000000c1"

IMAGE_IDS = [f"5b0e1f4a-0000-4000-8000-00000000010{n}" for n in range(6)]


def key_of(html) -> str:
    return one(html, '#app-form input[name="idempotency_key"]')["value"]


def form_key(html, form_selector: str = "#turn-form") -> str:
    return one(html, f'{form_selector} input[name="idempotency_key"]')["value"]


def finish(op, status: str, **snapshot) -> None:
    """Mark the tracked turn final in `status`, its snapshot a turn body with `snapshot`."""
    TrackedOperation.objects.filter(pk=op.pk).update(
        status=status, is_final=True, snapshot=turn_body(status, **snapshot)
    )
    op.refresh_from_db()


def log_in(page: Page, url: str) -> None:
    page.goto(url)
    fill_login_form(page, "dora")


def start(page: Page, base_url: str, studio: str, message: str, *, auto: bool = False) -> None:
    log_in(page, base_url + "/studio/")
    page.get_by_label("Studio", exact=True).select_option(studio)
    page.get_by_label("Message").fill(message)
    if auto:
        page.get_by_label("Decide for me").check()
    page.get_by_role("button", name="Start the turn").click()
