"""Never lose a word in Agents (issue #21's pattern, dashboard/web/counted.py):
no agent text box has a `maxlength` (the browser cut a long paste without a
word and the cut text was sent); the limit is data for the counter, and a
text over it is refused in words on its field, everything typed kept and
nothing sent: the chat message, the builder's message or answer, a name and
an approval's note. The script's side is the browser test at the end."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from dashboard.api.testing import RemoteCallCounter
from dashboard.live.models import TrackedOperation
from dashboard.web.counted import over_limit_words
from tests.agents.support import HTMX, SEND_ID, agent_id_named, decision_fields, form_keys
from tests.html import one, parse, select, text_of, textarea_value

# The logged-in user decides approvals (the Approver role: tests/agents/conftest.py).
pytestmark = pytest.mark.usefixtures("approver")

TEXT_BOXES = "form textarea, form input[type=text]"


class Writes(RemoteCallCounter):
    """The console's calls to the service that are not reads."""

    def __call__(self, request: httpx.Request) -> None:
        if request.method not in ("GET", "HEAD"):
            super().__call__(request)


def counted(html, selector: str):
    """The box, after checking it is counted and never cut."""
    box = one(html, selector)
    assert not box.has_attr("maxlength")
    assert box.has_attr("data-max-length") and one(html, f"#{box['id']}_counter") is not None
    return box


def test_no_agent_text_box_cuts_a_paste(sandbox_client):
    agent_id = agent_id_named(sandbox_client, "Customer FAQ helper")
    for url in (
        reverse("agents:index"),
        reverse("agents:detail", args=[agent_id]),
        reverse("agents:chat", args=[agent_id]),
    ):
        page = parse(sandbox_client.get(url).content)
        assert not [box.get("name") for box in select(page, TEXT_BOXES) if box.has_attr("maxlength")], url
    chat = parse(sandbox_client.get(reverse("agents:chat", args=[agent_id])).content)
    box = counted(chat, "textarea[name=message]")
    assert (box["data-max-length"], box["data-limit-noun"]) == ("20000", "The message")


def test_a_chat_message_over_20000_characters_is_refused_in_words_kept_and_not_sent(sandbox_client):
    agent_id = agent_id_named(sandbox_client, "Customer FAQ helper")
    page = sandbox_client.get(reverse("agents:chat", args=[agent_id])).content.decode()
    message = "m" * 20001

    with Writes() as writes:
        response = sandbox_client.post(
            reverse("agents:chat_send", args=[agent_id]), {"message": message, "idempotency_key": form_keys(page)[0]}
        )

    html = parse(response.content)
    box = one(html, "textarea[name=message]")
    assert text_of(one(html, f"#{box['id']}_error")) == over_limit_words("The message", 20000, 20001)
    assert textarea_value(box) == message and box["aria-invalid"] == "true"
    assert writes.count == 0 and not TrackedOperation.objects.exists()


def test_a_builder_message_over_its_limit_is_refused_in_words_and_kept(sandbox_client):
    agent_id = agent_id_named(sandbox_client, "Customer FAQ helper")
    page = sandbox_client.get(reverse("agents:detail", args=[agent_id])).content.decode()
    form = one(page, f'form[action="{reverse("agents:change", args=[agent_id])}"]')
    box = counted(form, "textarea[name=message]")
    message = "b" * 20005

    with Writes() as writes:
        response = sandbox_client.post(
            reverse("agents:change", args=[agent_id]),
            {"message": message, "idempotency_key": one(form, "input[name=idempotency_key]")["value"]},
        )

    html = parse(response.content)
    assert text_of(one(html, f"#{box['id']}_error")) == over_limit_words("The message", 20000, 20005)
    assert textarea_value(one(html, f"#{box['id']}")) == message
    assert writes.count == 0


@pytest.mark.parametrize("htmx", [True, False], ids=["in place", "without javascript"])
def test_an_approval_note_over_2000_characters_is_refused_in_words_kept_and_not_sent(
    queue,
    remote,
    logged_in_client,
    htmx,
):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    note_box = counted(parse(page), f"#approval-{SEND_ID}-note")
    assert note_box["data-limit-noun"] == "The note"
    decide = remote.post(f"/v1/approvals/{SEND_ID}").mock(return_value=httpx.Response(200, json={}))
    fields = {**decision_fields(page, SEND_ID, "reject"), "note": "n" * 2001}

    response = logged_in_client.post(
        reverse("agents:approval_decide", args=[SEND_ID]), fields, **(HTMX if htmx else {})
    )

    assert response.status_code == 200 and decide.call_count == 0
    item = one(response.content, f"li#approval-{SEND_ID}")
    assert text_of(one(item, f"#approval-{SEND_ID}-note_error")) == over_limit_words("The note", 2000, 2001)
    assert textarea_value(one(item, "textarea[name=note]")) == "n" * 2001
    # The same decision once the note is short enough: the row's keys are the ones rendered.
    assert one(item, "input[name=key_reject]")["value"] == fields["key_reject"]
    if not htmx:
        assert text_of(one(response.content, "h1")) == "Decide an approval"


@pytest.mark.browser
def test_a_long_paste_in_the_chat_is_kept_counted_and_refused_in_words(console, page):
    """In Chromium: the script refuses before anything is posted, in the
    server's words, and the box keeps every character (axe via `page`)."""
    from playwright.sync_api import expect

    from tests.agents.support import log_in
    from tests.studio.support import paste, posts_from

    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    log_in(page, console.url + "/agents/")
    page.get_by_role("link", name="Customer FAQ helper").click()
    page.get_by_role("link", name="Chat with the agent").click()
    sent = posts_from(page)
    box = page.get_by_role("textbox", name="Message")
    paste(page, box, "c" * 20001)
    counter = page.locator(f"#{box.get_attribute('id')}_counter")
    expect(counter).to_have_text("20,001 / 20,000 — 1 character over")
    expect(counter).to_have_class("help text-counter is-over")

    with RemoteCallCounter() as calls:
        page.get_by_role("button", name="Send").click()
        expect(page.locator(f"#{box.get_attribute('id')}_error")).to_have_text(
            over_limit_words("The message", 20000, 20001)
        )
    expect(box).to_be_focused()
    assert calls.count == 0 and sent == [] and len(box.input_value()) == 20001
    box.press("Backspace")
    expect(counter).to_have_text("20,000 / 20,000 characters")
    expect(page.locator(f"#{box.get_attribute('id')}_error")).to_have_count(0)
