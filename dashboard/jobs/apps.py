from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "dashboard.jobs"
    label = "jobs"
