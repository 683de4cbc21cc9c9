from django.urls import include, path

from dashboard.keys import views
from dashboard.web import converters  # noqa: F401  (the remote_id and pk path converters)

key_patterns = [
    path("", views.key_list, name="list"),
    path("add/", views.key_add, name="add"),
    path("activate/", views.key_activate, name="activate"),
    path("<pk:pk>/check/", views.key_check, name="check"),
    path("<pk:pk>/delete/", views.key_delete, name="delete"),
]

# Included at the site root: `keys:*` under /settings/keys/, and the
# un-namespaced `account` page.
urlpatterns = [
    path("settings/keys/", include((key_patterns, "keys"))),
    path("account/", views.account, name="account"),
]
