"""`{% load images %}`: remote images only where the CSP lets them load.

    {% if image.url|image_allowed %}<img src="{{ image.url }}" ...>
    {% else %}{% image_elsewhere image.url name=image.prompt %}{% endif %}

The frame is not an installed app, so the library is registered by name in
settings.TEMPLATES (OPTIONS "libraries"). The logic lives in
dashboard/frame/images.py; areas load this library, never copy it.
"""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from dashboard.frame import images

register = template.Library()


@register.filter
def image_allowed(url: object) -> bool:
    return images.image_allowed(url)


@register.simple_tag
def image_elsewhere(url: object, name: object = "", compact: bool = False) -> SafeString:
    return images.image_elsewhere(url, name=str(name or ""), compact=compact)


@register.filter
def image_host(url: object) -> str:
    return images.image_host(url)
