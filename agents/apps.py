from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

# The approvals queue's pages, a section of its own in the navigation.
APPROVAL_VIEWS = frozenset(
    {
        "approvals",
        "approval_decide",
        "approval_reinstruct",
        "policy_center",
        "grant_revoke",
        "deadlines",
        "rules",
        "rule_remove",
    }
)
# Runs across agents (and any run's page), the section people follow work in.
RUN_VIEWS = frozenset(
    {
        "runs",
        "run",
        "run_row",
        "run_rerun",
        "run_step",
        "run_follow",
        "run_rerun_edit",
        "run_rerun_edited",
        "runs_rerun_failed",
        "rerun_batch",
    }
)


class AgentsConfig(AppConfig):
    name = "agents"

    def ready(self) -> None:
        from django.conf import settings

        from agents.api import router as approvals_api
        from agents.assistant_tools import AGENT_TOOLS, APPROVAL_TOOLS
        from agents.audit_words import audit_words
        from agents.bulk_decisions import APPROVAL_BATCH
        from agents.bulk_reruns import RERUN_BATCH
        from agents.home import runs_failed_or_waiting
        from agents.inbox import AGENTS_INBOX
        from agents.live import AGENT_INVOCATION, AGENT_RUN
        from agents.message_decisions import DECIDER
        from agents.palette import PALETTE_SOURCES
        from agents.runs_api import router as runs_api
        from dashboard.frame.areas import Area, HomeCard, ListPage, NavEntry, Periodic, register_area
        from dashboard.reach.decision_tokens import register_approval_decider

        # Approve / Reject from a message (email, Slack, Teams) decide through this area's one flow.
        register_approval_decider(DECIDER)

        register_area(
            Area(
                name="agents",
                order=20,
                nav=(NavEntry(_("Agents"), "agents:index"), NavEntry(_("Runs"), "agents:runs", views=RUN_VIEWS)),
                cards=(
                    HomeCard(_("Agents"), _("Draft, activate and talk to agents; follow their runs."), "agents:index"),
                ),
                list_pages=(ListPage(_("Back to agents"), "agents:index"),),
                tracked_kinds=(AGENT_RUN, AGENT_INVOCATION),
                inbox_sources=(AGENTS_INBOX,),
                home_sections=(runs_failed_or_waiting,),
                remote_resources=("agents", "runs"),
                audit_words=audit_words,
                palette_sources=PALETTE_SOURCES,
                api_routers=(("/", runs_api),),
                job_kinds=(RERUN_BATCH,),
                mcp_tools=AGENT_TOOLS,
                # Agent insights: the runs of workspaces someone looked at lately
                # are read again on this interval (agents/services.py, insights_refresh).
                periodic=(
                    Periodic(
                        "agents.insights_refresh_due",
                        every=settings.AGENTS_INSIGHTS_REFRESH_SECONDS,
                        expires=settings.AGENTS_INSIGHTS_REFRESH_SECONDS,
                    ),
                    # When nobody answers: the deadline outcomes of the approval rules (agents/deadline_outcomes.py).
                    Periodic(
                        "agents.deadline_outcomes_due",
                        every=settings.APPROVAL_OUTCOMES_SWEEP_SECONDS,
                        expires=settings.APPROVAL_OUTCOMES_SWEEP_SECONDS,
                    ),
                    # Alert rules on aggregates, from the console's own rows (agents/alerts.py).
                    Periodic(
                        "agents.alerts_evaluate",
                        every=settings.ALERTS_EVALUATE_SECONDS,
                        expires=settings.ALERTS_EVALUATE_SECONDS,
                    ),
                ),
            )
        )
        register_area(
            Area(
                name="approvals",
                order=40,
                nav=(NavEntry(_("Approvals"), "agents:approvals", views=APPROVAL_VIEWS),),
                cards=(HomeCard(_("Approvals"), _("Decide what agents may do."), "agents:approvals"),),
                list_pages=(ListPage(_("Back to approvals"), "agents:approvals", views=APPROVAL_VIEWS),),
                remote_resources=("approvals",),
                audit_words=audit_words,
                job_kinds=(APPROVAL_BATCH,),
                api_routers=(("/", approvals_api),),
                mcp_tools=APPROVAL_TOOLS,
            )
        )
