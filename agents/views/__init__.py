"""The Agents area's views, a module per concern (urls.py names them here)."""

from agents.views.agents import (
    agent_activate,
    agent_change,
    agent_create,
    agent_detail,
    agent_pause,
    agent_rename,
    agent_webhook,
    index,
)
from agents.views.alerts import alert_rule, alert_rule_delete, alert_rules
from agents.views.approval_batches import approval_batch, approval_batch_start, approval_batch_status
from agents.views.approvals import approval_decide, approval_detail, approvals, approvals_news
from agents.views.chat import chat, chat_send, threads
from agents.views.deadlines import approval_deadlines
from agents.views.insights import agent_insights, insights, insights_poll
from agents.views.policy import approval_reinstruct, grant_revoke, policy_center
from agents.views.reruns import (
    rerun_batch,
    rerun_batch_cancel,
    rerun_batch_status,
    run_rerun_edit,
    run_rerun_edited,
    runs_rerun_failed,
    runs_rerun_failed_start,
)
from agents.views.rules import approval_rule_remove, approval_rules
from agents.views.run_views import run_view_default, run_view_new, run_view_remove
from agents.views.runs import run_detail, run_follow, run_rerun, run_row, run_step, runs, runs_compare

__all__ = [
    "agent_activate",
    "agent_change",
    "agent_create",
    "agent_detail",
    "agent_insights",
    "agent_pause",
    "agent_rename",
    "agent_webhook",
    "alert_rule",
    "alert_rule_delete",
    "alert_rules",
    "approval_batch",
    "approval_batch_start",
    "approval_batch_status",
    "approval_deadlines",
    "approval_decide",
    "approval_detail",
    "approval_reinstruct",
    "approval_rule_remove",
    "approval_rules",
    "approvals",
    "approvals_news",
    "chat",
    "chat_send",
    "grant_revoke",
    "index",
    "insights",
    "insights_poll",
    "policy_center",
    "run_detail",
    "run_follow",
    "rerun_batch",
    "rerun_batch_cancel",
    "rerun_batch_status",
    "run_rerun",
    "run_rerun_edit",
    "run_rerun_edited",
    "run_row",
    "run_step",
    "run_view_default",
    "run_view_new",
    "run_view_remove",
    "runs",
    "runs_compare",
    "runs_rerun_failed",
    "runs_rerun_failed_start",
    "threads",
]
