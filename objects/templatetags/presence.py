"""`{% presence_region object_key record_id %}`: the presence region of a
record page (or, without a record, of the records grid), as the page first
shows it: empty, with the page's own token; its first poll, at once, fills it
(objects/presence.py). No query: the page's view is unchanged by it."""

from __future__ import annotations

from django import template

from objects.presence import PRESENCE_POLL_SECONDS, Presence, presence_token, presence_vals

register = template.Library()


@register.inclusion_tag("objects/includes/presence.html#presence")
def presence_region(object_key: str, record_id: str = "") -> dict:
    token = presence_token()
    return {
        "presence": Presence(people=(), version=""),
        "object_key": object_key,
        "presence_record": record_id,
        "presence_token": token,
        "presence_vals": presence_vals(token=token, record_id=record_id),
        "poll_seconds": PRESENCE_POLL_SECONDS,
        "first": True,
    }
