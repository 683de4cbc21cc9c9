"""Reads of outbound events for the pages (the console's database only):
a workspace's endpoints, its delivery log a page at a time (a fixed number
of queries whatever the number of deliveries), one delivery with its attempts."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Prefetch, Q

from dashboard.events.models import Attempt, Delivery, Endpoint

PAGE_SIZE = 50


def endpoints_of(*, workspace_id: str) -> list[Endpoint]:
    """The workspace's endpoints with their deliveries waiting and given up (one query)."""
    return list(
        Endpoint.objects.filter(workspace_id=workspace_id).annotate(
            waiting=Count("deliveries", filter=Q(deliveries__status=Delivery.STATUS_PENDING)),
            given_up=Count("deliveries", filter=Q(deliveries__status=Delivery.STATUS_FAILED)),
        )
    )


def endpoint_of(*, workspace_id: str, pk: int) -> Endpoint | None:
    return Endpoint.objects.filter(workspace_id=workspace_id, pk=pk).first()


@dataclass(frozen=True)
class DeliveryPage:
    rows: list[Delivery]
    next_cursor: str | None


def _cursor(value: str) -> int | None:
    return int(value) if value.isdigit() and len(value) < 19 else None


def deliveries_page(
    *, workspace_id: str, cursor: str = "", endpoint_id: int | None = None, status: str = ""
) -> DeliveryPage:
    """Newest first, PAGE_SIZE at a time after `cursor` (the last id shown),
    each with its endpoint, event and attempts: two queries a page."""
    rows = Delivery.objects.filter(endpoint__workspace_id=workspace_id)
    if endpoint_id is not None:
        rows = rows.filter(endpoint_id=endpoint_id)
    if status:
        rows = rows.filter(status=status)
    after = _cursor(cursor)
    if after is not None:
        rows = rows.filter(pk__lt=after)
    page = list(
        rows.select_related("endpoint", "event")
        .prefetch_related(Prefetch("attempt_rows", queryset=Attempt.objects.order_by("number")))
        .order_by("-pk")[: PAGE_SIZE + 1]
    )
    more = len(page) > PAGE_SIZE
    page = page[:PAGE_SIZE]
    return DeliveryPage(rows=page, next_cursor=str(page[-1].pk) if more and page else None)


def delivery_of(*, workspace_id: str, pk: int) -> Delivery | None:
    return Delivery.objects.filter(endpoint__workspace_id=workspace_id, pk=pk).select_related("endpoint").first()
