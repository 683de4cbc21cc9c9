"""Security headers: Permissions-Policy on every page (not on static files), images only from
the console, the service, its web app and the configured asset hosts (no
blanket https:), HSTS's subdomains and preload only when the operator opts in."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from django.urls import reverse

from tests.helpers import PROJECT_DIR
from tests.ops.support import manage, production_env

REFUSED_FEATURES = {"camera", "microphone", "geolocation", "payment", "usb", "interest-cohort", "browsing-topics"}


def permissions_policy(header: str) -> dict[str, list[str]]:
    """`camera=(), fullscreen=(self)` as {"camera": [], "fullscreen": ["self"]}."""
    found = {}
    for item in header.split(","):
        name, allowed = item.strip().split("=", 1)
        found[name] = allowed.strip("()").split()
    return found


def content_security_policy(header: str) -> dict[str, list[str]]:
    """`img-src 'self' data:; ...` as {"img-src": ["'self'", "data:"], ...}."""
    directives = (item.split() for item in header.split(";") if item.strip())
    return {name: values for name, *values in directives}


def production_settings(**env: str) -> dict:
    """Settings a production process computes from this environment."""
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({'img': s.CONTENT_SECURITY_POLICY['DIRECTIVES']['img-src'], "
        "'subdomains': s.SECURE_HSTS_INCLUDE_SUBDOMAINS, 'preload': s.SECURE_HSTS_PRELOAD, "
        "'silenced': s.SILENCED_SYSTEM_CHECKS}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=PROJECT_DIR,
        env={**production_env(**env), "DJANGO_SETTINGS_MODULE": "dashboard.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.django_db
def test_a_page_refuses_browser_features_and_loads_images_only_from_known_hosts(client, settings):
    response = client.get(reverse("login"))

    assert response.status_code == 200
    features = permissions_policy(response["Permissions-Policy"])
    assert {name for name, allowed in features.items() if allowed == []} >= REFUSED_FEATURES
    images = content_security_policy(response["Content-Security-Policy"])["img-src"]
    assert "https:" not in images and "*" not in images
    assert images[:3] == ["'self'", "data:", settings.SERVICE_BASE_URL]


def test_static_files_carry_their_own_headers_not_a_pages(client, db):  # the login page reads the sign-in policy
    page = client.get(reverse("login"))
    response = client.get("/static/js/retry.js")

    assert response.status_code == 200
    # A document's headers, on the page only: on each of its dozen files they would only ride along.
    for name in ("Permissions-Policy", "Cross-Origin-Opener-Policy", "Referrer-Policy", "Content-Security-Policy"):
        assert page.has_header(name) and not response.has_header(name), name
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response.has_header("X-Request-Id")


def test_production_images_come_from_the_service_its_app_and_the_asset_hosts_only():
    found = production_settings(
        SERVICE_BASE_URL="https://api.example.com/",
        SERVICE_APP_URL="https://app.example.com/workspace",
        CSP_IMG_HOSTS="https://cdn.example.net,https://*.assets.example.org",
    )

    assert found["img"] == [
        "'self'",
        "data:",
        "https://api.example.com",
        "https://app.example.com",
        "https://cdn.example.net",
        "https://*.assets.example.org",
    ]


def test_hsts_covers_subdomains_and_preload_only_when_the_operator_opts_in():
    default = production_settings()
    opted_in = production_settings(SECURE_HSTS_INCLUDE_SUBDOMAINS="true", SECURE_HSTS_PRELOAD="true")

    assert (default["subdomains"], default["preload"]) == (False, False)
    # Only the two warnings about the opt-in are silenced, and only while it is off.
    assert default["silenced"] == ["security.W005", "security.W021"]
    assert (opted_in["subdomains"], opted_in["preload"], opted_in["silenced"]) == (True, True, [])


def test_the_deploy_check_passes_with_hsts_opted_in():
    env = production_env(SECURE_HSTS_INCLUDE_SUBDOMAINS="true", SECURE_HSTS_PRELOAD="true")

    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env)

    assert result.returncode == 0, result.stdout + result.stderr
