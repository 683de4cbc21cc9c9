import os

from django.apps import AppConfig


class MetricsConfig(AppConfig):
    name = "dashboard.metrics"
    label = "metrics"
    verbose_name = "Metrics"

    def ready(self) -> None:
        from dashboard.metrics import checks  # noqa: F401  (registers the system checks)
        from dashboard.metrics.access import configured

        if not configured():
            return  # off: nothing listens, nothing is written, /metrics is a 404
        path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        if path:
            os.makedirs(path, exist_ok=True)
        from dashboard.metrics import registry, signals

        registry.enable()
        signals.connect()
