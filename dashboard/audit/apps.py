from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AuditConfig(AppConfig):
    name = "dashboard.audit"
    label = "audit"

    def ready(self) -> None:
        from dashboard.api.hooks import on_remote_write
        from dashboard.audit.feed import audit_feed_connect
        from dashboard.audit.services import audit_key_removed, audit_key_stored, audit_write_record
        from dashboard.frame.areas import Area, HomeCard, NavEntry, register_area
        from dashboard.keys.signals import api_key_removed, api_key_stored

        on_remote_write(audit_write_record)
        api_key_stored.connect(audit_key_stored, dispatch_uid="audit_key_stored")
        api_key_removed.connect(audit_key_removed, dispatch_uid="audit_key_removed")
        audit_feed_connect()
        register_area(
            Area(
                name="audit",
                order=80,
                nav=(NavEntry(_("Audit"), "audit:index", permission="audit.view_audit_trail"),),
                cards=(
                    HomeCard(
                        _("Audit trail"),
                        _("Every write made through the console, and who decided what."),
                        "audit:index",
                        permission="audit.view_audit_trail",
                    ),
                ),
            )
        )
