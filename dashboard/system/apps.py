from django.apps import AppConfig


class SystemConfig(AppConfig):
    name = "dashboard.system"
    label = "system"
    verbose_name = "System"
