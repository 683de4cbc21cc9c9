"""Writing library images into a ZIP with bounded memory (the worker's
ZIP job, studio/zip_jobs.py, calls `add_image` for each image).

Each image is read from its address with an httpx streamed download and
written into the archive chunk by chunk (`ZipFile.open(name, "w")`): at
any moment the console holds one chunk of one image plus the archive's
table of contents (a few hundred bytes per image), never a whole picture
nor the whole ZIP. `bench/zip_images.py` measures it and
`tests/studio/test_library_zip.py` holds it under a bound with tracemalloc.
Images are already compressed, so they are stored, not deflated (no CPU
spent for ~0 % gain).

Only addresses the console's img-src allows are fetched (the deployment's
image hosts): the service names the addresses, and the console must never
become a way to reach its own network (SSRF). No redirects. An image that
cannot be fetched is named (`add_image` says why), and the job lists it in
"not-included.txt" inside the archive and on its page.
"""

from __future__ import annotations

import re
import zipfile
from typing import Any

import httpx

from dashboard.frame.images import image_allowed

CHUNK = 64 * 1024
MAX_ZIP_IMAGES = 100  # images in one ZIP (the measured selection)
FETCH_TIMEOUT = httpx.Timeout(10.0, read=30.0)
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}
_UNSAFE = re.compile(r"[^A-Za-z0-9 ._-]+")


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


def add_image(archive: zipfile.ZipFile, http: httpx.Client, image: dict[str, Any], number: int) -> str:
    """Write one image into `archive`, chunk by chunk; "" when it is in, else
    why it is not ("<file name>: <why>"). A download that breaks half-way
    leaves a short entry (a zip entry cannot be taken back): named so."""
    name = file_name(image, number)
    if not image_allowed(image.get("url") or ""):
        return f"{name}: its address is not on the console's list of image hosts"
    try:
        with http.stream("GET", image["url"]) as response:
            if response.status_code != 200:
                return f"{name}: the image host answered {response.status_code}"
            with archive.open(name, "w", force_zip64=True) as entry:
                for chunk in response.iter_bytes(CHUNK):
                    entry.write(chunk)
    except httpx.HTTPError:
        return f"{name}: the download failed (what came of it may be in the archive, cut short)"
    return ""
