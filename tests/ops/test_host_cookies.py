"""Production settings name the session and CSRF cookies `__Host-...`: a
browser keeps such a cookie only when it is Secure, with Path=/ and no
Domain, so no sibling host can set or shadow it. Read from the Set-Cookie
headers of a real login under production settings (a subprocess: settings
are read once, at start)."""

from __future__ import annotations

import json
import subprocess
import sys
from http.cookies import SimpleCookie

from tests.helpers import PROJECT_DIR
from tests.ops.support import production_env

# Migrate a throwaway SQLite database, then, over https as a browser would:
# the login page (the CSRF cookie), the password posted with its token (the
# session cookie). Prints each response's Set-Cookie headers.
SCRIPT = """
import json, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0, interactive=False)
from django.contrib.auth import get_user_model
from django.conf import settings
from django.test import Client
from django.test.utils import override_settings
# Static files uncollected here: the plain storage, as every test uses.
override_settings(
    STORAGES={**settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
).enable()
get_user_model().objects.create_user(username="ada", password="a long password for ada")
browser = Client(enforce_csrf_checks=True, HTTP_HOST="console.example.com")
page = browser.get("/accounts/login/", secure=True)
token = browser.cookies["__Host-csrftoken"].value
login = browser.post(
    "/accounts/login/",
    {"username": "ada", "password": "a long password for ada", "csrfmiddlewaretoken": token},
    secure=True,
    HTTP_REFERER="https://console.example.com/accounts/login/",  # https: Django checks where a post came from
)
headers = lambda response: [morsel.OutputString() for morsel in response.cookies.values()]
print(json.dumps({"page": [page.status_code, headers(page)], "login": [login.status_code, headers(login)]}))
"""


def set_cookies(headers: list[str]) -> dict[str, dict[str, str | bool]]:
    found = {}
    for header in headers:
        parsed = SimpleCookie()
        parsed.load(header)
        for name, morsel in parsed.items():
            found[name] = {
                "path": morsel["path"],
                "domain": morsel["domain"],
                "secure": bool(morsel["secure"]),
                "samesite": morsel["samesite"],
            }
    return found


def test_production_session_and_csrf_cookies_carry_the_host_prefix(tmp_path):
    env = production_env(
        DJANGO_SETTINGS_MODULE="dashboard.settings",
        DATABASE_URL=f"sqlite:///{tmp_path / 'cookies.sqlite3'}",
        CACHE_URL="locmem://",
        LOG_LEVEL="WARNING",
    )
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])

    page_status, page_headers = found["page"]
    login_status, login_headers = found["login"]
    assert page_status == 200
    assert login_status == 302, "the password step logged the person in"

    page_cookies = set_cookies(page_headers)
    login_cookies = set_cookies(login_headers)
    assert set(page_cookies) == {"__Host-csrftoken"}
    assert "__Host-sessionid" in login_cookies
    assert not {"sessionid", "csrftoken"} & (set(page_cookies) | set(login_cookies))
    for cookie in (page_cookies["__Host-csrftoken"], login_cookies["__Host-sessionid"]):
        assert cookie["secure"] is True
        assert cookie["path"] == "/"
        assert cookie["domain"] == ""
