from django.apps import AppConfig

# The approvals queue's pages, a section of its own in the navigation.
APPROVAL_VIEWS = frozenset({"approvals", "approval_decide"})
# Runs across agents (and any run's page), the section people follow work in.
RUN_VIEWS = frozenset({"runs", "run", "run_row", "run_rerun"})


class AgentsConfig(AppConfig):
    name = "agents"

    def ready(self) -> None:
        from agents.inbox import AGENTS_INBOX
        from agents.live import AGENT_INVOCATION, AGENT_RUN
        from dashboard.frame.areas import Area, HomeCard, ListPage, NavEntry, register_area

        register_area(
            Area(
                name="agents",
                order=20,
                nav=(NavEntry("Agents", "agents:index"), NavEntry("Runs", "agents:runs", views=RUN_VIEWS)),
                cards=(HomeCard("Agents", "Draft, activate and talk to agents; follow their runs.", "agents:index"),),
                list_pages=(ListPage("Back to agents", "agents:index"),),
                tracked_kinds=(AGENT_RUN, AGENT_INVOCATION),
                inbox_sources=(AGENTS_INBOX,),
                remote_resources=("agents", "runs"),
            )
        )
        register_area(
            Area(
                name="approvals",
                order=40,
                nav=(NavEntry("Approvals", "agents:approvals", views=APPROVAL_VIEWS),),
                cards=(HomeCard("Approvals", "Decide what agents may do.", "agents:approvals"),),
                list_pages=(ListPage("Back to approvals", "agents:approvals", views=APPROVAL_VIEWS),),
                remote_resources=("approvals",),
            )
        )
