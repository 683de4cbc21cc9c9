"""Each pytest-xdist worker's own Redis database (devtools/pytest_parallel.py)."""

from __future__ import annotations

import os

import pytest

from devtools.pytest_parallel import isolate_worker, with_database, worker_redis_database


def test_worker_n_takes_the_database_after_the_base_plus_n():
    assert [worker_redis_database("redis://127.0.0.1:6379/0", n, "") for n in range(3)] == [1, 2, 3]
    assert worker_redis_database("redis://127.0.0.1:6379", 0, "") == 1


def test_a_listed_database_per_worker_wins_and_too_few_are_refused():
    assert worker_redis_database("redis://127.0.0.1:6379/1", 1, "10, 11,12") == 11
    with pytest.raises(RuntimeError, match="lists 2 databases for worker gw2"):
        worker_redis_database("redis://127.0.0.1:6379/1", 2, "10,11")
    with pytest.raises(RuntimeError, match="Redis db 16"):
        worker_redis_database("redis://127.0.0.1:6379/14", 1, "")


def test_the_address_keeps_its_password_host_and_port():
    assert with_database("redis://:secret@cache:6380/0", 4) == "redis://:secret@cache:6380/4"


def test_a_worker_moves_the_broker_with_the_test_redis_and_a_plain_run_moves_nothing(monkeypatch):
    monkeypatch.setenv("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.delenv("TEST_REDIS_WORKER_DBS", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    isolate_worker()
    assert (os.environ["TEST_REDIS_URL"], os.environ["CELERY_BROKER_URL"]) == ("redis://127.0.0.1:6379/0",) * 2

    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw2")
    isolate_worker()
    assert (os.environ["TEST_REDIS_URL"], os.environ["CELERY_BROKER_URL"]) == ("redis://127.0.0.1:6379/3",) * 2


def test_a_broker_elsewhere_stays_where_it_is(monkeypatch):
    monkeypatch.setenv("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv("CELERY_BROKER_URL", "sqlite:///var/broker.sqlite3")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.delenv("TEST_REDIS_WORKER_DBS", raising=False)
    isolate_worker()
    assert os.environ["TEST_REDIS_URL"] == "redis://127.0.0.1:6379/1"
    assert os.environ["CELERY_BROKER_URL"] == "sqlite:///var/broker.sqlite3"
