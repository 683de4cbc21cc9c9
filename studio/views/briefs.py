"""The brief library's pages (studio/briefs.py): the list with its search,
making and editing a brief, its versions, and "use it": its variables asked
in a small form, then the Studio's new-conversation form with the words
filled in, where the person reads them and sends. Pages read the console's
database only; nothing here calls the service."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.models import PermissionsMixin
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import MANAGE_PEOPLE
from dashboard.web.counted import CountedCharField, CountedTextarea, CountedTextInput
from studio import briefs
from studio.forms import LONGEST_MESSAGE, READ_ONLY, STUDIOS, TurnForm
from studio.home_form import home_page


class BriefForm(forms.Form):
    name = CountedCharField(
        limit=briefs.NAME_MAX_LENGTH, noun="A brief's name", label=gettext_lazy("Name"), widget=CountedTextInput
    )
    studio = forms.ChoiceField(
        choices=[("", gettext_lazy("Any studio")), *((name, label) for name, label, _ in STUDIOS)],
        required=False,
        label=gettext_lazy("For"),
        help_text=gettext_lazy(
            "The studio a turn from this brief starts with (it can still be changed before sending)."
        ),
    )
    text = CountedCharField(
        limit=None,
        label=gettext_lazy("Words"),
        widget=CountedTextarea(attrs={"rows": 8, "data-max-length": str(LONGEST_MESSAGE), "data-limit-noun": "Briefs"}),
        help_text=gettext_lazy(
            "Put a variable in double braces, such as {{audience}}: it is asked for before each use."
        ),
    )
    shared = forms.BooleanField(
        required=False,
        label=gettext_lazy("Share with the workspace"),
        help_text=gettext_lazy("Everyone with a key of this workspace sees it."),
    )


def _is_administrator(request: ConsoleRequest) -> bool:
    return isinstance(request.user, PermissionsMixin) and request.user.has_perm(MANAGE_PEOPLE)


def _brief(request: ConsoleRequest, pk: int) -> briefs.Brief:
    return briefs.brief_get(workspace_id=request.workspace.id, user_id=request.user.pk, brief_id=pk)


def _list(request: ConsoleRequest, form: BriefForm, status: int = 200) -> HttpResponse:
    query = " ".join((request.GET.get("q") or "").split())[:200]
    found = list(
        briefs.briefs_visible(workspace_id=request.workspace.id, user_id=request.user.pk, query=query)[
            : briefs.MAX_BRIEFS
        ]
    )
    for brief in found:
        brief.for_words = briefs.studio_words(brief.studio)  # type: ignore[attr-defined]
    return render(request, "studio/briefs.html", {"briefs": found, "query": query, "form": form}, status=status)


@require_GET
def briefs_page(request: ConsoleRequest) -> HttpResponse:
    return _list(request, BriefForm())


@require_POST
@requires_write(READ_ONLY)
def brief_new(request: ConsoleRequest) -> HttpResponseBase:
    form = BriefForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            made = briefs.brief_create(
                workspace_id=request.workspace.id,
                user_id=request.user.pk,
                name=data["name"],
                text=data["text"],
                studio=data["studio"],
                shared=data["shared"],
            )
        except briefs.BriefRefused as exc:
            form.add_error(exc.field, str(exc))
        else:
            messages.success(request, f"Saved the brief “{made.name}”.")
            return redirect("studio:brief", pk=made.pk)
    return _list(request, form, status=200)


class UseForm(forms.Form):
    """A field per variable of the brief, in the order the words name them."""

    def __init__(self, *args: Any, variables: list[str], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.variables = variables
        for index, name in enumerate(variables):
            self.fields[f"v{index}"] = CountedCharField(
                limit=briefs.VALUE_MAX_LENGTH, noun=f"“{name}”", label=name, widget=CountedTextInput
            )

    def values(self) -> dict[str, str]:
        return {name: self.cleaned_data[f"v{index}"] for index, name in enumerate(self.variables)}


def _brief_page(
    request: ConsoleRequest, brief: briefs.Brief, *, edit: BriefForm | None = None, use: UseForm | None = None
) -> HttpResponse:
    variables = briefs.variables_of(brief.text)
    return render(
        request,
        "studio/brief.html",
        {
            "brief": brief,
            "studio_words": briefs.studio_words(brief.studio),
            "use": use or UseForm(variables=variables),
            "edit": edit
            or BriefForm(
                initial={"name": brief.name, "studio": brief.studio, "text": brief.text, "shared": brief.shared}
            ),
            "versions": briefs.brief_versions(brief=brief),
            "may_remove": briefs.may_remove(
                brief=brief, user_id=request.user.pk, is_administrator=_is_administrator(request)
            ),
            "may_share": brief.created_by_id == request.user.pk,
        },
    )


@require_GET
def brief_page(request: ConsoleRequest, pk: int) -> HttpResponse:
    return _brief_page(request, _brief(request, pk))


@require_POST
@requires_write(READ_ONLY)
def brief_use(request: ConsoleRequest, pk: int) -> HttpResponse:
    """The variables as typed (a POST only because values may be long: nothing
    is written); when each has a value, the Studio's form with the words
    filled in; else the brief's page with what is missing said in place."""
    brief = _brief(request, pk)
    form = UseForm(request.POST, variables=briefs.variables_of(brief.text))
    if not form.is_valid():
        return _brief_page(request, brief, use=form)
    filled = briefs.brief_filled(brief.text, form.values())
    initial = {"message": filled, **({"studio": brief.studio} if brief.studio else {})}
    turn = TurnForm(initial=initial)
    # The form is far down the home page on a phone: the cursor (and the view) go to the filled words.
    turn.fields["message"].widget.attrs["autofocus"] = True
    return home_page(request, turn, from_brief=brief)


@require_http_methods(["POST"])
@requires_write(READ_ONLY)
def brief_edit(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    brief = _brief(request, pk)
    form = BriefForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            saved = briefs.brief_update(
                brief=brief,
                user_id=request.user.pk,
                name=data["name"],
                text=data["text"],
                studio=data["studio"],
                shared=data["shared"] if brief.created_by_id == request.user.pk else brief.shared,
            )
        except briefs.BriefRefused as exc:
            form.add_error(exc.field, str(exc))
        else:
            messages.success(request, f"Saved version {saved.version} of “{saved.name}”.")
            return redirect("studio:brief", pk=saved.pk)
    return _brief_page(request, brief, edit=form)


@require_POST
@requires_write(READ_ONLY)
def brief_delete(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    brief = _brief(request, pk)
    try:
        briefs.brief_delete(brief=brief, user_id=request.user.pk, is_administrator=_is_administrator(request))
    except briefs.BriefRefused as exc:
        messages.error(request, str(exc))
        return redirect("studio:brief", pk=brief.pk)
    messages.success(request, f"Removed the brief “{brief.name}”.")
    return redirect("studio:briefs")
