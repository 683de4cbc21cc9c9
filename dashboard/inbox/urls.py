from django.urls import path

from dashboard.inbox import views

app_name = "inbox"
urlpatterns = [
    path("", views.index, name="index"),
    path("header", views.header, name="header"),
    path("refresh", views.refresh, name="refresh"),
    path("dismiss", views.dismiss, name="dismiss"),
]
