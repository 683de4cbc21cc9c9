from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "dashboard"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from dashboard.accounts.middleware import session_login_mark
        from dashboard.api.hooks import log_remote_write, on_remote_write

        on_remote_write(log_remote_write)
        user_logged_in.connect(session_login_mark, dispatch_uid="console-session-login-mark")
