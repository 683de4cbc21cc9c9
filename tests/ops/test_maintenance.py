"""Maintenance mode (dashboard/maintenance.py, `manage.py maintenance`):
writes refused in words with a 503 page (the htmx message box in #messages,
so a form keeps what was typed), pages say so, `/readyz` says why while
`/livez` stays up; a restore closes pages too; backup turns it on while it
runs and off after."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from playwright.sync_api import Page, expect

from dashboard.maintenance import maintenance_state
from dashboard.system import backup
from tests.helpers import PASSWORD, fill_login_form
from tests.html import one, parse, text_of


def maintenance(*args: str) -> str:
    out = io.StringIO()
    call_command("maintenance", *args, stdout=out)
    return out.getvalue()


def test_writes_are_refused_in_words_while_pages_say_so(logged_in_client):
    assert "Maintenance is on (the console is being upgraded)" in maintenance("on")

    page = logged_in_client.get(reverse("home"))
    assert page.status_code == 200
    assert text_of(one(page.content, "#maintenance-notice")).startswith(
        "The console is under maintenance The console is being upgraded: pages can be read; changes are refused"
    )

    with CaptureQueriesContext(connection) as queries:
        posted = logged_in_client.post(reverse("keys:list"), {"label": "typed"})
    assert posted.status_code == 503 and posted["Retry-After"] == "60" and len(queries) == 0
    refused = parse(posted.content)
    assert text_of(one(refused, "h1")) == "The console is under maintenance"
    assert [text_of(p) for p in refused.select(".error-page > p")][:2] == [
        "The console is under maintenance: the console is being upgraded. Nothing was changed: "
        "send it again in a few minutes.",
        "What you sent was not received. Go back: what you typed is still in the form, "
        "and send it again once maintenance is over.",
    ]

    # htmx: the message box goes to #messages, the form stays as typed.
    boxed = logged_in_client.post(reverse("keys:list"), {"label": "typed"}, headers={"HX-Request": "true"})
    assert (boxed.status_code, boxed["HX-Retarget"], boxed["HX-Reswap"]) == (200, "#messages", "innerHTML show:top")
    assert "Nothing was changed" in text_of(parse(boxed.content))

    ready, live = logged_in_client.get("/readyz"), logged_in_client.get("/livez")
    assert (ready.status_code, ready.json()["status"], ready.json()["maintenance"]["why"]) == (
        503,
        "maintenance",
        "upgrade",
    )
    assert live.status_code == 200

    assert "Maintenance is off" in maintenance("off")
    assert maintenance_state() is None
    assert logged_in_client.get(reverse("home")).status_code == 200
    assert parse(logged_in_client.get(reverse("home")).content).select("#maintenance-notice") == []
    assert logged_in_client.get("/readyz").json()["status"] != "maintenance"


def test_a_restore_closes_pages_too(logged_in_client):
    maintenance("on", "--why", "restore", "--closed")
    page = logged_in_client.get(reverse("home"))
    assert page.status_code == 503
    assert text_of(one(page.content, ".error-page > p:not(.toolbar)")) == (
        "The console is under maintenance: a backup is being restored. Try again in a few minutes."
    )
    assert "since" in maintenance("status")


def test_backup_turns_maintenance_on_while_it_runs_and_off_after(db, monkeypatch, tmp_path):
    seen = []

    def made(*, output: Path, passphrase: str = ""):
        seen.append(maintenance_state())
        return backup.BackupMade(
            path=output,
            manifest={"console_version": "x", "database": "y", "migrations": [], "key_fingerprints": [], "parts": {}},
            encrypted=False,
        )

    monkeypatch.setattr("dashboard.system.management.commands.backup.backup_make", made)
    (tmp_path / "out").write_bytes(b"")
    call_command("backup", output=str(tmp_path / "out"), stdout=io.StringIO())
    assert seen[0] is not None and seen[0].why == "backup" and not seen[0].closed
    assert maintenance_state() is None


@pytest.mark.browser
def test_a_form_sent_during_maintenance_keeps_what_was_typed(
    live_server, transactional_db, django_user_model, page: Page
):
    django_user_model.objects.create_user(username="carol", password=PASSWORD)
    page.goto(live_server.url + reverse("keys:add"))
    fill_login_form(page, "carol")
    expect(page.get_by_role("heading", name="Add an API key")).to_be_visible()
    page.get_by_label("Label").fill("Typed before maintenance")
    page.get_by_label("API key").fill("svc_sk_typed_during_maintenance")

    maintenance("on")
    page.get_by_role("button", name="Check and save key").click()

    expect(page.locator("#messages")).to_contain_text(
        "The console is under maintenance: the console is being upgraded."
    )
    expect(page.get_by_label("Label")).to_have_value("Typed before maintenance")
    expect(page.get_by_label("API key")).to_have_value("svc_sk_typed_during_maintenance")
    maintenance("off")
