from django.apps import AppConfig


class OutboxConfig(AppConfig):
    name = "dashboard.outbox"
    label = "outbox"
