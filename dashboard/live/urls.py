from django.urls import path

from dashboard.live import views
from dashboard.web import converters  # noqa: F401  (the remote_id and pk path converters)

app_name = "live"
urlpatterns = [
    path("", views.index, name="index"),
    path("<pk:pk>/", views.detail, name="detail"),
    path("<pk:pk>/status", views.status, name="status"),
]
