from django.contrib import admin

from dashboard.keys.models import ApiKey


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    """Stored keys, never with their secret: the encrypted column is left out
    entirely, the key shows masked. Keys are added by their owner through the
    console (which checks them with the service), not here."""

    list_display = ["label", "user", "masked", "workspace_name", "member_role", "is_active", "last_verified_at"]
    list_filter = ["is_active"]
    search_fields = ["label", "user__username", "workspace_name", "key_name"]
    exclude = ["encrypted_secret"]
    readonly_fields = [
        "user",
        "masked",
        "prefix",
        "last4",
        "workspace_id",
        "workspace_name",
        "workspace_timezone",
        "member_id",
        "member_role",
        "key_id",
        "key_name",
        "key_created_at",
        "last_verified_at",
        "is_active",
        "created_at",
    ]
    fields = ["label", *readonly_fields]

    @admin.display(description="Key")
    def masked(self, obj: ApiKey) -> str:
        return obj.masked

    def has_add_permission(self, request) -> bool:
        return False
