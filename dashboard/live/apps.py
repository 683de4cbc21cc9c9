from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "dashboard.live"
    label = "live"

    def ready(self) -> None:
        from dashboard.live.heartbeat import connect_heartbeat

        connect_heartbeat()
