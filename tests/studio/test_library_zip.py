"""A selection of images as one ZIP built by a worker (studio/zip_jobs.py):
a job row stepped in bounded chunks, every image read with an httpx streamed
download and written into the archive chunk by chunk (bounded memory), the
progress polled from the row (204 unchanged, 286 final), the file offered
when ready, an image that failed named, files pruned after a day."""

from __future__ import annotations

import tracemalloc
import zipfile
from datetime import timedelta

import httpx
import pytest
from django.contrib.messages import get_messages
from django.test import TestCase
from django.urls import reverse
from django.utils import timezone

from dashboard.jobs import engine
from studio.models import ZipJob
from studio.zip_jobs import KIND, STEP_IMAGES, zip_path, zips_prune
from tests.html import one, text_of, texts
from tests.jobs.support import finish_by_the_watch

IMAGE_BYTES = 1024 * 1024  # 1 MB each: 100 MB for the selection
MEMORY_BOUND = 2 * 1024 * 1024  # what the console may hold at once, whatever the selection's size


def endless_pictures(request: httpx.Request) -> httpx.Response:
    """An image host whose files are made as they are read (the test's own
    bytes never count against the console's memory)."""

    def chunks():
        block = b"\x89PNG" + bytes(64 * 1024 - 4)
        for _ in range(IMAGE_BYTES // len(block)):
            yield block

    return httpx.Response(200, stream=_Iter(chunks()))


class _Iter(httpx.SyncByteStream):
    def __init__(self, parts):
        self.parts = parts

    def __iter__(self):
        yield from self.parts


@pytest.fixture(autouse=True)
def zip_root(settings, tmp_path):
    settings.STUDIO_ZIP_ROOT = str(tmp_path / "zips")
    return tmp_path / "zips"


def host(monkeypatch, handler) -> None:
    """The image host the worker's download client reaches."""
    monkeypatch.setattr("studio.zip_jobs.download_client", lambda: httpx.Client(transport=httpx.MockTransport(handler)))


def run_steps(job: ZipJob) -> int:
    """Steps until the job is final, as a worker takes its messages; returns how many."""
    steps = 0
    while True:
        job.refresh_from_db()
        if job.is_final:
            return steps
        engine.job_step(KIND, job.pk)
        steps += 1
        assert steps < 50


def test_the_worker_builds_a_zip_of_100_images_in_bounded_steps_and_memory(
    db, user, fake_service_settings, monkeypatch
):
    images = [{"id": f"i{n}", "url": f"https://cdn.example/{n}.png", "prompt": f"Bike {n}"} for n in range(100)]
    host(monkeypatch, endless_pictures)
    job = ZipJob.objects.create(
        workspace_id="ws-Acme Marketing", created_by=user, idempotency_key="k", images=images, total=100
    )
    tracemalloc.start()
    try:
        steps = run_steps(job)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    job.refresh_from_db()
    assert (job.status, job.done, job.missing, steps) == ("ready", 100, [], 100 // STEP_IMAGES)
    with zipfile.ZipFile(zip_path(job)) as archive:
        assert archive.testzip() is None
        names = archive.namelist()
        assert len(names) == 100 and names[0] == "001 Bike 0.png"
        assert archive.getinfo(names[-1]).file_size == IMAGE_BYTES
    assert job.size == zip_path(job).stat().st_size
    assert peak < MEMORY_BOUND, f"peak {peak} bytes for {100 * IMAGE_BYTES} bytes of images"


def test_a_selection_is_packed_by_the_worker_polled_and_downloaded_naming_what_it_left_out(
    db, remote, api_key, logged_in_client, monkeypatch, eager_celery
):
    remote.get("/v1/images").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    {"id": "5b0e1f4a-0000-4000-8000-000000000101", "url": "https://cdn.example/1.png", "prompt": "Red"},
                    {"id": "5b0e1f4a-0000-4000-8000-000000000102", "url": "https://elsewhere.example/2.png"},
                    {"id": "5b0e1f4a-0000-4000-8000-000000000103", "url": "https://cdn.example/3.png"},
                ]
            },
        )
    )
    files = {"/1.png": httpx.Response(200, content=b"one"), "/3.png": httpx.Response(404)}
    fetched = []

    def image_host(request: httpx.Request) -> httpx.Response:
        fetched.append(str(request.url))
        return files[request.url.path]

    host(monkeypatch, image_host)
    chosen = [f"5b0e1f4a-0000-4000-8000-00000000010{n}" for n in (1, 2, 3)]
    choice = logged_in_client.get(reverse("studio:library_zip"), {"image": chosen})
    assert choice.status_code == 200 and not ZipJob.objects.exists()  # a GET builds nothing
    form = one(choice.content, "main form[method=post]")
    data = {"image": chosen, "idempotency_key": one(form, "input[name=idempotency_key]")["value"]}

    started = logged_in_client.post(reverse("studio:library_zip"), data)
    job = ZipJob.objects.get()
    assert started.status_code == 302 and started["Location"] == reverse("studio:zip_job", args=[job.pk])
    assert logged_in_client.post(reverse("studio:library_zip"), data)["Location"] == started["Location"]
    assert ZipJob.objects.count() == 1  # the same form twice: one job

    page = logged_in_client.get(started["Location"])
    region = one(page.content, f"#zip-{job.pk}")
    live = region["hx-get"]
    assert text_of(one(region, "h2")) == "Waiting for a worker"
    assert logged_in_client.get(live).status_code == 204  # unchanged: nothing rendered

    with TestCase.captureOnCommitCallbacks(execute=True):
        engine.job_step(KIND, job.pk)  # the worker; eager Celery runs any next step at once
    job.refresh_from_db()
    assert job.status == "ready"
    final = logged_in_client.get(live)
    assert final.status_code == 286  # htmx swaps it and stops polling
    assert texts(final.content, ".alert-warning li") == [
        "002 image.png: its address is not on the console's list of image hosts",
        "003 image.png: the image host answered 404",
    ]
    # Never fetched from a host the console does not list (no way into its own network).
    assert fetched == ["https://cdn.example/1.png", "https://cdn.example/3.png"]

    download = logged_in_client.get(one(final.content, "a[download]")["href"])
    assert download["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(zip_path(job))
    assert archive.read("001 Red.png") == b"one"
    assert "003 image.png: the image host answered 404" in archive.read("not-included.txt").decode()
    assert b"".join(download.streaming_content) == zip_path(job).read_bytes()


def test_a_step_that_died_half_way_starts_the_archive_again(db, user, fake_service_settings, monkeypatch):
    images = [{"id": f"i{n}", "url": f"https://cdn.example/{n}.png", "prompt": f"P{n}"} for n in range(15)]
    host(monkeypatch, lambda request: httpx.Response(200, content=b"x" * 10))
    job = ZipJob.objects.create(workspace_id="ws", created_by=user, idempotency_key="k", images=images, total=15)
    engine.job_step(KIND, job.pk)
    job.refresh_from_db()
    assert job.done == STEP_IMAGES
    with zip_path(job).open("ab") as broken:  # a killed worker's half-written entry
        broken.write(b"half an image")
    run_steps(job)
    job.refresh_from_db()
    with zipfile.ZipFile(zip_path(job)) as archive:
        assert archive.testzip() is None and len(archive.namelist()) == 15


def test_a_disk_that_cannot_be_written_ends_the_job_saying_so(db, user, settings, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    settings.STUDIO_ZIP_ROOT = str(blocked / "zips")
    job = ZipJob.objects.create(workspace_id="ws", created_by=user, idempotency_key="k", images=[], total=0)
    engine.job_step(KIND, job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and job.message.startswith("The ZIP could not be written on the console's disk")


def test_files_are_pruned_a_day_after_and_the_page_says_so(db, api_key, user, logged_in_client, monkeypatch):
    host(monkeypatch, lambda request: httpx.Response(200, content=b"x"))
    job = ZipJob.objects.create(
        workspace_id=api_key.workspace_id,
        created_by=user,
        idempotency_key="k",
        images=[{"id": "i", "url": "https://cdn.example/1.png"}],
        total=1,
    )
    run_steps(job)
    assert zips_prune() == 0  # kept for a day
    assert zips_prune(now=timezone.now() + timedelta(hours=25)) == 1
    job.refresh_from_db()
    assert job.status == "expired" and not zip_path(job).exists()
    page = logged_in_client.get(reverse("studio:zip_job", args=[job.pk]))
    assert text_of(one(page.content, f"#zip-{job.pk} h2")) == "Removed"
    gone = logged_in_client.get(reverse("studio:zip_download", args=[job.pk]))
    assert gone.status_code == 302


def test_a_zip_is_only_its_makers_in_that_workspace(db, api_key, other_user, client, user):
    job = ZipJob.objects.create(workspace_id=api_key.workspace_id, created_by=user, idempotency_key="k", total=0)
    client.force_login(other_user)
    assert client.get(reverse("studio:zip_job", args=[job.pk])).status_code in (302, 404)
    assert client.get(reverse("studio:zip_download", args=[job.pk])).status_code in (302, 404)


def test_nothing_chosen_goes_back_to_the_images_saying_so(db, api_key, logged_in_client):
    response = logged_in_client.get(reverse("studio:library_zip"), {"image": [""]}, follow=False)
    assert response.status_code == 302 and response["Location"] == reverse("studio:library", args=["images"])
    assert [str(message) for message in get_messages(response.wsgi_request)] == [
        "Choose at least one image to download."
    ]


def test_images_no_longer_there_go_back_saying_so(db, remote, api_key, logged_in_client):
    remote.get("/v1/images").mock(return_value=httpx.Response(200, json={"data": []}))
    response = logged_in_client.post(reverse("studio:library_zip"), {"image": "5b0e1f4a-0000-4000-8000-000000000101"})
    assert response.status_code == 302 and not ZipJob.objects.exists()


def test_a_viewer_downloads_a_zip_too_nothing_is_written_in_the_workspace(db, remote, api_key, logged_in_client):
    """Packing images a person may read is a download, not a workspace write:
    a read-only key's holder builds the ZIP as a member does."""
    api_key.member_role = "viewer"
    api_key.save()
    image_id = "5b0e1f4a-0000-4000-8000-000000000101"
    remote.get("/v1/images").mock(
        return_value=httpx.Response(200, json={"data": [{"id": image_id, "url": "https://cdn.example/1.png"}]})
    )
    choice = logged_in_client.get(reverse("studio:library_zip"), {"image": [image_id]})
    form = one(choice.content, "main form[method=post]")

    started = logged_in_client.post(
        reverse("studio:library_zip"),
        {"image": [image_id], "idempotency_key": one(form, "input[name=idempotency_key]")["value"]},
    )

    job = ZipJob.objects.get()
    assert started.status_code == 302 and started["Location"] == reverse("studio:zip_job", args=[job.pk])
    assert all(call.request.method == "GET" for call in remote.calls)


def test_a_zip_whose_every_step_message_is_lost_is_finished_by_the_watch(db, user, monkeypatch):
    images = [{"id": f"i{n}", "url": f"https://cdn.example/{n}.png", "prompt": f"P{n}"} for n in range(25)]
    host(monkeypatch, lambda request: httpx.Response(200, content=b"x" * 10))
    job = ZipJob.objects.create(workspace_id="ws", created_by=user, idempotency_key="k", images=images, total=25)
    assert finish_by_the_watch(monkeypatch, job) == 3  # STEP_IMAGES a step
    job.refresh_from_db()
    assert (job.status, job.done) == (ZipJob.READY, 25)
    with zipfile.ZipFile(zip_path(job)) as archive:
        assert archive.testzip() is None and len(archive.namelist()) == 25
