from django.contrib import admin

from dashboard.live.models import TrackedOperation


@admin.register(TrackedOperation)
class TrackedOperationAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "kind",
        "title",
        "status",
        "is_final",
        "next_poll_at",
        "poll_count",
        "started_by",
        "created_at",
    )
    list_filter = ("kind", "is_final", "status")
    search_fields = ("remote_id", "title")
    # The owner key is shown by its label only; its secret never reaches the admin.
    raw_id_fields = ("owner_key", "started_by")
    readonly_fields = ("created_at", "updated_at", "last_polled_at", "lease_until", "lease_token")
