from django.urls import path

from objects import views

app_name = "objects"
urlpatterns = [
    path("", views.index, name="index"),
]
