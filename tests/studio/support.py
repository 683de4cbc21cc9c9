"""Shared by the tests of studio."""

from __future__ import annotations

from django.test import TestCase
from playwright.sync_api import Page

from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_poll
from sandbox.studio import DIRECTOR_SECONDS
from tests.helpers import fill_login_form
from tests.html import one
from tests.live.support import turn_body


def polled_to_the_end(
    sandbox, op: TrackedOperation, seconds: float | None = None, *, studio: str = "document"
) -> TrackedOperation:
    """A turn polled once after the sandbox's director has had its time
    (`seconds`, else the studio's director time), the tasks its end sends (a
    document's version) run at once."""
    sandbox.advance(service_seconds=seconds if seconds is not None else DIRECTOR_SECONDS[studio] + 5)
    with TestCase.captureOnCommitCallbacks(execute=True):
        result = operation_poll(operation_id=op.pk)
    assert result is not None and result.is_final
    return result


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
