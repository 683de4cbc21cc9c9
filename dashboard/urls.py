from django.contrib import admin
from django.urls import include, path

from dashboard import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/", include("dashboard.accounts_urls")),
    path("", include("dashboard.keys.urls")),
    path("live/", include("dashboard.live.urls")),
    path("audit/", include("dashboard.audit.urls")),
    path("studio/", include("studio.urls")),
    path("", include("agents.urls")),
    path("objects/", include("objects.urls")),
    path("admin/", admin.site.urls),
]
