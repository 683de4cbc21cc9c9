from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AssistantsConfig(AppConfig):
    """The console's MCP server for assistants, and the assistant requests a
    person approves first (docs/assistants.md)."""

    name = "dashboard.assistants"
    label = "assistants"
    verbose_name = "Assistants"

    def ready(self) -> None:
        from dashboard.assistants.inbox import ASSISTANTS_INBOX
        from dashboard.frame.areas import Area, NavEntry, register_area
        from dashboard.people.roles import DECIDE_APPROVALS

        register_area(
            Area(
                name="assistants",
                order=45,
                nav=(NavEntry(_("Assistant requests"), "assistants:requests", permission=DECIDE_APPROVALS),),
                inbox_sources=(ASSISTANTS_INBOX,),
            )
        )
