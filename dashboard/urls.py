from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from dashboard import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/", include("dashboard.accounts.urls")),
    path("", include("dashboard.keys.urls")),
    path("live/", include("dashboard.live.urls")),
    path("inbox/", include("dashboard.inbox.urls")),
    path("audit/", include("dashboard.audit.urls")),
    path("studio/", include("studio.urls")),
    path("", include("agents.urls")),
    path("objects/", include("objects.urls")),
    path("admin/", admin.site.urls),
]

if settings.OIDC_ENABLED:
    # Single sign-on; the library is imported only when it is configured.
    urlpatterns += [path("accounts/", include("dashboard.accounts.oidc"))]
