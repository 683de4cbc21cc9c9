"""The preview under an image or file address, rendered again as the address
is typed (templates/objects/widgets/address.html#preview, swapped into the
box under the input). The server says whether an image may show: the
frame's rule (dashboard/frame/images.py), not a copy of it in a script, and
the browser never tries a refused host (each try would be a CSP report)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboard.frame.workspace import ConsoleRequest
from objects.fields import address_preview as preview_of

# The longest address previewed: far beyond any real file address; a longer
# query is shown as no preview rather than echoed back.
MAX_ADDRESS = 2048


@require_GET
def address_preview(request: ConsoleRequest) -> HttpResponse:
    """?kind=image|file&field=<the input's name>, and the input itself
    (hx-include) under that name. No remote call, nothing stored."""
    name = request.GET.get("field", "")
    address = request.GET.get(name, "") if name else ""
    widget = preview_of(
        input_id="", name=name, kind=request.GET.get("kind", ""), value=address if len(address) <= MAX_ADDRESS else ""
    )
    return render(request, "objects/widgets/address.html#preview", {"widget": widget})
