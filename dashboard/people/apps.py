from django.apps import AppConfig


class PeopleConfig(AppConfig):
    name = "dashboard.people"
    label = "people"
    verbose_name = "People"
