"""People → Directory provisioning (under /people/directory/, dashboard/urls.py)."""

from django.urls import path

from dashboard.directory import views
from dashboard.web import converters  # noqa: F401  (the pk path converter)

app_name = "directory"

urlpatterns = [
    path("", views.tokens, name="tokens"),
    path("new/", views.token_new, name="token_new"),
    path("<pk:pk>/revoke/", views.token_revoke, name="token_revoke"),
]
