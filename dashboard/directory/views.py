"""People → Directory provisioning: an Administrator makes a bearer token
for the company directory (shown once; the console keeps its hash), sees
when and from where each was last used, and revokes one. The SCIM service
itself is views_scim.py."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from dashboard.directory import selectors
from dashboard.directory.forms import DirectoryTokenForm
from dashboard.directory.models import DirectoryToken
from dashboard.directory.tokens import MadeDirectoryToken, directory_token_create, directory_token_revoke
from dashboard.frame.key_gate import works_without_key
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import MANAGE_PEOPLE

WHO_MAY = "Directory provisioning is set up by Administrators."


def _page(request: ConsoleRequest, form: DirectoryTokenForm, made: MadeDirectoryToken | None = None, status: int = 200):
    context = {
        "form": form,
        "made": made,
        "tokens": selectors.directory_tokens(),
        "base_url": request.build_absolute_uri("/scim/v2/"),
    }
    return render(request, "directory/tokens.html", context, status=status)


@works_without_key
@never_cache
@require_GET
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def tokens(request: ConsoleRequest) -> HttpResponse:
    return _page(request, DirectoryTokenForm())


@works_without_key
@never_cache
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def token_new(request: ConsoleRequest) -> HttpResponse:
    form = DirectoryTokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=422)
    made = directory_token_create(name=form.cleaned_data["name"], by=request.user)
    # Rendered, not redirected: the token is on this one answer (no-store), never in an address.
    return _page(request, DirectoryTokenForm(), made=made)


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def token_revoke(request: ConsoleRequest, pk: int) -> HttpResponse:
    token = DirectoryToken.objects.filter(pk=pk).first()
    if token is None:
        raise Http404("No such directory token.")
    directory_token_revoke(token=token, by=request.user)
    messages.success(
        request, gettext("Revoked “%(name)s”: the directory's requests are refused from now on.") % {"name": token.name}
    )
    return redirect("directory:tokens")
