"""`{% palette_dialog %}`: the command palette's dialog, in every page's
markup (templates/base.html), so Ctrl/Cmd-K opens it at once, with no request."""

from __future__ import annotations

from typing import Any

from django import template

from dashboard.palette.forms import PaletteForm

register = template.Library()


@register.inclusion_tag("dashboard/palette_dialog.html", takes_context=True)
def palette_dialog(context: Any) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or context.get("palette_page"):
        # The palette's own page has the same field in its main region: one of each id.
        return {"show": False}
    form = PaletteForm(auto_id="palette-%s", listbox_id="palette-listbox", results_id="palette-results")
    return {"show": True, "form": form}
