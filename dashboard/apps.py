from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "dashboard"

    def ready(self) -> None:
        from dashboard.api.hooks import log_remote_write, on_remote_write

        on_remote_write(log_remote_write)
