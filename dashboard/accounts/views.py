from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.views import LoginView


class ConsoleLoginView(LoginView):
    """Django's login view, with the single sign-on button when it is configured."""

    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["sso_provider"] = settings.OIDC_PROVIDER_NAME if settings.OIDC_ENABLED else ""
        return context
