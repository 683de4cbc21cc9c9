from django.urls import path

from dashboard.people import views, views_theme
from dashboard.web import converters  # noqa: F401  (the pk path converter)

app_name = "people"

urlpatterns = [
    path("", views.index, name="index"),
    path("invite/", views.invite, name="invite"),
    path("invitations/<pk:pk>/resend/", views.invitation_resend, name="invitation_resend"),
    path("invitations/<pk:pk>/revoke/", views.invitation_revoke, name="invitation_revoke"),
    # A new link to copy and hand over another way (shown once; the earlier one stops working).
    path("invitations/<pk:pk>/link/", views.invitation_link, name="invitation_link"),
    # The invitee's link: the token is the credential (only its hash is stored).
    path("join/<slug:token>/", views.accept, name="accept"),
    path("join/<slug:token>/single-sign-on/", views.accept_with_sso, name="accept_sso"),
    path("mail/", views.mail, name="mail"),
    # One's own light/dark choice (the header's theme control): any role.
    path("theme/", views_theme.theme_set, name="theme"),
    path("<pk:pk>/", views.person, name="person"),
    path("<pk:pk>/role/", views.role_change, name="role"),
    path("<pk:pk>/workspace-role/", views.workspace_role_change, name="workspace_role"),
    path("<pk:pk>/deactivate/", views.deactivate, name="deactivate"),
    path("<pk:pk>/reactivate/", views.reactivate, name="reactivate"),
    path("<pk:pk>/keys/delete/", views.keys_delete, name="keys_delete"),
]
