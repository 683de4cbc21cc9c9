from django.urls import path

from dashboard.live import views

app_name = "live"
urlpatterns = [
    path("", views.index, name="index"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/status", views.status, name="status"),
]
