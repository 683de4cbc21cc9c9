from django.urls import path

from dashboard.assistants import views

app_name = "assistants"

urlpatterns = [
    path("requests/", views.requests_page, name="requests"),
    path("requests/<pk:request_id>/decision", views.request_decide, name="decide"),
]
