"""Library ZIP bench: the memory a selection's ZIP holds while it streams
(studio/library_zip.py), for 10 and 100 images of 1 MB each.

    .venv/bin/python bench/zip_images.py [--json]

One process, no database use and no network: the image host is an httpx
MockTransport whose files are made as they are read, so only the console's
own holding is measured (tracemalloc peak). The archive goes to a file in a
throwaway folder and is checked (every entry's CRC). The figure that matters
is the ratio peak(100) / peak(10): near 1 means the memory does not grow with
the selection (the whole ZIP of 100 images is 100 MB). Also reported: the
seconds to stream the 100 images (local work only: zip framing and CRCs).
tests/studio/test_library_zip.py holds the same bound in bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import django_in, throwaway

IMAGE_BYTES = 1024 * 1024
BLOCK = 64 * 1024
HOST = "https://cdn.example"


def stream_zip(count: int, target: Path) -> tuple[int, float]:
    import httpx
    from django.test import override_settings

    from studio.library_zip import zip_stream

    def files(request: httpx.Request) -> httpx.Response:
        class Made(httpx.SyncByteStream):
            def __iter__(self):
                block = bytes(BLOCK)
                for _ in range(IMAGE_BYTES // BLOCK):
                    yield block

        return httpx.Response(200, stream=Made())

    from django.conf import settings

    policy = {**settings.CONTENT_SECURITY_POLICY}
    directives = {**policy["DIRECTIVES"], "img-src": [*policy["DIRECTIVES"]["img-src"], HOST]}
    images = [{"id": f"i{n}", "url": f"{HOST}/{n}.png", "prompt": f"Image {n}"} for n in range(count)]
    with override_settings(CONTENT_SECURITY_POLICY={**policy, "DIRECTIVES": directives}):
        client = httpx.Client(transport=httpx.MockTransport(files))
        started = time.perf_counter()
        tracemalloc.start()
        try:
            with target.open("wb") as out:
                for part in zip_stream(images, client=client):
                    out.write(part)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        seconds = time.perf_counter() - started
    with zipfile.ZipFile(target) as archive:
        assert archive.testzip() is None and len(archive.namelist()) == count
    return peak, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with throwaway() as tmp, django_in(tmp):
        small_peak, _ = stream_zip(10, Path(tmp) / "10.zip")
        large_peak, seconds = stream_zip(100, Path(tmp) / "100.zip")
    report = {
        "image_bytes": IMAGE_BYTES,
        "peak_bytes": {"10": small_peak, "100": large_peak},
        "ratio_peak_100_to_10": round(large_peak / small_peak, 2),
        "seconds_100": round(seconds, 2),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"ZIP of images of {IMAGE_BYTES:,} bytes each, streamed (tracemalloc peak):")
    print(f"  10 images:  {small_peak:>10,} bytes")
    print(f"  100 images: {large_peak:>10,} bytes  ({report['ratio_peak_100_to_10']}x; the archive is 100 MB)")
    print(f"  100 images streamed in {report['seconds_100']} s")


if __name__ == "__main__":
    main()
