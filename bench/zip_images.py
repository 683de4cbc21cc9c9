"""Library ZIP bench: the worker's peak memory while it builds a
selection's ZIP (studio/zip_jobs.py: a job row stepped in chunks of
STEP_IMAGES images, each streamed into the archive), for 10 and 100 images
of 1 MB each.

    .venv/bin/python bench/zip_images.py [--json]

One process, a throwaway SQLite database for the job row, no network: the
image host is an httpx MockTransport whose files are made as they are read,
so only the worker's own holding is measured (tracemalloc peak over every
step, as one worker process would run them). The archive is written under
a throwaway STUDIO_ZIP_ROOT and checked (every entry's CRC). The figure that
matters is the ratio peak(100) / peak(10): near 1 means the memory does not
grow with the selection (the whole ZIP of 100 images is 100 MB). Also
reported: the steps and seconds for the 100 images (local work only).
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


def worker_zip(count: int, user) -> tuple[int, float, int]:
    """Build a ZIP of `count` images step by step; (peak bytes, seconds, steps)."""
    from unittest import mock

    import httpx
    from django.conf import settings
    from django.test import override_settings

    from dashboard.jobs import engine
    from studio.models import ZipJob
    from studio.zip_jobs import KIND, zip_path

    def files(request: httpx.Request) -> httpx.Response:
        class Made(httpx.SyncByteStream):
            def __iter__(self):
                block = bytes(BLOCK)
                for _ in range(IMAGE_BYTES // BLOCK):
                    yield block

        return httpx.Response(200, stream=Made())

    policy = {**settings.CONTENT_SECURITY_POLICY}
    directives = {**policy["DIRECTIVES"], "img-src": [*policy["DIRECTIVES"]["img-src"], HOST]}
    images = [{"id": f"i{n}", "url": f"{HOST}/{n}.png", "prompt": f"Image {n}"} for n in range(count)]
    job = ZipJob.objects.create(
        workspace_id="bench", created_by=user, idempotency_key=f"bench-{count}", images=images, total=count
    )
    steps = 0
    with (
        override_settings(CONTENT_SECURITY_POLICY={**policy, "DIRECTIVES": directives}),
        mock.patch("studio.zip_jobs.download_client", lambda: httpx.Client(transport=httpx.MockTransport(files))),
        mock.patch(
            "dashboard.jobs.engine.send_step", lambda kind, job_id, countdown=None: None
        ),  # the bench is the worker: no broker
    ):
        started = time.perf_counter()
        tracemalloc.start()
        try:
            while not job.is_final:
                engine.job_step(KIND, job.pk)
                steps += 1
                job.refresh_from_db()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        seconds = time.perf_counter() - started
    assert job.status == "ready", job.message
    with zipfile.ZipFile(zip_path(job)) as archive:
        assert archive.testzip() is None and len(archive.namelist()) == count
    zip_path(job).unlink()
    return peak, seconds, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with throwaway() as tmp, django_in(tmp):
        from django.contrib.auth import get_user_model
        from django.test import override_settings

        user = get_user_model().objects.create_user(username="bench-zip")
        with override_settings(STUDIO_ZIP_ROOT=str(Path(tmp) / "zips")):
            small_peak, _, _ = worker_zip(10, user)
            large_peak, seconds, steps = worker_zip(100, user)
    report = {
        "image_bytes": IMAGE_BYTES,
        "peak_bytes": {"10": small_peak, "100": large_peak},
        "ratio_peak_100_to_10": round(large_peak / small_peak, 2),
        "seconds_100": round(seconds, 2),
        "steps_100": steps,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"ZIP of images of {IMAGE_BYTES:,} bytes each, built by the worker (tracemalloc peak):")
    print(f"  10 images:  {small_peak:>10,} bytes")
    print(f"  100 images: {large_peak:>10,} bytes  ({report['ratio_peak_100_to_10']}x; the archive is 100 MB)")
    print(f"  100 images packed in {steps} steps, {report['seconds_100']} s")


if __name__ == "__main__":
    main()
