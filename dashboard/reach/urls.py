from django.urls import path

from dashboard.reach import confirm_views, slack, views, views_push
from dashboard.web import converters  # noqa: F401  (the pk path converter)

app_name = "reach"
urlpatterns = [
    path("", views.preferences, name="preferences"),
    path("webhooks/add", views.webhook_add, name="webhook_add"),
    path("webhooks/workspace/add", views.workspace_webhook_add, name="workspace_webhook_add"),
    path("webhooks/<pk:pk>/remove", views.webhook_remove, name="webhook_remove"),
    path("webhooks/<pk:pk>/resume", views.webhook_resume, name="webhook_resume"),
    path("log/", views.delivery_log, name="log"),
    path("log/<pk:pk>/retry", views.delivery_retry, name="retry"),
    path("claim", views.claim, name="claim"),
    path("push/subscribe", views_push.push_subscribe, name="push_subscribe"),
    path("push/<pk:pk>/unsubscribe", views_push.push_unsubscribe, name="push_unsubscribe"),
    # Decisions from a message: the confirmation page (GET shows, POST decides) and Slack's button clicks.
    path("decide/<str:token>", confirm_views.decide, name="decide"),
    path("slack/interactivity", slack.interactivity, name="slack_interactivity"),
]
