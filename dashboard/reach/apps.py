from django.apps import AppConfig


class ReachConfig(AppConfig):
    """Reaching people outside the tab: notification preferences, email and
    chat webhook deliveries, escalation of overdue items, claims and
    delegates (docs/design/core-inbox-reach.md, "Reaching people")."""

    name = "dashboard.reach"
    label = "reach"

    def ready(self) -> None:
        from dashboard.frame.areas import Area, register_area
        from dashboard.inbox.services import on_workspace_refreshed
        from dashboard.reach.api import router as notifications_api
        from dashboard.reach.producing import notifications_produce

        # One's own preferences in the console's API (no page of the navigation: the account menu has it).
        register_area(Area(name="reach", order=95, api_routers=(("/", notifications_api),)))

        # What the inbox refresh just learned (and the person's tracked work
        # the poller keeps) becomes deliveries; sending them is other tasks'.
        on_workspace_refreshed(notifications_produce)
