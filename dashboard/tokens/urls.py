from django.urls import path

from dashboard.tokens import views

app_name = "tokens"

urlpatterns = [
    path("", views.tokens, name="list"),
    path("new", views.token_new, name="new"),
    path("policy", views.token_policy, name="policy"),
    path("<int:token_id>/revoke", views.token_revoke, name="revoke"),
]
