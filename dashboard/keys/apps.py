from django.apps import AppConfig


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
                nav=(NavEntry("Account", "account"),),
                cards=(HomeCard("API keys", "Add, check, switch and delete your stored keys.", "keys:list"),),
                list_pages=(ListPage("Back to API keys", "keys:list"),),
            )
        )
