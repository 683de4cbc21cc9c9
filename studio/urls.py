from django.urls import path

from studio import views

app_name = "studio"
urlpatterns = [
    path("", views.index, name="index"),
    path("turns/", views.start_turn, name="start"),
    path("turns/<int:pk>/", views.turn, name="turn"),
    path("turns/<int:pk>/reply", views.reply, name="reply"),
]
