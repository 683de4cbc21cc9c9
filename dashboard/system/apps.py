"""What an operator needs: readiness (/livez, /readyz), the System status
page for console administrators, and `manage.py preflight`."""

from django.apps import AppConfig


class SystemConfig(AppConfig):
    name = "dashboard.system"
    label = "system"
    verbose_name = "System"

    def ready(self) -> None:
        from dashboard.celery import app
        from dashboard.frame.areas import Area, HomeCard, NavEntry, register_area
        from dashboard.people.roles import VIEW_SYSTEM_STATUS
        from dashboard.system.service_probe import SERVICE_PROBE_SECONDS

        register_area(
            Area(
                name="system",
                order=95,
                nav=(NavEntry("System", "system:status", permission=VIEW_SYSTEM_STATUS),),
                cards=(
                    HomeCard(
                        "System status",
                        "Readiness, workers and beat, live updates, refused keys, the service and recent errors.",
                        "system:status",
                        permission=VIEW_SYSTEM_STATUS,
                    ),
                ),
            )
        )
        # The service's probe, measured by a worker only while the page is open
        # (a result older than one interval expires unread).
        app.conf.beat_schedule = {
            **(app.conf.beat_schedule or {}),
            "system.probe_service": {
                "task": "system.probe_service",
                "schedule": float(SERVICE_PROBE_SECONDS),
                "options": {"expires": float(SERVICE_PROBE_SECONDS)},
            },
        }
