"""`GET /palette/?q=`: the command palette's results.

Not a background request: it runs only while the person types, so it is
their own activity (it keeps the session alive like any page they open).
An htmx request from the dialog gets the results region (and the count for
the screen reader, out of band); a plain one (no JavaScript, or Enter when nothing
was found) the palette's own page. It reads; it never writes.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from dashboard.fair_use import costly_request
from dashboard.frame.key_gate import key_recheck, refused_in_this_request, works_without_key
from dashboard.frame.workspace import ConsoleRequest
from dashboard.palette.forms import PaletteForm
from dashboard.palette.search import palette_search
from dashboard.web.htmx import is_partial, render_region


@works_without_key
@costly_request(when="q")
@require_GET
def palette(request: ConsoleRequest) -> HttpResponse:
    # It works whatever the key (it finds the console's pages, "API keys"
    # first of all), but its workspace sources show what the console keeps:
    # the key is asked again first when its check is due, like any page's.
    key_recheck(request.workspace)
    answer = palette_search(request=request, raw_query=request.GET.get("q"))
    if refused_in_this_request(request.workspace):
        # A source's call was answered 401: what the others found of the
        # workspace is not shown; the console's pages are, and why.
        answer = palette_search(request=request, raw_query=request.GET.get("q"))
    form = PaletteForm(
        {"q": answer.query}, auto_id="palette-page-%s", listbox_id="palette-listbox", results_id="palette-results"
    )
    context = {"answer": answer, "form": form, "palette_page": True, "oob": is_partial(request)}
    return render_region(request, "dashboard/palette.html", "results", context)
