"""Email on a developer's machine (`make run` without EMAIL_URL).

Every message is written to the log and kept as a `DevelopmentMail` row, so
an invitation's link can be followed on a fresh machine: administrators read
them on the Mail (development) page (`people:mail`). Settings choose this
backend only outside production and only when no EMAIL_URL is set; a
deployment sends through SMTP, the tests through Django's locmem backend.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend

logger = logging.getLogger("dashboard.people.mail")

# The page shows the latest messages; older ones are dropped as new ones come.
KEEP = 200


class DevelopmentMailBackend(BaseEmailBackend):
    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        from dashboard.people.models import DevelopmentMail

        sent = 0
        for message in email_messages:
            recipients = ", ".join(message.recipients())
            body = str(message.body)
            logger.info("Mail (development) to %s: %s\n%s", recipients, message.subject, body)
            DevelopmentMail.objects.create(
                sender=str(message.from_email)[:254],
                recipients=recipients[:1000],
                subject=str(message.subject)[:300],
                body=body,
            )
            sent += 1
        stale = DevelopmentMail.objects.order_by("-id").values_list("id", flat=True)[KEEP : KEEP + 1]
        if stale:
            DevelopmentMail.objects.filter(id__lte=stale[0]).delete()
        return sent
