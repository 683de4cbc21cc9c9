"""Template helpers for tracked operations.

`{% json_view value %}` renders any JSON value readably (nested definition
lists and lists, scalars as text). It is how the console shows shapes the
spec leaves open ("not shown") without ever crashing on them.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

MAX_DEPTH = 8


def _render(value, depth: int) -> SafeString:
    if depth > MAX_DEPTH:
        return mark_safe('<span class="json-more muted">…</span>')
    if isinstance(value, dict):
        if not value:
            return mark_safe('<span class="muted">(empty)</span>')
        rows = format_html_join(
            "", "<dt>{}</dt><dd>{}</dd>", ((_label(k), _render(v, depth + 1)) for k, v in value.items())
        )
        return format_html('<dl class="json-object">{}</dl>', rows)
    if isinstance(value, list):
        if not value:
            return mark_safe('<span class="muted">(none)</span>')
        items = format_html_join("", "<li>{}</li>", ((_render(v, depth + 1),) for v in value))
        return format_html('<ul class="json-list">{}</ul>', items)
    if value is None:
        return mark_safe('<span class="muted">null</span>')
    if isinstance(value, bool):
        return format_html('<span class="json-bool">{}</span>', "yes" if value else "no")
    return format_html('<span class="json-scalar">{}</span>', value)


def _label(key) -> str:
    return str(key).replace("_", " ")


@register.simple_tag
def json_view(value) -> SafeString:
    return mark_safe(format_html('<div class="json-view">{}</div>', _render(value, 0)))


@register.filter
def get_item(mapping, key):
    """`{{ snapshot|get_item:"public_url" }}` for keys that clash with template syntax."""
    if isinstance(mapping, dict):
        return mapping.get(key)
    return None


@register.filter
def status_label(status) -> str:
    """`needs_input` -> `Needs input`: a remote status in the user's words."""
    text = str(status or "").replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]
