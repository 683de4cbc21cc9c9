from django.apps import AppConfig


class KeysConfig(AppConfig):
    name = "dashboard.keys"
    label = "keys"
