"""Email: the development backend (the log and the Mail (development) page)
and a real SMTP server (aiosmtpd) receiving an invitation."""

from __future__ import annotations

import logging
import re
from email import message_from_bytes

import pytest
from django.urls import reverse

from dashboard.people.models import DevelopmentMail
from dashboard.people.roles import Role
from tests.html import select, text_of

pytestmark = pytest.mark.django_db


def test_without_an_email_server_the_message_is_logged_and_kept_for_administrators(admin_client, settings, caplog):
    settings.EMAIL_BACKEND = "dashboard.people.mail.DevelopmentMailBackend"

    with caplog.at_level(logging.INFO, logger="dashboard.people.mail"):
        admin_client.post(reverse("people:invite"), {"emails": "newbie@example.com", "role": Role.MEMBER})

    kept = DevelopmentMail.objects.get()
    assert kept.recipients == "newbie@example.com"
    link = re.search(r"http://testserver/people/join/[\w-]+/", kept.body).group(0)
    assert link in caplog.text
    page = admin_client.get(reverse("people:mail"))
    assert page.status_code == 200
    assert [text_of(heading) for heading in select(page.content, "main article h2")] == [
        "You're invited to Workspace Console"
    ]
    assert link in [anchor["href"] for anchor in select(page.content, "main article pre a")]


def test_the_mail_page_is_not_there_when_email_is_sent_for_real(admin_client, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

    assert admin_client.get(reverse("people:mail")).status_code == 404


def test_an_invitation_goes_through_a_real_smtp_server(admin_client, settings, smtp_server):
    handler, port = smtp_server
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.DEFAULT_FROM_EMAIL = "Console <console@example.com>"

    response = admin_client.post(reverse("people:invite"), {"emails": "smtp.person@example.com", "role": Role.VIEWER})

    assert response.status_code == 302
    [envelope] = handler.received
    assert envelope.rcpt_tos == ["smtp.person@example.com"]
    assert envelope.mail_from == "console@example.com"
    message = message_from_bytes(envelope.content)
    assert message["Subject"] == "You're invited to Workspace Console"
    assert re.search(r"http://testserver/people/join/[\w-]+/", message.get_payload(decode=True).decode())
