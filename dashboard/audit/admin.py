from django.contrib import admin

from dashboard.audit.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """Read only: the trail is append-only for every user, superusers included."""

    list_display = ("created_at", "username", "area", "kind", "method", "path", "status", "request_id")
    list_filter = ("area", "kind")
    search_fields = ("username", "path", "request_id", "idempotency_key", "summary", "note")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
