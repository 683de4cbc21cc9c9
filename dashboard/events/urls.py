from django.urls import path

from dashboard.events import views
from dashboard.web import converters  # noqa: F401  (the pk path converter)

app_name = "events"
urlpatterns = [
    path("", views.endpoints, name="endpoints"),
    path("<pk:pk>/", views.endpoint_edit, name="endpoint"),
    path("<pk:pk>/enable", views.endpoint_enable, name="enable"),
    path("<pk:pk>/test", views.endpoint_test, name="test"),
    path("<pk:pk>/secret", views.endpoint_secret, name="secret"),
    path("log/", views.delivery_log, name="log"),
    path("log/<pk:pk>/again", views.delivery_again, name="again"),
]
