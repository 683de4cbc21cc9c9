from django.urls import path

from dashboard.web import converters  # noqa: F401  (the remote_id and pk path converters)
from studio import views

app_name = "studio"
urlpatterns = [
    path("", views.index, name="index"),
    path("turns/", views.start_turn, name="start"),
    path("turns/<pk:pk>/", views.turn, name="turn"),
    path("turns/<pk:pk>/reply", views.reply, name="reply"),
]
