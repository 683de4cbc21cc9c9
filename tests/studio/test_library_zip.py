"""A selection of images as one ZIP, streamed with bounded memory
(studio/library_zip.py): every image read with an httpx streamed download and
written into the archive chunk by chunk."""

from __future__ import annotations

import io
import tracemalloc
import zipfile

import httpx
from django.contrib.messages import get_messages
from django.urls import reverse

from studio.library_zip import zip_stream

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


def test_a_zip_of_100_images_holds_a_bounded_amount_of_memory(fake_service_settings, tmp_path):
    images = [{"id": f"i{n}", "url": f"https://cdn.example/{n}.png", "prompt": f"Bike {n}"} for n in range(100)]
    client = httpx.Client(transport=httpx.MockTransport(endless_pictures))
    target = tmp_path / "images.zip"
    tracemalloc.start()
    try:
        with target.open("wb") as out:
            for part in zip_stream(images, client=client):
                out.write(part)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    with zipfile.ZipFile(target) as archive:
        assert archive.testzip() is None
        names = archive.namelist()
        assert len(names) == 100 and names[0] == "001 Bike 0.png"
        assert archive.getinfo(names[-1]).file_size == IMAGE_BYTES
    assert peak < MEMORY_BOUND, f"peak {peak} bytes for {100 * IMAGE_BYTES} bytes of images"


def test_the_zip_view_streams_the_chosen_images_and_names_what_it_left_out(
    db, remote, api_key, logged_in_client, monkeypatch
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

    monkeypatch.setattr(
        "studio.library_zip.download_client", lambda: httpx.Client(transport=httpx.MockTransport(image_host))
    )
    chosen = [f"5b0e1f4a-0000-4000-8000-00000000010{n}" for n in (1, 2, 3)]
    response = logged_in_client.get(reverse("studio:library_zip"), {"image": chosen})
    assert response.streaming and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert archive.read("001 Red.png") == b"one"
    missing = archive.read("not-included.txt").decode()
    # Never fetched from a host the console does not list (no way into its own network).
    assert "002 image.png: its address is not on the console's list of image hosts" in missing
    assert "003 image.png: the image host answered 404" in missing
    assert fetched == ["https://cdn.example/1.png", "https://cdn.example/3.png"]


def test_nothing_chosen_goes_back_to_the_images_saying_so(db, api_key, logged_in_client):
    response = logged_in_client.get(reverse("studio:library_zip"), {"image": [""]}, follow=False)
    assert response.status_code == 302 and response["Location"] == reverse("studio:library", args=["images"])
    assert [str(message) for message in get_messages(response.wsgi_request)] == [
        "Choose at least one image to download."
    ]


def test_images_no_longer_there_go_back_saying_so(db, remote, api_key, logged_in_client):
    remote.get("/v1/images").mock(return_value=httpx.Response(200, json={"data": []}))
    response = logged_in_client.get(reverse("studio:library_zip"), {"image": "5b0e1f4a-0000-4000-8000-000000000101"})
    assert response.status_code == 302
