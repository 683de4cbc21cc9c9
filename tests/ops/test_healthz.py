"""`/healthz`: database and broker status, no login, no secrets."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from django.urls import reverse

from tests.helpers import missing_service
from tests.ops.support import closed_port


@pytest.mark.django_db
def test_healthz_answers_200_without_login_when_database_and_broker_are_up(client, settings, tmp_path):
    settings.CELERY_BROKER_URL = f"sqlite:///{tmp_path / 'broker.sqlite3'}"

    response = client.get(reverse("healthz"))

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_healthz_answers_503_when_the_broker_is_unreachable_and_hides_its_address(client, settings):
    settings.CELERY_BROKER_URL = f"redis://:hunter2-broker-password@127.0.0.1:{closed_port()}/0"

    response = client.get(reverse("healthz"))

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["database"] == "ok"
    assert body["broker"].startswith("error: ")
    assert "hunter2" not in response.content.decode()
    assert "127.0.0.1" not in response.content.decode()


@pytest.mark.django_db
def test_healthz_answers_503_when_the_embedded_broker_cannot_open_its_file(client, settings, tmp_path):
    settings.CELERY_BROKER_URL = f"sqlite:///{tmp_path / 'gone' / 'broker.sqlite3'}"

    response = client.get(reverse("healthz"))

    assert response.status_code == 503
    assert response.json()["broker"] == "error: OperationalError"
    assert "gone" not in response.content.decode()


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_fails(client, settings, tmp_path, monkeypatch):
    settings.CELERY_BROKER_URL = f"sqlite:///{tmp_path / 'broker.sqlite3'}"

    def refuse(*args, **kwargs):
        raise OperationalError("could not connect to server: password=secret-db-password")

    monkeypatch.setattr("dashboard.probes.connection.cursor", refuse)

    response = client.get(reverse("healthz"))

    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "error: OperationalError", "broker": "ok"}
    assert "secret-db-password" not in response.content.decode()


@pytest.mark.django_db
def test_healthz_reaches_a_real_redis_broker(client, settings):
    import os

    redis_url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
    try:
        import redis

        redis.Redis.from_url(redis_url, socket_connect_timeout=2).ping()
    except Exception as exc:
        missing_service(f"no Redis at TEST_REDIS_URL ({type(exc).__name__})")
    settings.CELERY_BROKER_URL = redis_url

    response = client.get(reverse("healthz"))

    assert response.status_code == 200
    assert response.json()["broker"] == "ok"


def test_healthz_refuses_writes(client):
    response = client.post(reverse("healthz"))

    assert response.status_code == 405
