"""{% outbox_notice row %}: a page's line saying that the work on `row`
started but its task waits in the outbox for the broker (dashboard/outbox)."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from dashboard.outbox.selectors import HELD_MESSAGE, outbox_holds

register = template.Library()


@register.simple_tag
def outbox_notice(row) -> str:
    if row is None or not outbox_holds(row):
        return ""
    return format_html(
        '<p class="alert alert-info live-paused" data-pause-cause="broker" role="status">{}</p>', HELD_MESSAGE
    )
