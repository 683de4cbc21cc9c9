"""/livez and /readyz: no login, JSON, no secrets; /readyz answers 503 naming
the part that is down (database, broker, cache, beat, a worker, the poller's
backlog) and 200 again once it is back. Heartbeats are set by hand."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta

import pytest
from cryptography.fernet import Fernet
from django.db import OperationalError
from django.urls import reverse
from django.utils import timezone

from dashboard.live import heartbeat
from dashboard.live.models import TrackedOperation
from tests.helpers import PROJECT_DIR

PARTS = {"database", "broker", "cache", "beat", "worker", "poller", "leases"}


def readyz(client):
    response = client.get(reverse("readyz"))
    body = response.json()
    return response.status_code, {name: body[name] for name in PARTS}, body


def test_livez_answers_without_login_database_or_broker(client, settings):
    # No django_db mark: any database access would raise; the broker is nowhere.
    settings.CELERY_BROKER_URL = "redis://:hunter2@127.0.0.1:1/0"

    response = client.get(reverse("livez"))

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_readyz_is_200_when_every_part_works(client, alive):
    status, parts, body = readyz(client)

    assert status == 200
    assert body["status"] == "ok"
    assert parts == dict.fromkeys(PARTS, "ok")
    assert body["seconds"]["oldest_due"] == 0
    assert body["seconds"]["beat"] is not None and body["seconds"]["worker"] is not None
    assert client.get(reverse("readyz"))["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_readyz_names_beat_when_its_heartbeat_is_older_than_the_threshold_and_recovers(client, alive, settings):
    settings.READY_BEAT_MAX_AGE = 60
    heartbeat.beat_heartbeat_record(now=timezone.now() - timedelta(seconds=61))

    status, parts, body = readyz(client)

    assert status == 503
    assert body["status"] == "unavailable"
    # The worker runs on: only beat is named.
    assert {name for name, check in parts.items() if check != "ok"} == {"beat"}
    assert parts["beat"] == "error: HeartbeatStale"
    assert body["seconds"]["beat"] >= 61

    heartbeat.beat_heartbeat_record()  # beat is back

    assert readyz(client)[0] == 200


@pytest.mark.django_db
def test_readyz_names_the_worker_when_its_heartbeat_is_older_than_the_threshold_and_recovers(client, alive, settings):
    settings.READY_WORKER_MAX_AGE = 60
    heartbeat.worker_heartbeat_record(queues=[heartbeat.default_queue()], now=timezone.now() - timedelta(seconds=61))

    status, parts, _ = readyz(client)

    assert status == 503
    # Beat still schedules: only the worker is named.
    assert {name for name, check in parts.items() if check != "ok"} == {"worker"}
    assert parts["worker"] == "error: HeartbeatStale"

    heartbeat.worker_heartbeat_record(queues=[heartbeat.default_queue()])

    assert readyz(client)[0] == 200


@pytest.mark.django_db
def test_the_default_thresholds_make_readyz_fail_within_90_seconds_of_beat_or_the_worker_stopping(
    client, alive, settings
):
    # Beat records every 5 s, a worker every 10 s: the last heartbeat before a stop
    # is at most that old when it stops; 90 s later /readyz must say so.
    assert settings.READY_BEAT_MAX_AGE + heartbeat.BEAT_RECORD_SECONDS < 90
    assert settings.READY_WORKER_MAX_AGE + heartbeat.WORKER_HEARTBEAT_SECONDS < 90
    stopped = timezone.now() - timedelta(seconds=90)
    heartbeat.beat_heartbeat_record(now=stopped)
    heartbeat.worker_heartbeat_record(queues=[heartbeat.default_queue()], now=stopped)

    status, parts, _ = readyz(client)

    assert status == 503
    assert parts["beat"] == parts["worker"] == "error: HeartbeatStale"


@pytest.mark.django_db
def test_readyz_says_when_beat_or_a_worker_was_never_seen(client):
    status, parts, body = readyz(client)

    assert status == 503
    assert parts["beat"] == parts["worker"] == "error: HeartbeatMissing"
    assert body["seconds"]["beat"] is None


@pytest.mark.django_db
def test_a_worker_of_another_queue_does_not_count_as_the_pollers_worker(client, settings):
    heartbeat.beat_heartbeat_record()
    heartbeat.worker_heartbeat_record(queues=["streams"])

    assert readyz(client)[1]["worker"] == "error: HeartbeatMissing"


@pytest.mark.django_db
def test_readyz_names_the_poller_when_a_row_waits_past_the_threshold(client, alive, make_turn, settings):
    settings.READY_DUE_MAX_AGE = 120
    op = make_turn(next_poll_at=timezone.now() - timedelta(seconds=10))
    assert readyz(client)[0] == 200  # due a little while: normal

    TrackedOperation.objects.filter(pk=op.pk).update(next_poll_at=timezone.now() - timedelta(seconds=121))
    status, parts, body = readyz(client)

    assert status == 503
    assert {name for name, check in parts.items() if check != "ok"} == {"poller"}
    assert parts["poller"] == "error: PollerBehind"
    assert body["seconds"]["oldest_due"] >= 121

    # A worker holds it now (a lease): it is being polled, not waiting.
    TrackedOperation.objects.filter(pk=op.pk).update(lease_until=timezone.now() + timedelta(seconds=30))
    assert readyz(client)[0] == 200


@pytest.mark.django_db
def test_readyz_names_the_stream_followers_worker_when_it_has_a_queue_of_its_own(client, alive, settings):
    settings.CELERY_STREAM_QUEUE = "streams"
    settings.READY_WORKER_MAX_AGE = 60
    status, _, body = readyz(client)  # the poller's worker is alive; nothing consumes the streams
    assert status == 503 and body["streams"] == "error: HeartbeatMissing"
    assert [name for name in PARTS | {"streams"} if body[name] != "ok"] == ["streams"]

    heartbeat.worker_heartbeat_record(queues=["streams"], now=timezone.now() - timedelta(seconds=61))
    status, _, body = readyz(client)
    assert status == 503 and body["streams"] == "error: HeartbeatStale" and body["seconds"]["streams"] >= 61

    heartbeat.worker_heartbeat_record(queues=["streams"])
    status, _, body = readyz(client)
    assert status == 200 and body["streams"] == "ok"


@pytest.mark.django_db
def test_readyz_names_rows_held_by_a_poll_but_not_polled_for_two_intervals(client, alive, make_turn):
    now = timezone.now()
    # First polls come every 5 s: due a second ago and held, it is being polled (a loaded
    # machine's seconds between `now` and the check keep it under the 5 s it may be late).
    fresh = make_turn(remote_id="turn-fresh", next_poll_at=now - timedelta(seconds=1))
    frozen = make_turn(remote_id="turn-frozen", next_poll_at=now - timedelta(seconds=1))
    streamed = make_turn(remote_id="turn-streamed", next_poll_at=now - timedelta(seconds=300))
    TrackedOperation.objects.filter(pk__in=[fresh.pk, frozen.pk]).update(
        lease_until=now + timedelta(seconds=6), lease_token="poll:batch"
    )
    # A stream follower's lease: its stream says when something changes, not a poll.
    TrackedOperation.objects.filter(pk=streamed.pk).update(lease_until=now + timedelta(seconds=30), lease_token="s")
    status, parts, body = readyz(client)
    assert status == 200 and parts["leases"] == "ok" and body["counts"]["stale_leased"] == 0

    # Two intervals without a poll (its lease renewed meanwhile: a batch stuck on it).
    TrackedOperation.objects.filter(pk=frozen.pk).update(next_poll_at=now - timedelta(seconds=6))
    status, parts, body = readyz(client)
    assert status == 503
    assert {name for name, check in parts.items() if check != "ok"} == {"leases"}
    assert parts["leases"] == "error: LeaseStale"
    assert body["counts"]["stale_leased"] == 1 and body["seconds"]["stale_lease"] >= 6

    # Polled (the lease given back with the result): ready again.
    TrackedOperation.objects.filter(pk=frozen.pk).update(
        lease_until=None, lease_token="", next_poll_at=timezone.now() + timedelta(seconds=5)
    )
    status, parts, body = readyz(client)
    assert status == 200 and body["counts"]["stale_leased"] == 0


@pytest.mark.django_db
def test_a_dead_workers_lease_counts_as_frozen_until_another_poll_takes_the_row(client, alive, make_turn):
    # Later polls come every 10 s; the lease ran out and was never given back.
    now = timezone.now()
    op = make_turn(next_poll_at=now - timedelta(seconds=11), poll_count=6)
    TrackedOperation.objects.filter(pk=op.pk).update(lease_until=now - timedelta(seconds=5), lease_token="poll:dead")
    assert readyz(client)[1]["leases"] == "error: LeaseStale"
    # Read afresh: the first check's seconds on a loaded machine must not count as lateness.
    TrackedOperation.objects.filter(pk=op.pk).update(next_poll_at=timezone.now() - timedelta(seconds=7))
    assert readyz(client)[1]["leases"] == "ok"  # under one interval late: not yet two without a poll


@pytest.mark.django_db
def test_readyz_names_a_failing_cache_by_its_class_only(client, alive, monkeypatch):
    def refuse(*args, **kwargs):
        raise ConnectionError("redis://:cache-password@cache.internal:6379")

    monkeypatch.setattr("dashboard.probes.cache.set", refuse)

    response = client.get(reverse("readyz"))

    assert response.status_code == 503
    assert response.json()["cache"] == "error: ConnectionError"
    assert "cache-password" not in response.content.decode()


@pytest.mark.django_db
def test_readyz_names_a_failing_database_and_broker_by_their_class_only(client, alive, settings, monkeypatch):
    settings.CELERY_BROKER_URL = "redis://:hunter2-broker@127.0.0.1:1/0"

    def refuse(*args, **kwargs):
        raise OperationalError("password=secret-db-password")

    monkeypatch.setattr("dashboard.probes.connection.cursor", refuse)

    response = client.get(reverse("readyz"))
    body = response.json()

    assert response.status_code == 503
    assert body["database"] == "error: OperationalError"
    assert body["broker"].startswith("error: ")
    text = response.content.decode()
    assert "hunter2" not in text and "secret-db-password" not in text and "127.0.0.1" not in text


def test_probes_refuse_writes(client):
    assert client.post(reverse("livez")).status_code == 405
    assert client.post(reverse("readyz")).status_code == 405


def test_production_exempts_every_probe_from_the_https_redirect():
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env.update(
        CONSOLE_ENV="production",
        SECRET_KEY="probe-check-" + Fernet.generate_key().decode() + Fernet.generate_key().decode(),
        KEY_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        ALLOWED_HOSTS="console.example.com",
    )
    script = (
        "import django, re; django.setup(); from django.conf import settings; "
        "print(' '.join(p for p in ('healthz', 'livez', 'readyz') "
        "if any(re.search(x, p) for x in settings.SECURE_REDIRECT_EXEMPT)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=PROJECT_DIR,
        env={**env, "DJANGO_SETTINGS_MODULE": "dashboard.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["healthz", "livez", "readyz"]


def test_the_web_containers_healthcheck_asks_livez_never_readyz():
    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((PROJECT_DIR / "docker-compose.yml").read_text())

    probe = " ".join(compose["services"]["web"]["healthcheck"]["test"])

    # A stopped beat (another container) must not make the web unhealthy.
    assert "/livez" in probe and "/readyz" not in probe


@pytest.mark.redis
def test_queue_depths_are_read_from_a_real_redis_broker(settings):
    from kombu import Connection

    from dashboard.probes import broker_queue_depths
    from tests.helpers import missing_service

    url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
    settings.CELERY_BROKER_URL = url
    with Connection(url, connect_timeout=2) as conn:
        try:
            conn.ensure_connection(max_retries=1)
        except Exception as exc:
            missing_service(f"no Redis at TEST_REDIS_URL ({type(exc).__name__})")
        queue = conn.SimpleQueue("system-depth-test")
        queue.clear()
        try:
            for number in range(3):
                queue.put({"n": number})

            depths = broker_queue_depths(["system-depth-test", "system-depth-empty"], timeout=2.0)

            assert depths == {"system-depth-test": 3, "system-depth-empty": 0}
        finally:
            queue.clear()
            queue.close()


@pytest.mark.django_db
def test_queue_depths_of_a_broker_that_is_down_are_unknown(settings):
    from dashboard.probes import broker_queue_depths

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"

    assert broker_queue_depths(["celery"], timeout=1.0) == {"celery": None}
