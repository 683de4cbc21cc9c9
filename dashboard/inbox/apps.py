from django.apps import AppConfig


class InboxConfig(AppConfig):
    name = "dashboard.inbox"
    label = "inbox"

    def ready(self) -> None:
        from dashboard.api.hooks import on_remote_write
        from dashboard.inbox.services import inbox_after_write

        # A decision settles its item at once and has the workspace read again.
        on_remote_write(inbox_after_write)
