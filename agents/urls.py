from django.urls import path

from agents import views

app_name = "agents"
urlpatterns = [
    path("agents/", views.index, name="index"),
    path("agents/new", views.agent_create, name="create"),
    path("agents/<uuid:agent_id>/", views.agent_detail, name="detail"),
    path("agents/<uuid:agent_id>/activate", views.agent_activate, name="activate"),
    path("agents/<uuid:agent_id>/pause", views.agent_pause, name="pause"),
    path("agents/<uuid:agent_id>/rename", views.agent_rename, name="rename"),
    path("agents/<uuid:agent_id>/change", views.agent_change, name="change"),
    path("agents/<uuid:agent_id>/webhook", views.agent_webhook, name="webhook"),
    path("agents/<uuid:agent_id>/chat/", views.chat, name="chat"),
    path("agents/<uuid:agent_id>/chat/send", views.chat_send, name="chat_send"),
    path("runs/<uuid:run_id>/", views.run_detail, name="run"),
    path("approvals/", views.approvals, name="approvals"),
    path("approvals/<uuid:approval_id>/decide", views.approval_decide, name="approval_decide"),
]
