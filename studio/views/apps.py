"""Content Apps: the catalogue, each app's schema-generated form, its runs."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import QuerySet
from django.http import Http404, HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.api import ServiceClient, errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.remote_errors import RemoteErrorView, describe_remote_error
from dashboard.frame.workspace import ConsoleRequest
from dashboard.live.selectors import operation_view
from dashboard.web.htmx import client_redirect
from dashboard.web.params import database_id
from dashboard.web.reading import as_dict, as_list, text
from studio import services, takes
from studio.content_apps import AppForm, AppInfo, Choices, catalogue_read, grouped, picker_kind
from studio.costs import app_costs
from studio.forms import READ_ONLY, TryAgainForm
from studio.library import board_images, boards_all, videos_all
from studio.live import app_run_failure
from studio.models import AppRun
from studio.reading import read_image, read_result, safe_link, usable_id
from studio.words import key_label

RECENT_RUNS = 10
MAX_PREFILL = 6000  # characters of one value taken from a link


def _catalogue(client: ServiceClient) -> list[AppInfo]:
    return catalogue_read(client.get("/v1/studio/apps"))


@require_GET
def catalogue(request: ConsoleRequest) -> HttpResponse:
    apps = _catalogue(request.workspace.client)
    return render(
        request,
        "studio/apps.html",
        {"studios": grouped(apps), "runnable": sum(app.runnable for app in apps), "total": len(apps)},
    )


def _find(apps: list[AppInfo], studio: str, app_id: str) -> AppInfo:
    for app in apps:
        if app.studio == studio and app.id == app_id:
            return app
    raise Http404("No such Content App.")


def _runs(request: ConsoleRequest) -> QuerySet[AppRun]:
    return AppRun.objects.select_related("operation", "started_by").filter(owner_key__workspace_id=request.workspace.id)


def _clips(client: ServiceClient) -> list[dict[str, Any]]:
    """Every shot of the workspace's video projects (the clips recast and remake start from)."""
    clips = []
    page = client.page("/v1/videos", {"limit": 100})
    for project in page.items:
        for shot in as_list(as_dict(project).get("shots")):
            shot = as_dict(shot)
            clip_id = usable_id(shot.get("asset_id") or shot.get("id"))
            if clip_id:
                seconds = shot.get("seconds")
                clips.append(
                    {
                        "id": clip_id,
                        # A shot is called by its prompt (the picker shows its picture), never by its id.
                        "name": f"{text(shot.get('prompt')) or 'A shot'} ({text(seconds)} s)"
                        if seconds
                        else text(shot.get("prompt")) or "A shot",
                        "url": safe_link(shot.get("url")),
                    }
                )
    return clips


def _choices(client: ServiceClient, form_probe: AppForm, board_id: str) -> Choices:
    """Only what this app's pickers need: at most three reads."""
    kinds = set(form_probe.pickers.values())
    choices = Choices()
    if kinds & {"board", "image", "images"}:
        choices.boards = boards_all(client=client)
    if kinds & {"image", "images"}:
        if board_id:
            choices.images = board_images(client=client, board_id=board_id)
        elif "board" not in kinds:
            page = client.page("/v1/images", {"limit": 100})
            choices.images = [image for item in page.items if (image := read_image(item))]
    if "project" in kinds:
        choices.projects = videos_all(client=client)
    if "clip" in kinds:
        choices.clips = _clips(client)
    return choices


def _build_form(
    client: ServiceClient, app: AppInfo, *, data: QueryDict | None = None, initial: dict | None = None
) -> AppForm:
    source = data if data is not None else QueryDict(mutable=True)
    board_id = text((initial or {}).get("board_id") or source.get("board_id"))[:200]
    choices = _choices(client, AppForm(app=app), usable_id(board_id)) if app.runnable else Choices()
    return AppForm(data, app=app, choices=choices, initial=initial)


