from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Signing in: the login steps, password reset, two-factor sign-in and the
    sign-in policy (which roles must use a second factor). An installed app
    for its one model (`RequiredTwoFactorRole`), its task and its template tag."""

    name = "dashboard.accounts"
    label = "accounts"
    verbose_name = "Sign-in"
