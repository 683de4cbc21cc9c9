"""A library selection's ZIP, built by a worker (studio/zip_jobs.py): the
choice (GET, from the library's selection form, so it works without
JavaScript), the start (POST: one job per form key), the job's page with its
progress polled from the console's database only, and the download."""

from __future__ import annotations

from django.contrib import messages
from django.http import FileResponse, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from dashboard.accounts.middleware import background_request
from dashboard.fair_use import costly_request
from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import new_idempotency_key
from dashboard.web.htmx import poll_unchanged, stop_polling
from dashboard.web.local_formats import integer
from dashboard.web.params import database_id
from studio.library import KINDS, board_images, images_by_ids
from studio.library_collections import collection_get, collection_items
from studio.library_zip import MAX_ZIP_IMAGES
from studio.models import ZipJob
from studio.reading import usable_id
from studio.selection import selection_ids
from studio.zip_jobs import zip_job_get, zip_job_start, zip_job_version, zip_path


def _chosen_ids(request: ConsoleRequest, data) -> list[str]:
    """The images asked for: `image` ids (the form), or on the GET that
    offers the ZIP, the person's selection (`selection`), a collection's
    images (`collection`, the console's list) or a board's (`board`, one
    call): so a ZIP of 100 is a click away, never an address typed."""
    if request.method == "GET" and not data.getlist("image"):
        workspace_id = request.workspace.id
        if data.get("selection"):
            return selection_ids(session=request.session, workspace_id=workspace_id)
        if data.get("collection"):
            collection = collection_get(
                workspace_id=workspace_id, collection_id=database_id(data.get("collection")) or 0
            )
            return [item.item_id for item in collection_items(collection=collection, kind="images")]
        if board := usable_id(data.get("board")):
            return [image["id"] for image in board_images(client=request.workspace.client, board_id=board)]
    return list(dict.fromkeys(value for value in (usable_id(raw) for raw in data.getlist("image")) if value))


# Unguarded on purpose: a ZIP is a download of images the person may read,
# built for them alone; nothing is written in the workspace, so a Viewer
# downloads as a Member does (tests/people/test_role_matrix.py says so).
@costly_request
@require_http_methods(["GET", "POST"])
def library_zip(request: ConsoleRequest) -> HttpResponseBase:
    """GET: the chosen images and a button to build their ZIP; POST: the job
    (the images read from the service now: only this workspace's go in)."""
    data = request.POST if request.method == "POST" else request.GET
    ids = _chosen_ids(request, data)
    if not ids or len(ids) > MAX_ZIP_IMAGES:
        words = (
            "Choose at least one image to download."
            if not ids
            else f"Choose at most {MAX_ZIP_IMAGES} images: these are {integer(len(ids))}. Select some of them instead."
        )
        messages.error(request, words)
        return redirect("studio:library", kind="images")
    if request.method == "GET":
        return render(
            request,
            "studio/library_zip.html",
            {"kinds": KINDS.values(), "kind": KINDS["images"], "ids": ids, "idempotency_key": new_idempotency_key()},
        )
    images = images_by_ids(client=request.workspace.client, image_ids=ids)
    if not images:
        messages.error(request, gettext("None of the chosen images is in this workspace any more."))
        return redirect("studio:library", kind="images")
    key = usable_id(request.POST.get("idempotency_key")) or new_idempotency_key()
    job = zip_job_start(workspace_id=request.workspace.id, user_id=request.user.pk, images=images, idempotency_key=key)
    return redirect("studio:zip_job", pk=job.pk)


def _context(job: ZipJob) -> dict:
    return {
        "job": job,
        "version": zip_job_version(job),
        "percent": int(100 * job.done / job.total) if job.total else 100,
        "kinds": KINDS.values(),
        "kind": KINDS["images"],
    }


@require_GET
def zip_job_page(request: ConsoleRequest, pk: int) -> HttpResponse:
    job = zip_job_get(workspace_id=request.workspace.id, user_id=request.user.pk, job_id=pk)
    return render(request, "studio/zip_job.html", _context(job))


@background_request
@never_cache
@require_GET
def zip_job_live(request: ConsoleRequest, pk: int) -> HttpResponse:
    """The progress region, polled: 204 while the row is unchanged (one
    query), 286 with its last render once the ZIP is ready or failed."""
    workspace_id = request.workspace.id

    def current() -> str:
        row = ZipJob.objects.filter(pk=pk, created_by_id=request.user.pk, workspace_id=workspace_id).first()
        return zip_job_version(row) if row else "gone"

    unchanged = poll_unchanged(request, current)
    if unchanged is not None:
        return unchanged
    job = zip_job_get(workspace_id=workspace_id, user_id=request.user.pk, job_id=pk)
    return stop_polling(render(request, "studio/zip_job.html#zip-status", _context(job)), final=job.is_final)


@require_GET
def zip_download(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    job = zip_job_get(workspace_id=request.workspace.id, user_id=request.user.pk, job_id=pk)
    path = zip_path(job)
    if job.status != ZipJob.READY or not path.exists():
        messages.error(
            request, "This ZIP is not ready to download." if job.is_final is False else "This ZIP's file is gone."
        )
        return redirect(reverse("studio:zip_job", args=[job.pk]))
    return FileResponse(path.open("rb"), as_attachment=True, filename="images.zip", content_type="application/zip")
