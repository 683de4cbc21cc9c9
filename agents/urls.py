from django.urls import path

from agents import views

app_name = "agents"
# Ids are taken as the service gives them (UUIDs by the spec): a page never
# fails to link an odd one, and an unknown id is the service's 404.
urlpatterns = [
    path("agents/", views.index, name="index"),
    path("agents/new", views.agent_create, name="create"),
    path("agents/<str:agent_id>/", views.agent_detail, name="detail"),
    path("agents/<str:agent_id>/activate", views.agent_activate, name="activate"),
    path("agents/<str:agent_id>/pause", views.agent_pause, name="pause"),
    path("agents/<str:agent_id>/rename", views.agent_rename, name="rename"),
    path("agents/<str:agent_id>/change", views.agent_change, name="change"),
    path("agents/<str:agent_id>/webhook", views.agent_webhook, name="webhook"),
    path("agents/<str:agent_id>/chat/", views.chat, name="chat"),
    path("agents/<str:agent_id>/chat/send", views.chat_send, name="chat_send"),
    path("runs/<str:run_id>/", views.run_detail, name="run"),
    path("approvals/", views.approvals, name="approvals"),
    path("approvals/<str:approval_id>/decide", views.approval_decide, name="approval_decide"),
]
