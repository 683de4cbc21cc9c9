from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


class EventsConfig(AppConfig):
    """A workspace's outbound events (docs/events.md): signed webhooks of what
    the console sees happen, delivered with retries, logged for Administrators."""

    name = "dashboard.events"
    label = "events"
    verbose_name = "Outbound events"

    def ready(self) -> None:
        from dashboard.frame.areas import Area, HomeCard, Periodic, register_area
        from dashboard.people.roles import MANAGE_PEOPLE

        sweep = float(settings.EVENTS_SWEEP_SECONDS)

        register_area(
            Area(
                name="events",
                order=96,
                cards=(
                    HomeCard(
                        _("Outbound events"),
                        _(
                            "Signed webhooks of approvals, failed runs, record changes and finished jobs, "
                            "and their delivery log."
                        ),
                        "events:endpoints",
                        permission=MANAGE_PEOPLE,
                    ),
                ),
                # Deliveries whose next try came (the row is the schedule: dashboard/events/sending.py).
                periodic=(
                    Periodic("events.deliver_due", every=sweep, expires=sweep),
                    Periodic("events.prune", every=24 * 3600.0),
                ),
            )
        )
