from django.urls import path

from dashboard.live import views

app_name = "live"
urlpatterns = [
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/status", views.status, name="status"),
]
