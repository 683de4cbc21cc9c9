from django.urls import path

from agents import views

app_name = "agents"
urlpatterns = [
    path("agents/", views.index, name="index"),
    path("approvals/", views.approvals, name="approvals"),
]
