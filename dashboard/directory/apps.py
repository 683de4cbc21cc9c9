from django.apps import AppConfig


class DirectoryConfig(AppConfig):
    name = "dashboard.directory"
    label = "directory"
    verbose_name = "Directory provisioning (SCIM)"
