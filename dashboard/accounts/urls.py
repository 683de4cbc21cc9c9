from django.contrib.auth import views as auth_views
from django.urls import path

from dashboard.accounts import views, views_passkeys, views_self
from dashboard.fair_use import costly_request
from dashboard.frame.key_gate import works_without_key
from dashboard.web import converters  # noqa: F401  (the pk path converter)

# Django's own names (password_reset_done, password_reset_confirm, ...) are
# kept: its views and the reset email's template reverse them.
urlpatterns = [
    # A posted password is costly (a hash): counted against the tighter fair-use allowance.
    path("login/", costly_request(when="password")(views.ConsoleLoginView.as_view()), name="login"),
    path("login/code/", views.login_code, name="login_code"),
    path("login/two-factor/", views.login_two_factor_setup, name="login_two_factor_setup"),
    # Passkeys while signing in: options for the browser, the second step, without a password, registering one.
    path("login/passkey/options/", views_passkeys.login_passkey_options, name="login_passkey_options"),
    path("login/code/passkey/", views_passkeys.login_code_passkey, name="login_code_passkey"),
    path("login/passkey/", views_passkeys.login_passkey, name="login_passkey"),
    path("login/passkey-setup/", views_passkeys.login_passkey_setup, name="login_passkey_setup"),
    path("logout/", works_without_key(auth_views.LogoutView.as_view()), name="logout"),
    path("password-reset/", views.ConsolePasswordResetView.as_view(), name="password_reset"),
    path(
        "password-reset/sent/",
        views.ConsolePasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password-reset/<uidb64>/<token>/",
        views.ConsolePasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/done/",
        auth_views.PasswordResetCompleteView.as_view(template_name="registration/password_reset_complete.html"),
        name="password_reset_complete",
    ),
    path("two-factor/", views.two_factor_page, name="two_factor"),
    path("two-factor/enable/", views.two_factor_enable, name="two_factor_enable"),
    path("two-factor/recovery-codes/", views.recovery_codes_new, name="recovery_codes_new"),
    path("two-factor/turn-off/", views.two_factor_turn_off, name="two_factor_turn_off"),
    path("you/", views_self.own_account, name="own_account"),
    path("you/name/", views_self.own_name, name="own_name"),
    path("you/language/", views_self.own_language, name="own_language"),
    path("you/passkeys/options/", views_passkeys.own_passkey_options, name="own_passkey_options"),
    path("you/passkeys/", views_passkeys.own_passkey_add, name="own_passkey_add"),
    path("you/passkeys/<pk:pk>/remove/", views_passkeys.own_passkey_remove, name="own_passkey_remove"),
    path("you/step-up/", views_passkeys.step_up_passkey, name="step_up_passkey"),
    path("you/sessions/sign-out/", views_self.own_sessions_sign_out, name="own_sessions_sign_out"),
    # A posted password is a hash to check: the tighter fair-use allowance, as the login's.
    path("you/password/", costly_request(when="old_password")(views_self.own_password), name="own_password"),
]
