from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "dashboard.audit"
    label = "audit"

    def ready(self) -> None:
        from dashboard.api.hooks import on_remote_write
        from dashboard.audit.feed import audit_feed_connect
        from dashboard.audit.services import audit_write_record
        from dashboard.frame.areas import Area, HomeCard, NavEntry, register_area

        on_remote_write(audit_write_record)
        audit_feed_connect()
        register_area(
            Area(
                name="audit",
                order=80,
                nav=(NavEntry("Audit", "audit:index", permission="audit.view_audit_trail"),),
                cards=(
                    HomeCard(
                        "Audit trail",
                        "Every write made through the console, and who decided what.",
                        "audit:index",
                        permission="audit.view_audit_trail",
                    ),
                ),
            )
        )