def _initial_from(query: QueryDict, app: AppInfo, runs: QuerySet[AppRun]) -> dict[str, Any]:
    """A form's starting values: a past run's inputs ("run again with
    changes"), else values a link carries (a video pending request opens its
    app with the project and the prompt)."""
    rerun_id = database_id(query.get("rerun"))
    if rerun_id is not None:
        run = runs.filter(pk=rerun_id, studio=app.studio, app=app.id).first()
        if run is not None:
            return dict(as_dict(run.inputs))
    initial: dict[str, Any] = {}
    properties = as_dict(app.inputs.get("properties"))
    for name, prop in properties.items():
        if name not in query:
            continue
        if as_dict(prop).get("type") == "array":
            initial[name] = [value[:MAX_PREFILL] for value in query.getlist(name)[:20]]
        else:
            initial[name] = query.get(name, "")[:MAX_PREFILL]
    return initial


def _page(
    request: ConsoleRequest,
    app: AppInfo,
    form: AppForm,
    runs: QuerySet[AppRun],
    remote_error: RemoteErrorView | None = None,
) -> HttpResponse:
    images = {image["id"]: image for image in form.choices.images}
    clips = {clip["id"]: clip for clip in form.choices.clips}
    return render(
        request,
        "studio/app.html",
        {
            "app": app,
            "form": form,
            "rows": form.picker_rows(),
            "images": images,
            "clips": clips,
            "runs": list(runs.filter(studio=app.studio, app=app.id)[:RECENT_RUNS]),
            # The cost line sits in the form: a member who only reads is not asked to pay.
            "costs": app_costs(
                workspace_id=request.workspace.id,
                user_id=request.user.pk,
                studio=app.studio,
                app=app.id,
                zone=request.workspace.zone,
            )
            if app.runnable and request.workspace.can_write
            else None,
            "remote_error": remote_error,
        },
    )


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY, methods=["POST"])
def app_page(request: ConsoleRequest, studio: str, app: str) -> HttpResponseBase:
    """The app's page (GET: a read-only member sees it without the form) and
    its run (POST: `app_run`, guarded here so the address itself carries the
    write guard the role matrix looks for)."""
    if request.method == "POST":
        return app_run(request, studio, app)
    client = request.workspace.client
    info = _find(_catalogue(client), studio, app)
    runs = _runs(request)
    return _page(request, info, _build_form(client, info, initial=_initial_from(request.GET, info, runs)), runs)


def app_run(request: ConsoleRequest, studio: str, app: str) -> HttpResponseBase:
    """A run of the app from its form, or the form again with another board's
    images (`show_board`, nothing sent). A read-only member never gets here:
    `app_page` refuses their POST before the catalogue is read."""
    client = request.workspace.client
    info = _find(_catalogue(client), studio, app)
    runs = _runs(request)
    if "show_board" in request.POST:
        # Another board was chosen: show its images, keep everything typed, send nothing.
        typed = {
            name: request.POST.getlist(name) if len(request.POST.getlist(name)) > 1 else request.POST.get(name)
            for name in request.POST
            if name not in ("csrfmiddlewaretoken", "show_board")
        }
        form = _build_form(client, info, initial=typed)
        for name, kind in form.pickers.items():
            if kind == "images":
                form.initial[name] = request.POST.getlist(name)
        for name, field in form.fields.items():
            if isinstance(field, forms.BooleanField):
                # The box was on the form just posted: absent means unticked, not "the default".
                form.initial[name] = name in request.POST
        return _page(request, info, form, runs)
    form = _build_form(client, info, data=request.POST)
    if not info.runnable:
        form.is_valid()
        form.add_error(None, f"This app cannot be run: {info.reason or 'the service says it is not runnable.'}")
        return _page(request, info, form, runs)
    if not form.is_valid():
        return _page(request, info, form, runs)
    try:
        run = services.app_run_start(
            key=request.workspace.require_key(),
            studio=info.studio,
            app=info.id,
            label=info.label,
            body=form.payload(),
            idempotency_key=form.cleaned_data["idempotency_key"],
            asked=form.asked(),
        )
    except errors.ApiError as exc:
        return _page(request, info, form, runs, remote_error=failed_write(request, form, exc))
    return client_redirect(request, reverse("studio:app_run", args=[run.pk]))


def asked_rows(run: AppRun) -> list[dict[str, Any]]:
    """What was asked, in words: the rows kept at send time; a run kept
    before they were ([] stored) shows its inputs with their keys in words and
    an id as "chosen in the form", never the id itself."""
    kept = [as_dict(row) for row in as_list(run.asked) if as_dict(row).get("label")]
    if kept:
        return [
            {"label": text(row.get("label")), "text": row.get("text"), "picture": safe_link(row.get("picture"))}
            for row in kept
        ]
    rows = []
    for name, value in as_dict(run.inputs).items():
        if name.endswith(("_id", "_ids")) or picker_kind(run.studio, name, {}):
            value = "chosen in the form"
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            value = text(value)
        rows.append({"label": key_label(name), "text": value, "picture": ""})
    return rows


