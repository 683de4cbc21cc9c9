"""Comments on a record and watching it (objects/comments.py): posted, edited
and deleted in place with htmx, and the same forms work without JavaScript
(each answers the record page then). Only in the workspace of the person's
working key: a comment of another workspace is not found (404)."""

from __future__ import annotations

from django.contrib.auth.models import PermissionsMixin
from django.http import Http404, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.accounts.middleware import background_request
from dashboard.frame.permissions import forbidden, requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import MANAGE_PEOPLE
from dashboard.web.htmx import is_partial, render_region
from objects import comments
from objects.forms import CommentForm
from objects.models import RecordComment
from objects.names import record_titles, record_url
from objects.records import COMMENT_NEEDS_WRITE, NO_TITLE, comments_region, object_definition, record_page_context

NOT_YOURS = "Only its author edits a comment; an Administrator may delete anyone's."


def _answer(
    request: ConsoleRequest, object_key: str, record_id: str, *, status: int = 200, **region
) -> HttpResponseBase:
    """The comments region (htmx) or the whole record page (no JavaScript)."""
    context = comments_region(
        workspace=request.workspace, user=request.user, object_key=object_key, record_id=record_id, **region
    )
    if not is_partial(request):
        context = {
            **record_page_context(workspace=request.workspace, object_key=object_key, record_id=record_id, list_raw=""),
            **context,
        }
    return render_region(request, "objects/record.html", "comments", context, status=status)


def _title(request: ConsoleRequest, object_key: str, record_id: str) -> str:
    """How the items name the record: its title (cached, else one read)."""
    workspace = request.workspace
    titles = record_titles(
        client=workspace.client,
        workspace_id=workspace.id,
        refs=[(object_key, record_id)],
        definition_of=lambda key: object_definition(workspace=workspace, object_key=key),
    )
    return titles.get((object_key, record_id)) or NO_TITLE


def _comment(request: ConsoleRequest, object_key: str, record_id: str, comment_id: int) -> RecordComment:
    found = comments.comment_of(
        workspace_id=request.workspace.id, object_key=object_key, record_id=record_id, pk=comment_id
    )
    if found is None:
        raise Http404("No such comment.")
    return found


@require_POST
@requires_write(COMMENT_NEEDS_WRITE)
def comment_post(request: ConsoleRequest, object_key: str, record_id: str) -> HttpResponseBase:
    form = CommentForm(request.POST)
    if not form.is_valid():
        return _answer(request, object_key, record_id, form=form)
    made = comments.comment_post(
        user=request.user,
        workspace_id=request.workspace.id,
        object_key=object_key,
        record_id=record_id,
        record_title=_title(request, object_key, record_id),
        body=form.cleaned_data["body"],
        uid=form.cleaned_data.get("uid"),
    )
    if is_partial(request):
        return _answer(request, object_key, record_id, just_posted=made.pk)
    return redirect(f"{record_url(object_key, record_id)}#comment-{made.pk}")


@require_http_methods(["GET", "POST"])
@requires_write(COMMENT_NEEDS_WRITE)
def comment_edit(request: ConsoleRequest, object_key: str, record_id: str, comment_id: int) -> HttpResponseBase:
    """The author's own comment, its text in place; saved, the region again."""
    comment = _comment(request, object_key, record_id, comment_id)
    if comment.author_id != request.user.pk:
        return forbidden(request, NOT_YOURS)
    if request.method == "GET":
        form = CommentForm(initial={"body": comment.body}, prefix=f"edit-{comment.pk}")
        return _answer(request, object_key, record_id, editing=comment, edit_form=form)
    form = CommentForm(request.POST, prefix=f"edit-{comment.pk}")
    if not form.is_valid():
        return _answer(request, object_key, record_id, editing=comment, edit_form=form)
    comments.comment_edit(
        comment=comment,
        user=request.user,
        body=form.cleaned_data["body"],
        record_title=_title(request, object_key, record_id),
    )
    if is_partial(request):
        return _answer(request, object_key, record_id, just_posted=comment.pk)
    return redirect(f"{record_url(object_key, record_id)}#comment-{comment.pk}")


@require_POST
def comment_delete(request: ConsoleRequest, object_key: str, record_id: str, comment_id: int) -> HttpResponseBase:
    """No write guard: withdrawing one's own comment is always allowed; another's only by an Administrator."""
    comment = _comment(request, object_key, record_id, comment_id)
    moderator = isinstance(request.user, PermissionsMixin) and request.user.has_perm(MANAGE_PEOPLE)
    if comment.author_id != request.user.pk and not moderator:
        return forbidden(request, NOT_YOURS)
    comments.comment_delete(comment=comment)
    if is_partial(request):
        # Its Delete button is gone: the focus goes to the region's heading (data-focus-fallback), this said.
        return _answer(request, object_key, record_id, notice="The comment was deleted.")
    return redirect(f"{record_url(object_key, record_id)}#comments")


@require_POST
def record_watch(request: ConsoleRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """Watch the record or stop (`on`): a person's own choice, every role."""
    on = request.POST.get("on") == "1"
    comments.watch_set(
        user=request.user,
        workspace_id=request.workspace.id,
        object_key=object_key,
        record_id=record_id,
        on=on,
        record_title=_title(request, object_key, record_id) if on else "",
    )
    if is_partial(request):
        return _answer(request, object_key, record_id)
    return redirect(f"{record_url(object_key, record_id)}#comments")


@background_request  # the comment box asks as one types: the page's own call, no activity of its own
@require_GET
def mention_people(request: ConsoleRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """The people the comment box offers after "@" (`q`: what follows it),
    rendered by the server as listbox options (objects/record.html#mention-options)."""
    people = comments.mention_candidates(workspace_id=request.workspace.id, typed=request.GET.get("q", "")[:150])
    return render(request, "objects/record.html#mention-options", {"people": people})
