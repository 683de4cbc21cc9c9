from django.contrib.auth import views as auth_views
from django.urls import path

from dashboard.accounts.views import ConsoleLoginView

urlpatterns = [
    path("login/", ConsoleLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
]