def _run_page(
    request: ConsoleRequest,
    run: AppRun,
    try_again: TryAgainForm | None = None,
    try_again_error: RemoteErrorView | None = None,
    another_take: TryAgainForm | None = None,
    another_take_error: RemoteErrorView | str | None = None,
) -> HttpResponse:
    op = run.operation
    live = operation_view(op=op, request=request) if op is not None else None
    snapshot = op.snapshot if op is not None and isinstance(op.snapshot, dict) else run.result
    failure = app_run_failure(run)
    if try_again_error is not None and not try_again_error.retry_helps:
        failure = "credits"  # the retry itself ran out of credits: no button that cannot succeed
    return render(
        request,
        "studio/app_run.html",
        {
            "run": run,
            "op": op,
            "live": live,
            # The live region polls live:status, which answers only the person who started it.
            "follow_live": op is not None and op.started_by_id == request.user.pk,
            "result": read_result(snapshot),
            "asked": asked_rows(run),
            # No toast for the run on screen (dashboard/inbox reads this, its polls the page's attribute).
            "on_screen_operations": [op.pk] if op is not None else [],
            "failure": failure,
            # Minted with the button; kept from the post while the same write is worth repeating.
            "try_again": (try_again or TryAgainForm()) if failure == "failed" else None,
            "try_again_error": try_again_error,
            # Another take of a run that made something: the same inputs, kept beside it (studio/takes.py).
            "take": takes.take_set_of_run(workspace_id=request.workspace.id, run=run),
            "another_take": (another_take or TryAgainForm()) if takes.run_can_take_again(run) else None,
            "another_take_error": another_take_error,
        },
    )


@require_GET
def run_detail(request: ConsoleRequest, pk: int) -> HttpResponse:
    run = _runs(request).filter(pk=pk).first()
    if run is None:
        raise Http404("No such run.")
    return _run_page(request, run)


@require_POST
@requires_write(READ_ONLY)
def run_try_again(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """ "Try again" on a failed run: the same inputs as a new run, once per key
    (services.app_run_try_again). A run that did not fail sends nothing."""
    run = _runs(request).filter(pk=pk).first()
    if run is None:
        raise Http404("No such run.")
    form = TryAgainForm(request.POST)
    if not form.is_valid() or app_run_failure(run) != "failed":
        # A hand-made post, or a page older than the run's outcome: show the run as it is now.
        return client_redirect(request, reverse("studio:app_run", args=[run.pk]))
    try:
        again = services.app_run_try_again(
            key=request.workspace.require_key(), run=run, idempotency_key=form.cleaned_data["idempotency_key"]
        )
    except errors.ApiError as exc:
        # The box goes beside the button it answers; its key is kept when the same write is worth repeating.
        error = failed_write(request, form, exc) or describe_remote_error(request, exc)
        return _run_page(request, run, try_again=form, try_again_error=error)
    return client_redirect(request, reverse("studio:app_run", args=[again.pk]))


@require_POST
@requires_write(READ_ONLY)
def run_take_again(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """ "Another take" of a run that made something: the same inputs as a new
    run, once per key, kept beside it (studio/takes.py); then the takes."""
    run = _runs(request).filter(pk=pk).first()
    if run is None:
        raise Http404("No such run.")
    form = TryAgainForm(request.POST)
    if not form.is_valid() or not takes.run_can_take_again(run):
        return client_redirect(request, reverse("studio:app_run", args=[run.pk]))
    try:
        take = takes.take_another_run(
            key=request.workspace.require_key(),
            workspace_id=request.workspace.id,
            run=run,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except takes.TakesFull as full:
        return _run_page(request, run, another_take=form, another_take_error=str(full))
    except errors.ApiError as exc:
        error = failed_write(request, form, exc) or describe_remote_error(request, exc)
        return _run_page(request, run, another_take=form, another_take_error=error)
    return client_redirect(request, f"{reverse('studio:takes', args=[take.takes_id])}?take={take.number}")
