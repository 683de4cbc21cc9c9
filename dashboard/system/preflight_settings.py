"""Preflight checks of the settings (dashboard/system/preflight.py): the
key-encryption list in every mode; in production also DEBUG, SECRET_KEY,
ALLOWED_HOSTS and the service's address; Django's system checks (with the
deployment checks in production), no example or well-known password
(dashboard/system/preflight_passwords.py). Keys are named by their place in a
list, never by value."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from cryptography.fernet import Fernet
from django.conf import settings
from django.core import checks as system_checks

from dashboard.system.preflight_passwords import default_passwords_check
from dashboard.system.report import FAIL, PASS, WARN, Check, origin

# Django's own rule for a strong SECRET_KEY (security.W009): long and varied.
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_UNIQUE_CHARACTERS = 5


def settings_checks(*, production: bool) -> list[Check]:
    found = [_encryption_keys(), _image_hosts()]
    if not production:
        found.append(
            Check(
                "production settings",
                PASS,
                "not checked: development mode (CONSOLE_ENV is not production)",
            )
        )
        return found
    found += [_debug(), _secret_key(), default_passwords_check(), _allowed_hosts(), _service_address(), _email()]
    return found


def _encryption_keys() -> Check:
    """KEY_ENCRYPTION_KEYS, checked in every mode: without a valid list no
    stored key can be read or added. Keys are named by their place in the
    list, never by value."""
    keys = configured_keys()
    name = "KEY_ENCRYPTION_KEYS"
    if not keys:
        return Check(
            name,
            FAIL,
            "empty: no stored API key can be read or added",
            fix="Set KEY_ENCRYPTION_KEYS to the Fernet key(s) the stored keys were encrypted with "
            "(from your secrets store, kept apart from database backups).",
        )
    bad = []
    for position, key in enumerate(keys, start=1):
        try:
            Fernet(key)
        except ValueError:
            bad.append(position)
    if bad:
        return Check(
            name,
            FAIL,
            f"entry {_positions(bad)} of {len(keys)} is not a Fernet key (32 url-safe base64-encoded bytes)",
            fix="Replace it with the key it should be; a new one is made with "
            '`python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"`.',
        )
    if len(set(keys)) < len(keys):
        return Check(
            name,
            WARN,
            f"{len(keys)} keys, some listed twice",
            fix="List each key once, newest first.",
        )
    return Check(name, PASS, f"{len(keys)} valid Fernet key(s); new keys are stored under the first")


# CSP sources that let any host in: what the img-src list exists to prevent.
BLANKET_SOURCES = {"*", "https:", "http:", "https://*", "http://*"}


def _image_hosts() -> Check:
    """CSP_IMG_HOSTS adds the hosts asset files live on (a CDN); an entry that
    lets every host in brings back tracking pixels in remote content."""
    hosts = list(settings.CSP_IMG_HOSTS)
    blanket = [host for host in hosts if host.strip().lower() in BLANKET_SOURCES]
    if blanket:
        return Check(
            "CSP_IMG_HOSTS",
            WARN,
            f"{', '.join(blanket)} lets pages load images from any host (tracking pixels in remote content)",
            fix="List the asset hosts themselves, e.g. https://cdn.example.com.",
        )
    if not hosts:
        return Check("CSP_IMG_HOSTS", PASS, "none: images only from the console, the service and its web app")
    return Check("CSP_IMG_HOSTS", PASS, ", ".join(hosts))


def _debug() -> Check:
    if settings.DEBUG:
        return Check(
            "DEBUG",
            FAIL,
            "on in production: error pages would show settings and code",
            fix="Remove DJANGO_DEBUG from the environment (or set it to false).",
        )
    return Check("DEBUG", PASS, "off")


def _secret_key() -> Check:
    key = str(settings.SECRET_KEY)
    if (
        len(key) < SECRET_KEY_MIN_LENGTH
        or len(set(key)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS
        or key.startswith("django-insecure-")
    ):
        return Check(
            "SECRET_KEY",
            FAIL,
            f"too weak: fewer than {SECRET_KEY_MIN_LENGTH} characters or too few different ones",
            fix='Set SECRET_KEY to a long random value, e.g. `python -c "import secrets; print(secrets.token_urlsafe(50))"` '
            "(changing it logs everyone out).",
        )
    return Check("SECRET_KEY", PASS, f"{len(key)} characters")


def _allowed_hosts() -> Check:
    hosts = list(settings.ALLOWED_HOSTS)
    if not hosts:
        return Check(
            "ALLOWED_HOSTS",
            FAIL,
            "empty: every request would be refused (400)",
            fix="Set ALLOWED_HOSTS to the console's host name(s), comma-separated.",
        )
    if "*" in hosts:
        return Check(
            "ALLOWED_HOSTS",
            WARN,
            "'*' accepts any Host header (password-reset links and redirects could name another site)",
            fix="List the console's own host name(s) instead of '*'.",
        )
    return Check("ALLOWED_HOSTS", PASS, ", ".join(hosts))


def _service_address() -> Check:
    base = settings.SERVICE_BASE_URL
    if base == settings.SANDBOX_BASE_URL:
        return Check(
            "SERVICE_BASE_URL",
            FAIL,
            "still the local sandbox's default address",
            fix="Set SERVICE_BASE_URL (and SERVICE_APP_URL) to the service's https addresses.",
        )
    if urlsplit(base).scheme != "https":
        return Check(
            "SERVICE_BASE_URL",
            WARN,
            f"{origin(base)} is not https: API keys would cross the network in clear",
            fix="Use the service's https address (plain http only for the sandbox profile on one machine).",
        )
    return Check("SERVICE_BASE_URL", PASS, origin(base))


def _email() -> Check:
    """Invitations and password resets are email: without EMAIL_URL Django
    sends to an SMTP server on localhost:25, which a container rarely has, and
    each invitation then fails in front of the administrator. A warning, not a
    failure: a console whose people all sign in with single sign-on needs none."""
    if not settings.EMAIL_CONFIGURED:
        return Check(
            "email",
            WARN,
            f"EMAIL_URL is not set: mail goes to {settings.EMAIL_HOST}:{settings.EMAIL_PORT}",
            fix="Set EMAIL_URL (e.g. smtp+tls://user:password@smtp.example.com:587) for invitations and password resets.",
        )
    return Check("email", PASS, f"{settings.EMAIL_BACKEND.rsplit('.', 1)[-1]} via {settings.EMAIL_HOST}")


def system_checks_run(*, production: bool) -> Check:
    """Django's system checks (with the deployment checks in production), so
    one command says everything `check --deploy` would."""
    silenced = set(settings.SILENCED_SYSTEM_CHECKS)
    try:
        messages = [
            message
            for message in system_checks.run_checks(include_deployment_checks=production)
            if message.id not in silenced
        ]
    except Exception as exc:  # a check that crashes is itself a finding
        return Check("system checks", FAIL, f"could not run ({type(exc).__name__})", fix="Run `manage.py check`.")
    errors = [message for message in messages if message.is_serious()]
    warnings = [message for message in messages if not message.is_serious()]
    command = "manage.py check --deploy" if production else "manage.py check"
    if errors:
        return Check(
            "system checks",
            FAIL,
            f"{len(errors)} error(s): {_ids(errors)}",
            fix=f"Run `{command}` for the details.",
            details=tuple(str(message) for message in errors),
        )
    if warnings:
        return Check(
            "system checks",
            WARN,
            f"{len(warnings)} warning(s): {_ids(warnings)}",
            fix=f"Run `{command}` for the details.",
            details=tuple(str(message) for message in warnings),
        )
    return Check("system checks", PASS, "no issues" + (" (deployment checks included)" if production else ""))


def configured_keys() -> list[str]:
    return [key.strip() for key in settings.KEY_ENCRYPTION_KEYS if key and key.strip()]


def _positions(positions: list[int]) -> str:
    return ", ".join(f"#{position}" for position in positions)


def _ids(messages: Iterable[system_checks.CheckMessage]) -> str:
    return ", ".join(sorted({str(message.id) for message in messages}))
