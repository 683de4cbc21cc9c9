from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PeopleConfig(AppConfig):
    name = "dashboard.people"
    label = "people"
    verbose_name = "People"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_logged_out

        from dashboard.frame.areas import Area, HomeCard, ListPage, NavEntry, register_area
        from dashboard.people.roles import MANAGE_PEOPLE

        user_logged_in.connect(_session_recorded, dispatch_uid="people_session_recorded")
        user_logged_out.connect(_session_forgotten, dispatch_uid="people_session_forgotten")
        from dashboard.people.language import session_language_from_person

        user_logged_in.connect(session_language_from_person, dispatch_uid="people_session_language")
        register_area(
            Area(
                name="people",
                order=85,
                nav=(NavEntry(_("People"), "people:index", permission=MANAGE_PEOPLE),),
                cards=(
                    HomeCard(
                        _("People"),
                        _("Invite teammates, set their roles, deactivate someone who left."),
                        "people:index",
                        permission=MANAGE_PEOPLE,
                    ),
                ),
                list_pages=(ListPage(_("Back to People"), "people:index"),),
            )
        )


def _session_recorded(sender, request, user, **kwargs) -> None:
    """Each login's session (so deactivating the person ends exactly theirs,
    and they see where they are signed in), and the sign-in in the audit trail."""
    from dashboard.accounts.lockout import client_address
    from dashboard.people.services import session_record

    session = getattr(request, "session", None)
    meta = getattr(request, "META", {})
    # As the login throttle's rule (accounts/lockout.py): a login made without a request
    # from outside (a script's or a test client's force_login) is no one signing in.
    from_outside = bool(meta.get("REMOTE_ADDR"))
    session_record(
        user=user,
        session_key=getattr(session, "session_key", None),
        user_agent=str(meta.get("HTTP_USER_AGENT", "")),
        address=client_address(request) if from_outside else "",
        audited=from_outside,
    )


def _session_forgotten(sender, request, user, **kwargs) -> None:
    from dashboard.people.services import session_forget

    session = getattr(request, "session", None)
    session_forget(session_key=getattr(session, "session_key", None))
