"""The real services CI runs against: PostgreSQL behind DATABASE_URL and
Redis at TEST_REDIS_URL / the Celery broker. Locally, without them, these
skip; on CI (CONSOLE_TEST_REQUIRE_SERVICES=1) they fail instead."""

from __future__ import annotations

import os
import uuid

import pytest
from django.conf import settings
from django.db import connection

from tests.helpers import missing_service


def redis_client(url: str):
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        missing_service(f"no Redis answering ({type(exc).__name__})")
    return client


@pytest.mark.postgres
@pytest.mark.django_db
def test_database_url_for_postgres_really_connects_to_postgresql():
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        missing_service("DATABASE_URL does not point at PostgreSQL")

    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()

    assert connection.vendor == "postgresql"
    assert version.startswith("PostgreSQL")


@pytest.mark.redis
def test_redis_at_test_redis_url_stores_and_returns_a_value():
    client = redis_client(os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15"))
    key = f"console-ops-test:{uuid.uuid4()}"

    client.set(key, "round trip", ex=60)
    try:
        assert client.get(key) == b"round trip"
    finally:
        client.delete(key)


@pytest.mark.redis
def test_celery_broker_is_reachable_when_it_is_redis():
    if not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        missing_service("CELERY_BROKER_URL is not Redis")
    from kombu import Connection

    with Connection(settings.CELERY_BROKER_URL, connect_timeout=2) as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
        assert conn.connected
