"""What each pytest-xdist worker keeps to itself (`make test` runs the suite
in a few processes: docs/development.md, "Tests").

Loaded with `-p devtools.pytest_parallel` (pyproject.toml's addopts; an installed
package, so plain `pytest` finds it before any conftest) so that it runs
before pytest-django reads dashboard/settings.py: the Redis address has to be
in the environment by then. Each worker has, of its own:

- the test database: pytest-django adds the worker's id (`test_x_gw0`);
- a Redis database: worker N uses TEST_REDIS_URL's database + 1 + N (CI's
  db 0 gives 1, 2, ...), or the N-th of TEST_REDIS_WORKER_DBS ("10,11,12")
  where the numbers nearby belong to someone else; CELERY_BROKER_URL moves
  with it when it named the same database, so the console's outbox and the
  tests' real Celery workers still meet there and never take another
  worker's tasks from its queue;
- sandboxes, live servers, SMTP servers and worker metrics on free ports, and
  files under tmp_path, as in one process.

Without xdist (a plain `pytest tests/x`) nothing changes.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

DEFAULT_TEST_REDIS_URL = "redis://127.0.0.1:6379/15"
REDIS_DATABASES = 16


def worker_number() -> int | None:
    """0 for xdist's gw0, 1 for gw1...; None outside xdist (or its controller)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") else None


def with_database(url: str, number: int) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{number}"))


def redis_database(url: str) -> int:
    path = urlsplit(url).path.strip("/")
    return int(path) if path else 0


def worker_redis_database(base_url: str, number: int, listed: str) -> int:
    if listed.strip():
        choices = [int(item) for item in listed.split(",") if item.strip()]
        if number >= len(choices):
            raise RuntimeError(f"TEST_REDIS_WORKER_DBS lists {len(choices)} databases for worker gw{number}")
        return choices[number]
    chosen = redis_database(base_url) + 1 + number
    if chosen >= REDIS_DATABASES:
        raise RuntimeError(f"worker gw{number} would use Redis db {chosen}: set TEST_REDIS_WORKER_DBS")
    return chosen


def isolate_worker() -> None:
    number = worker_number()
    if number is None:
        return
    base = os.environ.get("TEST_REDIS_URL", DEFAULT_TEST_REDIS_URL)
    own = with_database(base, worker_redis_database(base, number, os.environ.get("TEST_REDIS_WORKER_DBS", "")))
    if os.environ.get("CELERY_BROKER_URL") == base:
        os.environ["CELERY_BROKER_URL"] = own
    os.environ["TEST_REDIS_URL"] = own


isolate_worker()
