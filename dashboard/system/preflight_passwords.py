"""Preflight in production (dashboard/system/preflight_settings.py): no
password or signing key is one that ships in this project's examples or
that everyone tries first. compose once filled an empty POSTGRES_PASSWORD
with `console`; .env.example and the docs show `PASSWORD` and
`change-me`-style placeholders, copied as they are more often than anyone
admits. Values are never printed: a check names the setting only."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.db import connections

from dashboard.system.report import FAIL, PASS, Check

# Compared case-insensitively with the whole password.
DEFAULT_PASSWORDS = frozenset(
    {
        "console",  # docker-compose.yml's old POSTGRES_PASSWORD default
        "password",  # .env.example's DATABASE_URL placeholder (`PASSWORD`)
        "changeme",
        "change-me",
        "change_me",
        "changeit",
        "passw0rd",
        "postgres",
        "redis",
        "secret",
        "example",
        "admin",
        "root",
        "test",
        "123456",
    }
)
# A SECRET_KEY holding one of these is an example pasted as it was.
SECRET_KEY_PLACEHOLDERS = ("changeme", "change-me", "change_me", "replace-me", "replaceme", "your-secret", "example")


def _url_password(url: object) -> str | None:
    if not isinstance(url, str) or "://" not in url:
        return None
    try:
        password = urlsplit(url).password
    except ValueError:
        return None
    return unquote(password) if password else None


def _passwords() -> Iterator[tuple[str, str | None]]:
    """(the setting an operator fills, the password it carries)."""
    yield "DATABASE_URL", connections["default"].settings_dict.get("PASSWORD") or None
    yield "CELERY_BROKER_URL", _url_password(settings.CELERY_BROKER_URL)
    location = settings.CACHES["default"].get("LOCATION")
    for url in location if isinstance(location, list | tuple) else [location]:
        yield "CACHE_URL", _url_password(url)
    yield "EMAIL_URL", settings.EMAIL_HOST_PASSWORD or None


def default_passwords_check() -> Check:
    name = "default passwords"
    found = sorted(
        {setting for setting, password in _passwords() if password and password.strip().lower() in DEFAULT_PASSWORDS}
    )
    key = str(settings.SECRET_KEY).lower()
    if any(placeholder in key for placeholder in SECRET_KEY_PLACEHOLDERS):
        found.append("SECRET_KEY")
    if found:
        return Check(
            name,
            FAIL,
            f"{', '.join(found)}: an example or well-known value (anyone would try it first)",
            fix='Set a long random one, e.g. `python -c "import secrets; print(secrets.token_urlsafe(32))"`; '
            "with docker-compose: POSTGRES_PASSWORD in .env before the first start (the postgres volume keeps "
            "the first one: change it later with ALTER USER console PASSWORD '...').",
        )
    return Check(name, PASS, "none of the example or well-known ones")
