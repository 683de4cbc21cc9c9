"""Sign-in pages for administrators, included under /people/ (dashboard/urls.py)."""

from django.urls import path

from dashboard.accounts import views_policy
from dashboard.web import converters  # noqa: F401  (the pk path converter)

urlpatterns = [
    path("sign-in-policy/", views_policy.sign_in_policy, name="sign_in_policy"),
    path("<pk:pk>/two-factor-reset/", views_policy.two_factor_reset, name="two_factor_reset"),
]
