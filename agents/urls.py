from django.urls import path

from agents import views
from dashboard.web import converters  # noqa: F401  (the remote_id and pk path converters)

app_name = "agents"
# Ids are taken as the service gives them (UUIDs by the spec; the remote_id
# converter turns away only what no id can hold): an unknown id is the service's 404.
urlpatterns = [
    path("agents/", views.index, name="index"),
    path("agents/new", views.agent_create, name="create"),
    # Before the agent page's pattern, which would take "insights" for an agent id.
    path("agents/insights/", views.insights, name="insights"),
    path("agents/insights/poll", views.insights_poll, name="insights_poll"),
    path("agents/policy/", views.policy_center, name="policy"),
    path("agents/deadlines/", views.approval_deadlines, name="deadlines"),
    path("agents/rules/", views.approval_rules, name="rules"),
    path("agents/rules/remove", views.approval_rule_remove, name="rule_remove"),
    # Alert rules on aggregates (agents/alerts.py), Administrators only.
    path("agents/alerts/", views.alert_rules, name="alerts"),
    path("agents/alerts/<pk:rule_id>/", views.alert_rule, name="alert"),
    path("agents/alerts/<pk:rule_id>/delete", views.alert_rule_delete, name="alert_delete"),
    path("agents/<remote_id:agent_id>/", views.agent_detail, name="detail"),
    path("agents/<remote_id:agent_id>/activate", views.agent_activate, name="activate"),
    path("agents/<remote_id:agent_id>/pause", views.agent_pause, name="pause"),
    path("agents/<remote_id:agent_id>/rename", views.agent_rename, name="rename"),
    path("agents/<remote_id:agent_id>/change", views.agent_change, name="change"),
    path("agents/<remote_id:agent_id>/webhook", views.agent_webhook, name="webhook"),
    path("agents/<remote_id:agent_id>/chat/", views.chat, name="chat"),
    path("agents/<remote_id:agent_id>/chat/send", views.chat_send, name="chat_send"),
    path("agents/<remote_id:agent_id>/threads/", views.threads, name="threads"),
    path("agents/<remote_id:agent_id>/insights/", views.agent_insights, name="agent_insights"),
    path("agents/<remote_id:agent_id>/insights/poll", views.insights_poll, name="agent_insights_poll"),
    path("runs/", views.runs, name="runs"),
    path("runs/compare/", views.runs_compare, name="runs_compare"),
    path("runs/rerun-failed/", views.runs_rerun_failed, name="runs_rerun_failed"),
    path("runs/rerun-failed/start", views.runs_rerun_failed_start, name="runs_rerun_failed_start"),
    path("runs/reruns/<pk:pk>/", views.rerun_batch, name="rerun_batch"),
    path("runs/reruns/<pk:pk>/status", views.rerun_batch_status, name="rerun_batch_status"),
    path("runs/reruns/<pk:pk>/cancel", views.rerun_batch_cancel, name="rerun_batch_cancel"),
    # Saved views of the runs list (agents/run_views.py).
    path("runs/views/new", views.run_view_new, name="run_view_new"),
    path("runs/views/<pk:view_id>/default", views.run_view_default, name="run_view_default"),
    path("runs/views/<pk:view_id>/delete", views.run_view_remove, name="run_view_remove"),
    path("runs/rows/<pk:pk>", views.run_row, name="run_row"),
    path("runs/<remote_id:run_id>/", views.run_detail, name="run"),
    path("runs/<remote_id:run_id>/steps/<int:number>/", views.run_step, name="run_step"),
    path("runs/<remote_id:run_id>/follow", views.run_follow, name="run_follow"),
    path("runs/<remote_id:run_id>/rerun", views.run_rerun, name="run_rerun"),
    # Rerun with changes, and the failed runs of a filter as one job (agents/views/reruns.py).
    path("runs/<remote_id:run_id>/rerun/edit", views.run_rerun_edit, name="run_rerun_edit"),
    path("runs/<remote_id:run_id>/rerun/edited", views.run_rerun_edited, name="run_rerun_edited"),
    path("approvals/", views.approvals, name="approvals"),
    path("approvals/news", views.approvals_news, name="approvals_news"),
    path("approvals/bulk/", views.approval_batch_start, name="approval_batch_start"),
    path("approvals/bulk/<pk:pk>/", views.approval_batch, name="approval_batch"),
    path("approvals/bulk/<pk:pk>/status", views.approval_batch_status, name="approval_batch_status"),
    path("approvals/<remote_id:approval_id>/", views.approval_detail, name="approval"),
    path("approvals/<remote_id:approval_id>/decide", views.approval_decide, name="approval_decide"),
    path("approvals/<remote_id:approval_id>/reinstruct", views.approval_reinstruct, name="approval_reinstruct"),
    path("agents/<remote_id:agent_id>/policy/revoke", views.grant_revoke, name="grant_revoke"),
]
