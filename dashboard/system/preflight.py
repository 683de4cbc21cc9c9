"""`manage.py preflight`: can this console serve, with this database, these
secrets and these neighbours? Run by docker-compose before serving (after
`migrate`), after a restore, and before an upgrade (`--before-migrate`).

Each check answers ok, warn or fail with one line in words and, unless ok,
what to do about it. Only a failure makes the command exit 1 (and so keeps
docker-compose from starting the web server and workers); a warning is
something an operator should know but the console can still serve with.

Why the service is only ever a warning: the console stays usable while the
remote service is down (every page names the cause, work resumes when it
is back), and a preflight that failed on an outage would keep the whole
console down for its length. A wrong SERVICE_BASE_URL in production (still
the local sandbox) is a settings failure instead.

Nothing here prints a secret: stored API keys are decrypted in memory only
and named by row id, owner and workspace; URLs are shown without their
user:password part; a failing connection is named by its exception's class
(as dashboard/health.py does), never by its message.
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

from dashboard.health import OK, health_broker_check, health_cache_check, health_database_check
from dashboard.system.preflight_settings import configured_keys, settings_checks, system_checks_run
from dashboard.system.report import FAIL, PASS, WARN, Check, PreflightReport, listing, origin

logger = logging.getLogger(__name__)

__all__ = ["FAIL", "PASS", "WARN", "Check", "PreflightReport", "preflight_report"]


def preflight_report(
    *, before_migrate: bool = False, service_timeout: float = 3.0, broker_timeout: float = 2.0
) -> PreflightReport:
    """Every check, in the order an operator fixes things: settings first
    (a bad key list makes every stored key fail), then the database, its
    schema and stored keys, then the neighbours.

    `before_migrate`: the check an upgrade runs with the new code before
    `migrate`; pending migrations are then expected and only a warning.
    """
    production = bool(settings.PRODUCTION)
    report = PreflightReport(production=production)
    report.checks.extend(settings_checks(production=production))
    report.checks.append(_guarded("system checks", lambda: system_checks_run(production=production)))
    database = _guarded("database", _database)
    report.checks.append(database)
    if database.status == PASS:
        report.checks.append(_guarded("migrations", lambda: _migrations(before_migrate=before_migrate)))
        report.checks.append(_guarded("stored keys", _stored_keys))
    else:
        unchecked = "not checked: the database could not be reached"
        report.checks.append(Check("migrations", WARN, unchecked))
        report.checks.append(Check("stored keys", WARN, unchecked))
    report.checks.append(_guarded("broker", lambda: _broker(production=production, timeout=broker_timeout)))
    report.checks.append(_guarded("cache", lambda: _cache(production=production)))
    report.checks.append(_guarded("imports folder", _imports_folder))
    report.checks.append(_guarded("service", lambda: _service(timeout=service_timeout)))
    return report


def _guarded(name: str, check: Callable[[], Check]) -> Check:
    """A check that crashes is a failed line naming the exception's class,
    never a traceback: the report is what an operator reads in the logs of a
    container that did not start."""
    try:
        return check()
    except Exception as exc:
        # The traceback goes to the log (API keys redacted there), not the report.
        logger.exception("preflight: the %s check crashed", name)
        return Check(name, FAIL, f"could not be checked ({type(exc).__name__})", fix="See the error logged above it.")


# --- the database ------------------------------------------------------------


def _database() -> Check:
    state = health_database_check()
    if state != OK:
        return Check(
            "database",
            FAIL,
            f"unreachable ({_cause(state)})",
            fix="Check DATABASE_URL and that PostgreSQL is running and accepts the console's user.",
        )
    vendor = connections[DEFAULT_DB_ALIAS].vendor
    return Check("database", PASS, f"reachable ({vendor})")


def _migrations(*, before_migrate: bool) -> Check:
    connection = connections[DEFAULT_DB_ALIAS]
    executor = MigrationExecutor(connection)
    loader = executor.loader
    # Rows in django_migrations numbered past every migration an installed
    # app's code has: the database was migrated by a newer console (a dump
    # restored into older code, or code rolled back without the database).
    # Only numbers past the newest count: rows of migrations squashed and
    # deleted since are older than it, and Django ignores them.
    newest: dict[str, int] = {}
    for app, name in loader.disk_migrations:
        newest[app] = max(newest.get(app, -1), _migration_number(name))
    unknown = sorted(
        f"{app}.{name}"
        for app, name in loader.applied_migrations
        if app in loader.migrated_apps and _migration_number(name) > newest.get(app, -1)
    )
    if unknown:
        return Check(
            "migrations",
            FAIL,
            f"the database has {len(unknown)} migration(s) this code does not know: {listing(unknown)}",
            fix="The database was migrated by a newer console: run that version (see CHANGELOG.md), "
            "or restore the dump taken before the upgrade.",
        )
    plan = executor.migration_plan(loader.graph.leaf_nodes())
    if plan:
        pending = [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]
        summary = f"{len(pending)} pending: {listing(pending, limit=5)}"
        if before_migrate:
            return Check(
                "migrations", WARN, summary, fix="Expected before an upgrade: `manage.py migrate` applies them next."
            )
        return Check("migrations", FAIL, summary, fix="Run `manage.py migrate` (docker-compose: the migrate service).")
    return Check("migrations", PASS, f"all {len(loader.applied_migrations)} applied")


def _stored_keys() -> Check:
    """Every stored API key decrypts under KEY_ENCRYPTION_KEYS: counted per
    workspace; rows that do not are named by id, owner and workspace (never
    the key): a failure when none does, a warning when some do not.
    Rows still under an older encryption key are a warning: rotation is not
    finished until `rotate_key_encryption` has run and the old key is gone."""
    from dashboard.keys.crypto import decrypt_secret
    from dashboard.keys.errors import KeyDecryptionError
    from dashboard.keys.models import ApiKey

    connection = connections[DEFAULT_DB_ALIAS]
    if ApiKey._meta.db_table not in connection.introspection.table_names():
        return Check("stored keys", WARN, "not checked: the database has no keys table yet (a fresh database)")
    try:
        newest = Fernet(configured_keys()[0])
    except (IndexError, ValueError):
        newest = None  # the KEY_ENCRYPTION_KEYS line says why; every row fails below
    total: Counter[str] = Counter()
    readable: Counter[str] = Counter()
    names: dict[str, str] = {}
    unreadable: list[str] = []
    older = 0
    # Only the columns read here: before an upgrade's migrate (--before-migrate)
    # the new code's model may have columns the database does not have yet.
    rows = (
        ApiKey.objects.select_related("user")
        .only("pk", "encrypted_secret", "workspace_id", "workspace_name", "user__username")
        .order_by("pk")
    )
    for key in rows.iterator(chunk_size=500):
        total[key.workspace_id] += 1
        names.setdefault(key.workspace_id, key.workspace_name or key.workspace_id)
        try:
            decrypt_secret(key.encrypted_secret)
        except (KeyDecryptionError, ImproperlyConfigured):  # an empty or malformed key list reads no row
            unreadable.append(f"#{key.pk} ({key.user.username}, {names[key.workspace_id]})")
            continue
        readable[key.workspace_id] += 1
        if newest is not None and not _decrypts(newest, key.encrypted_secret):
            older += 1
    count = sum(total.values())
    details = tuple(
        f"{names[workspace]}: {readable[workspace]} of {total[workspace]} readable"
        for workspace in sorted(total, key=lambda workspace: names[workspace].lower())
    )
    if unreadable:
        # None readable is a key list that is not the database's (a restore
        # with the wrong .env, a new key typed in place of the old): nothing
        # can work, so it fails. Some unreadable (an old key dropped before
        # rotating) is a warning: those owners see "can't be read" and add
        # their key again, and a console refusing to start would keep everyone
        # else out, and them from re-adding it, for a key that may be gone for good.
        return Check(
            "stored keys",
            FAIL if len(unreadable) == count else WARN,
            f"{len(unreadable)} of {count} stored API key(s) do not decrypt: {listing(unreadable)}",
            fix="Put back the KEY_ENCRYPTION_KEYS they were stored under (keep the new key first, the old ones after it); "
            "a key that is truly lost must be added again by its owner.",
            details=details,
        )
    if older:
        return Check(
            "stored keys",
            WARN,
            f"all {count} decrypt; {older} still under an older encryption key",
            fix="Finish the rotation: `manage.py rotate_key_encryption`, then remove the old key from KEY_ENCRYPTION_KEYS.",
            details=details,
        )
    if not count:
        return Check("stored keys", PASS, "none stored yet")
    return Check("stored keys", PASS, f"all {count} decrypt, in {len(total)} workspace(s)", details=details)


# --- the neighbours ----------------------------------------------------------


def _broker(*, production: bool, timeout: float) -> Check:
    url = str(settings.CELERY_BROKER_URL)
    if production and url.startswith("sqlite:"):
        # The image carries no SQLAlchemy (the embedded broker is `make run`'s),
        # and one SQLite file is not shared between containers anyway.
        return Check(
            "broker",
            FAIL,
            "CELERY_BROKER_URL is not set: the development SQLite broker is not in the production image",
            fix="Set CELERY_BROKER_URL to the Redis the workers use (docker-compose: redis://redis:6379/0).",
        )
    state = health_broker_check(timeout=timeout)
    if state != OK:
        return Check(
            "broker",
            FAIL,
            f"unreachable ({_cause(state)})",
            fix="Check CELERY_BROKER_URL and that Redis is running: without it no poll, stream or job runs.",
        )
    return Check("broker", PASS, "reachable")


def _cache(*, production: bool) -> Check:
    """A value written is read back (dashboard/health.py's check). The cache is
    shared state (key-check throttles, heartbeats, cached definitions dropped on
    edit): a per-process cache in production gives each gunicorn worker its own."""
    state = health_cache_check()
    if state == "error: CacheDidNotKeepValue":
        return Check(
            "cache",
            FAIL,
            "keeps nothing (a value written was not read back)",
            fix="Point CACHE_URL at a real cache (docker-compose: redis://redis:6379/1).",
        )
    if state != OK:
        return Check(
            "cache",
            FAIL,
            f"unreachable ({_cause(state)})",
            fix="Check CACHE_URL and that its server (Redis) is running.",
        )
    backend = type(caches["default"]).__name__
    if production and backend in {"LocMemCache", "DummyCache"}:
        return Check(
            "cache",
            WARN,
            f"{backend} is per process: web workers and Celery workers do not share it",
            fix="Point CACHE_URL at Redis (docker-compose: redis://redis:6379/1).",
        )
    return Check("cache", PASS, f"reachable ({backend})")


def _imports_folder() -> Check:
    """Uploaded CSV files wait in OBJECTS_IMPORT_ROOT for the worker: it must
    be writable by this user (a volume mounted with another owner is the usual
    cause). A folder that does not exist yet is made on the first upload, so
    its nearest existing parent must be writable instead."""
    root = Path(settings.OBJECTS_IMPORT_ROOT)
    folder = root
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".preflight-"):
            pass
    except OSError as exc:
        return Check(
            "imports folder",
            FAIL,
            f"{folder} is not writable ({type(exc).__name__})",
            fix="Give the console's user (uid 10001 in the image) write access to OBJECTS_IMPORT_ROOT "
            "(docker-compose: the imports volume).",
        )
    if folder != root:
        return Check("imports folder", PASS, f"{root} will be made on the first upload ({folder} is writable)")
    return Check("imports folder", PASS, f"{root} is writable")


def _service(*, timeout: float) -> Check:
    """One unauthenticated GET of /v1/me: any answer below 500 (a 401 is the
    expected one without a key) proves the address and the network. Never a
    failure: see the module's docstring."""
    base = settings.SERVICE_BASE_URL
    started = time.monotonic()
    try:
        response = httpx.get(f"{base}/v1/me", timeout=timeout, follow_redirects=False)
    except Exception as exc:  # httpx.HTTPError, and httpx.InvalidURL, which is not one
        return Check(
            "service",
            WARN,
            f"{origin(base)} unreachable ({type(exc).__name__})",
            fix="Check SERVICE_BASE_URL, DNS and outgoing firewall rules; pages say so while it lasts.",
        )
    elapsed = (time.monotonic() - started) * 1000
    if response.status_code >= 500:
        return Check(
            "service",
            WARN,
            f"{origin(base)} answered {response.status_code} in {elapsed:.0f} ms",
            fix="The service has a problem of its own; the console works again when it is back.",
        )
    return Check("service", PASS, f"{origin(base)} answered in {elapsed:.0f} ms")


# --- helpers -----------------------------------------------------------------


def _decrypts(fernet: Fernet, token: str) -> bool:
    try:
        fernet.decrypt(token.encode())
    except InvalidToken:
        return False
    return True


def _migration_number(name: str) -> int:
    """0012 of "0012_people_roles"; -1 for a name Django's makemigrations never makes."""
    prefix = name.split("_", 1)[0]
    return int(prefix) if prefix.isdigit() else -1


def _cause(state: str) -> str:
    """The exception class of a health check's "error: <Class>"."""
    return state.removeprefix("error: ")
