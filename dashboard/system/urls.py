from django.urls import path

from dashboard.system import views

app_name = "system"
urlpatterns = [
    path("status/", views.status, name="status"),
    path("status/live", views.status_live, name="status_live"),
]
