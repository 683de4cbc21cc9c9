from django.urls import path

from dashboard.audit import views

app_name = "audit"
urlpatterns = [
    path("", views.index, name="index"),
    path("export.csv", views.export, name="export"),
    path("feed", views.feed, name="feed"),
]
