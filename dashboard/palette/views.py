"""`GET /palette/?q=`: the command palette's results.

Not a background request: it runs only while the person types, so it is
their own activity (it keeps the session alive like any page they open).
An htmx request from the dialog gets the results region (and the count for
the screen reader, out of band); a plain one (no JavaScript, or Enter with no
option chosen) the palette's own page. It reads; it never writes.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from dashboard.fair_use import costly_request
from dashboard.frame.workspace import ConsoleRequest
from dashboard.palette.forms import PaletteForm
from dashboard.palette.search import palette_search
from dashboard.web.htmx import is_partial, render_region


@costly_request(when="q")
@require_GET
def palette(request: ConsoleRequest) -> HttpResponse:
    answer = palette_search(request=request, raw_query=request.GET.get("q"))
    form = PaletteForm(
        {"q": answer.query}, auto_id="palette-page-%s", listbox_id="palette-listbox", results_id="palette-results"
    )
    context = {"answer": answer, "form": form, "palette_page": True, "oob": is_partial(request)}
    return render_region(request, "dashboard/palette.html", "results", context)
