"""Who may read /metrics: nobody while off (404), then only with the token
and/or from an allowed address; a browser session counts for nothing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from cryptography.fernet import Fernet
from django.urls import reverse

from tests.helpers import PROJECT_DIR
from tests.metrics.support import BEARER, TOKEN, samples

URL = "/metrics"


def test_the_address_is_the_one_prometheus_expects():
    assert reverse("metrics") == URL


def test_off_by_default_is_a_404_even_for_a_logged_in_person(client, logged_in_client, settings):
    assert settings.METRICS_ENABLED is False

    assert client.get(URL, **BEARER).status_code == 404
    assert logged_in_client.get(URL).status_code == 404


def test_enabled_without_a_token_or_an_allow_list_serves_nothing(client, settings, db):
    settings.METRICS_ENABLED = True
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOW_FROM = []

    assert client.get(URL).status_code == 404


def test_a_missing_token_is_401_and_a_wrong_one_403(client, metrics_on):
    missing = client.get(URL)
    wrong = client.get(URL, HTTP_AUTHORIZATION="Bearer not-the-token")
    other_scheme = client.get(URL, HTTP_AUTHORIZATION=f"Basic {TOKEN}")

    assert missing.status_code == 401
    assert missing["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert wrong.status_code == 403
    assert other_scheme.status_code == 401
    # Refusals say no more than that, and nothing is cached on the way.
    assert TOKEN not in wrong.content.decode()
    assert wrong["Cache-Control"] == "no-store"


def test_a_logged_in_browser_session_is_refused_like_anyone_without_the_token(logged_in_client, metrics_on):
    response = logged_in_client.get(URL)

    assert response.status_code == 401
    assert response["Content-Type"].startswith("text/plain")


def test_the_right_token_reads_the_metrics_without_a_session(client, metrics_on):
    response = client.get(URL, **BEARER)

    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert response["Cache-Control"] == "no-store"
    assert samples(response.content)  # parses as Prometheus' text format


def test_only_get_is_answered(client, metrics_on):
    assert client.post(URL, **BEARER).status_code == 405


@pytest.mark.parametrize(
    ("remote_addr", "status"),
    [("10.1.2.3", 200), ("127.0.0.1", 403), ("::ffff:10.9.9.9", 200), ("2001:db8::1", 403), ("", 403)],
)
def test_the_allow_list_alone(client, metrics_on, remote_addr, status):
    metrics_on.METRICS_TOKEN = ""
    metrics_on.METRICS_ALLOW_FROM = ["10.0.0.0/8", "192.168.1.7"]

    assert client.get(URL, REMOTE_ADDR=remote_addr).status_code == status


def test_a_forged_forwarded_header_does_not_pass_the_allow_list(client, metrics_on):
    metrics_on.METRICS_TOKEN = ""
    metrics_on.METRICS_ALLOW_FROM = ["10.0.0.0/8"]
    metrics_on.TRUSTED_PROXY_COUNT = 0

    forged = client.get(URL, REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR="10.1.2.3")

    assert forged.status_code == 403


def test_behind_a_trusted_proxy_the_address_it_saw_is_the_one_checked(client, metrics_on):
    metrics_on.METRICS_TOKEN = ""
    metrics_on.METRICS_ALLOW_FROM = ["10.0.0.0/8"]
    metrics_on.TRUSTED_PROXY_COUNT = 1

    inside = client.get(URL, REMOTE_ADDR="172.16.0.2", HTTP_X_FORWARDED_FOR="203.0.113.5, 10.1.2.3")
    outside = client.get(URL, REMOTE_ADDR="172.16.0.2", HTTP_X_FORWARDED_FOR="10.1.2.3, 203.0.113.5")

    assert inside.status_code == 200
    assert outside.status_code == 403


def test_with_both_set_both_must_pass(client, metrics_on):
    metrics_on.METRICS_ALLOW_FROM = ["10.0.0.0/8"]

    assert client.get(URL, REMOTE_ADDR="10.1.2.3", **BEARER).status_code == 200
    assert client.get(URL, REMOTE_ADDR="10.1.2.3").status_code == 401
    assert client.get(URL, REMOTE_ADDR="127.0.0.1", **BEARER).status_code == 403


def test_an_entry_that_is_no_network_grants_nothing_and_the_check_says_so(client, metrics_on):
    from dashboard.metrics.checks import metrics_settings_check

    metrics_on.METRICS_TOKEN = ""
    metrics_on.METRICS_ALLOW_FROM = ["not-a-network"]

    assert client.get(URL, REMOTE_ADDR="127.0.0.1").status_code == 403
    assert [problem.id for problem in metrics_settings_check()] == ["metrics.E001"]


def test_in_production_a_token_turns_metrics_on_over_http_and_warns_without_a_directory():
    """A subprocess in production mode: METRICS_TOKEN alone turns metrics on
    (the middleware installed), /metrics is exempt from the https redirect
    (the scraper is inside the network), and without PROMETHEUS_MULTIPROC_DIR
    the checks say each process would count alone."""
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env.update(
        CONSOLE_ENV="production",
        DJANGO_SETTINGS_MODULE="dashboard.settings",
        SECRET_KEY="metrics-check-" + Fernet.generate_key().decode() + Fernet.generate_key().decode(),
        KEY_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        ALLOWED_HOSTS="console.example.com",
        METRICS_TOKEN=TOKEN,
    )
    script = (
        "import django, json; django.setup(); from django.conf import settings; "
        "from dashboard.metrics.checks import metrics_settings_check; "
        "print(json.dumps({'middleware': settings.MIDDLEWARE, 'exempt': settings.SECURE_REDIRECT_EXEMPT, "
        "'checks': [p.id for p in metrics_settings_check()]}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])

    assert "dashboard.metrics.middleware.MetricsMiddleware" in found["middleware"]
    assert found["middleware"].index("dashboard.metrics.middleware.MetricsMiddleware") == (
        found["middleware"].index("whitenoise.middleware.WhiteNoiseMiddleware") + 1
    )
    assert any(re.search(pattern, "metrics") for pattern in found["exempt"])
    assert found["checks"] == ["metrics.W003"]


def test_a_replica_scraped_by_its_address_is_answered_with_the_token_only(client, metrics_on, settings):
    # dns_sd or a pod IP: the Host is an address no ALLOWED_HOSTS lists.
    by_address = {"HTTP_HOST": "172.18.0.5:8000"}

    assert client.get("/metrics", **BEARER, **by_address).status_code == 200
    assert client.get("/metrics/state", **BEARER, **by_address).status_code == 200
    assert client.get("/metrics/state", **by_address).status_code == 401
    # An allow-list alone keeps Django's Host check: a page that points a browser
    # inside the allowed network at the console reads nothing.
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOW_FROM = ["127.0.0.1/32"]
    assert client.get("/metrics", **by_address).status_code == 400
    assert client.get("/metrics").status_code == 200
