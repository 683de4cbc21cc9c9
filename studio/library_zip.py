"""A selection of images downloaded as one ZIP, streamed with bounded memory.

Each image is read from its address with an httpx streamed download and
written into the archive chunk by chunk (`ZipFile.open(name, "w")` on an
unseekable sink): at any moment the console holds one chunk of one image
plus the archive's table of contents (a few hundred bytes per image), never
a whole picture nor the whole ZIP. `bench/zip_images.py` measures it and
`tests/studio/test_library_zip.py` holds it under a bound with tracemalloc.

Why a StreamingHttpResponse and not a Celery task writing a file under var/:
the bytes leave as they arrive, so nothing is stored, no file needs
cleaning up and the browser's own download shows the progress. The brief
allowed this when simpler; a worker job would add a file lifecycle and a
poll for no gain in memory. Images are already compressed, so they are
stored, not deflated (no CPU spent for ~0 % gain).

Only addresses the console's img-src allows are fetched (the deployment's
image hosts): the service names the addresses, and the console must never
become a way to reach its own network (SSRF). An image that cannot be
fetched is listed in "not-included.txt" inside the archive: the status line
has long been sent by then, so the archive itself says what is missing.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable, Iterator
from typing import Any

import httpx

from dashboard.frame.images import image_allowed

CHUNK = 64 * 1024
MAX_ZIP_IMAGES = 100  # images in one ZIP (the measured selection)
FETCH_TIMEOUT = httpx.Timeout(10.0, read=30.0)
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}
_UNSAFE = re.compile(r"[^A-Za-z0-9 ._-]+")


class _Sink:
    """A write-only file object whose bytes are taken away after each write."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.offset = 0

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        self.offset += len(data)
        return len(data)

    def tell(self) -> int:  # zipfile asks where it is for local header offsets
        return self.offset

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def take(self) -> bytes:
        data = b"".join(self.parts)
        self.parts.clear()
        return data


def file_name(image: dict[str, Any], number: int) -> str:
    """A name a person recognises (its prompt), numbered so two never clash."""
    words = _UNSAFE.sub("", image.get("prompt") or "").strip()[:60].strip() or "image"
    extension = _EXTENSIONS.get(image.get("media_type") or "", "")
    if not extension:
        path = httpx.URL(image["url"]).path
        extension = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else "png"
        extension = extension if extension in _EXTENSIONS.values() or extension == "jpeg" else "png"
    return f"{number:03d} {words}.{extension}"


def download_client() -> httpx.Client:
    """The client that reads image files: no redirects (a redirect could
    lead off the listed hosts), bounded waits."""
    return httpx.Client(timeout=FETCH_TIMEOUT, follow_redirects=False)


def zip_stream(images: Iterable[dict[str, Any]], *, client: httpx.Client | None = None) -> Iterator[bytes]:
    """The ZIP's bytes, as they are made."""
    own = client is None
    http = client or download_client()
    sink = _Sink()
    missing: list[str] = []
    try:
        with zipfile.ZipFile(sink, mode="w", compression=zipfile.ZIP_STORED) as archive:
            for number, image in enumerate(images, start=1):
                name = file_name(image, number)
                if not image_allowed(image["url"]):
                    missing.append(f"{name}: its address is not on the console's list of image hosts")
                    continue
                try:
                    with http.stream("GET", image["url"]) as response:
                        if response.status_code != 200:
                            missing.append(f"{name}: the image host answered {response.status_code}")
                            continue
                        with archive.open(name, "w", force_zip64=True) as entry:
                            for chunk in response.iter_bytes(CHUNK):
                                entry.write(chunk)
                                yield sink.take()
                except httpx.HTTPError:
                    # Part of the entry may be written: it stays, short, and is named below.
                    missing.append(f"{name}: the download failed")
                yield sink.take()
            if missing:
                archive.writestr("not-included.txt", "\n".join(missing) + "\n")
        yield sink.take()
    finally:
        if own:
            http.close()
