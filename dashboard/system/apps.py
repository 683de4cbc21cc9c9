"""What an operator needs: readiness (/livez, /readyz), the System status
page for console administrators, and `manage.py preflight`."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SystemConfig(AppConfig):
    name = "dashboard.system"
    label = "system"
    verbose_name = "System"

    def ready(self) -> None:
        from dashboard.frame.areas import Area, HomeCard, NavEntry, Periodic, register_area
        from dashboard.people.roles import VIEW_SYSTEM_STATUS
        from dashboard.system.service_probe import SERVICE_PROBE_SECONDS

        register_area(
            Area(
                name="system",
                order=95,
                nav=(NavEntry(_("System"), "system:status", permission=VIEW_SYSTEM_STATUS),),
                cards=(
                    HomeCard(
                        _("System status"),
                        _("Readiness, workers and beat, live updates, refused keys, the service and recent errors."),
                        "system:status",
                        permission=VIEW_SYSTEM_STATUS,
                    ),
                ),
                # The service's probe, measured by a worker only while the page is
                # open (a result older than one interval expires unread).
                periodic=(
                    Periodic("system.probe_service", every=SERVICE_PROBE_SECONDS, expires=SERVICE_PROBE_SECONDS),
                ),
            )
        )
