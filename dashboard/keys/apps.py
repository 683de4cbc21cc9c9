from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class KeysConfig(AppConfig):
    name = "dashboard.keys"
    label = "keys"

    def ready(self) -> None:
        from dashboard.api.hooks import on_key_refused
        from dashboard.frame.areas import Area, HomeCard, ListPage, NavEntry, register_area
        from dashboard.keys.services import api_key_refused

        # A 401 to any call made with a stored key marks that key refused.
        on_key_refused(api_key_refused)

        # The core's own part of the frame, registered like any area's.
        register_area(
            Area(
                name="account",
                order=90,
                nav=(NavEntry(_("Account"), "account"),),
                cards=(HomeCard(_("API keys"), _("Add, check, switch and delete your stored keys."), "keys:list"),),
                list_pages=(ListPage(_("Back to API keys"), "keys:list"),),
            )
        )
