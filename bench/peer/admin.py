"""A throwaway admin site showing the peer model's changelist: every column,
100 rows a page, newest change first (the records page's default sort)."""

from __future__ import annotations

from django.contrib import admin

from bench.peer.models import Deal

peer_site = admin.AdminSite(name="bench_admin")

COLUMNS = [
    "name",
    "notes",
    "seats",
    "amount",
    "close_date",
    "meeting_at",
    "active",
    "email",
    "phone",
    "website",
    "status",
    "tags",
    "stage",
    "logo",
    "contract",
    "created_at",
    "updated_at",
]


@admin.register(Deal, site=peer_site)
class DealAdmin(admin.ModelAdmin):
    list_display = COLUMNS
    list_per_page = 100
    ordering = ["-updated_at"]
