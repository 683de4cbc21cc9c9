"""The console's URLs as they are with SAML sign-in configured
(dashboard.urls adds these only when SAML_IDP_METADATA is set at start)."""

from django.urls import include, path

from dashboard.urls import urlpatterns as console_urlpatterns

urlpatterns = [path("accounts/", include("dashboard.accounts.saml")), *console_urlpatterns]
