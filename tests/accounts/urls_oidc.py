"""The console's URLs as they are with single sign-on configured
(dashboard.urls adds these only when OIDC_RP_CLIENT_ID is set at start)."""

from django.urls import include, path

from dashboard.urls import urlpatterns as console_urlpatterns

urlpatterns = [path("accounts/", include("dashboard.accounts.oidc")), *console_urlpatterns]
