"""Backups in one archive (`manage.py backup` / `manage.py restore`).

One tar file holds a manifest and three parts:

- `database.dump`: PostgreSQL's `pg_dump --format=custom` (a consistent
  snapshot while the console runs), or `database.sqlite3`, SQLite's own
  online backup (a consistent copy);
- `imports.tar`: OBJECTS_IMPORT_ROOT (CSV files of imports under way);
- `zips.tar`: STUDIO_ZIP_ROOT (Studio ZIPs a worker built);
- `manifest.json`: the console's version, the applied migrations, the
  fingerprints of KEY_ENCRYPTION_KEYS (never the keys) and which of them
  the stored API keys are encrypted under, when it was made, and each
  part's size and sha256.

With a passphrase the whole tar is encrypted (dashboard/system/backup_crypto.py).
A restore refuses, in words and before changing anything, an archive whose
parts do not match its manifest, one made by a newer console (migrations
this code does not know), one of another database engine, and one whose
stored API keys are under encryption keys this console does not hold.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.db import connection, connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

from dashboard.keys.models import ApiKey
from dashboard.live import heartbeat
from dashboard.system.backup_crypto import BadPassphrase, decrypt_stream, encrypt_stream, is_encrypted
from dashboard.version import console_version

FORMAT = "workspace-console-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
FILE_PARTS = {"imports.tar": "OBJECTS_IMPORT_ROOT", "zips.tar": "STUDIO_ZIP_ROOT"}
DATABASE_PARTS = {"postgresql": "database.dump", "sqlite": "database.sqlite3"}
TOOL_TIMEOUT = 3600


class BackupRefused(Exception):
    """The archive cannot be restored here; the message says why in words."""


def key_fingerprint(key: str) -> str:
    """A key's name in a manifest: 16 hex digits of its sha256. A Fernet key
    is 256 random bits, so this tells nothing about it; two lists are compared by it."""
    return hashlib.sha256(key.strip().encode()).hexdigest()[:16]


def _console_keys() -> list[str]:
    return [key.strip() for key in settings.KEY_ENCRYPTION_KEYS if key and key.strip()]


def keys_in_use() -> dict[str, int]:
    """How many stored API keys each encryption key opens (by fingerprint);
    rows no key opens count under "unreadable"."""
    fernets = [(key_fingerprint(key), Fernet(key)) for key in _console_keys()]
    used: Counter[str] = Counter()
    for token in ApiKey.objects.values_list("encrypted_secret", flat=True).iterator():
        for fingerprint, fernet in fernets:
            try:
                fernet.decrypt(token.encode())
            except InvalidToken:
                continue
            used[fingerprint] += 1
            break
        else:
            used["unreadable"] += 1
    return dict(used)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as part:
        for block in iter(lambda: part.read(1024 * 1024), b""):
            digest.update(block)
    return digest.hexdigest()


def _tool_environment() -> tuple[list[str], dict[str, str]]:
    db = connection.settings_dict
    where = ["--host", db["HOST"] or "127.0.0.1", "--port", str(db["PORT"] or 5432)]
    if db["USER"]:
        where += ["--username", db["USER"]]
    return where, {**os.environ, "PGPASSWORD": db["PASSWORD"] or ""}


def _run_tool(name: str, *args: str) -> None:
    if shutil.which(name) is None:
        raise BackupRefused(f"{name} is not installed: it comes with PostgreSQL's client tools (postgresql-client).")
    where, environment = _tool_environment()
    result = subprocess.run(
        [name, *where, *args], env=environment, capture_output=True, text=True, timeout=TOOL_TIMEOUT
    )
    if result.returncode != 0:
        raise BackupRefused(f"{name} failed: {result.stderr.strip()[-2000:]}")


def _dump_database(target: Path) -> None:
    if connection.vendor == "postgresql":
        _run_tool("pg_dump", "--format=custom", "--no-owner", "--file", str(target), connection.settings_dict["NAME"])
    elif connection.vendor == "sqlite":
        source = sqlite3.connect(connection.settings_dict["NAME"])
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
            source.close()
    else:
        raise BackupRefused(f"backups know PostgreSQL and SQLite, not {connection.vendor}.")


def _tar_folder(folder: str, target: Path) -> None:
    with tarfile.open(target, "w") as archive:
        if os.path.isdir(folder):
            for entry in sorted(os.listdir(folder)):
                archive.add(os.path.join(folder, entry), arcname=entry)


def _applied_migrations() -> list[str]:
    return sorted(f"{app}.{name}" for app, name in MigrationRecorder(connection).applied_migrations())


@dataclass(frozen=True)
class BackupMade:
    path: Path
    manifest: dict[str, Any]
    encrypted: bool


def backup_make(*, output: Path, passphrase: str = "") -> BackupMade:
    """Write the archive to `output` (through a temporary file beside it: a
    failed backup leaves no half archive)."""
    output = output.resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=output.parent, prefix=".backup-") as work:
        folder = Path(work)
        database_part = DATABASE_PARTS.get(connection.vendor, "database.dump")
        _dump_database(folder / database_part)
        for part, setting in FILE_PARTS.items():
            _tar_folder(getattr(settings, setting), folder / part)
        parts = [database_part, *FILE_PARTS]
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "console_version": console_version(),
            "created": timezone.now().isoformat(timespec="seconds"),
            "database": connection.vendor,
            "migrations": _applied_migrations(),
            "key_fingerprints": [key_fingerprint(key) for key in _console_keys()],
            "keys_in_use": keys_in_use(),
            "parts": {
                part: {"size": (folder / part).stat().st_size, "sha256": _sha256(folder / part)} for part in parts
            },
        }
        (folder / MANIFEST).write_text(json.dumps(manifest, indent=2))
        plain = folder / "archive.tar"
        with tarfile.open(plain, "w") as archive:
            for name in (MANIFEST, *parts):
                archive.add(folder / name, arcname=name)
        staged = folder / "archive.out"
        if passphrase:
            with plain.open("rb") as source, staged.open("wb") as target:
                encrypt_stream(source, target, passphrase=passphrase)
        else:
            plain.rename(staged)
        os.replace(staged, output)
    return BackupMade(path=output, manifest=manifest, encrypted=bool(passphrase))


@contextmanager
def backup_opened(path: Path, *, passphrase: str = "") -> Iterator[tuple[Path, dict[str, Any]]]:
    """The archive's parts unpacked into a temporary folder and checked
    against its manifest: (folder, manifest). Raises BackupRefused."""
    if not path.is_file():
        raise BackupRefused(f"there is no archive at {path}.")
    with tempfile.TemporaryDirectory(prefix=".restore-") as work:
        folder = Path(work)
        plain = path
        if is_encrypted(path):
            if not passphrase:
                raise BackupRefused(
                    "this archive is encrypted: give its passphrase (--passphrase-file or --passphrase-env)."
                )
            plain = folder / "archive.tar"
            try:
                with path.open("rb") as source, plain.open("wb") as target:
                    decrypt_stream(source, target, passphrase=passphrase)
            except BadPassphrase as exc:
                raise BackupRefused(f"the archive could not be decrypted: {exc}. Nothing was restored.") from exc
        try:
            with tarfile.open(plain, "r") as archive:
                names = set(archive.getnames())
                if MANIFEST not in names:
                    raise BackupRefused("this is not a console backup: it has no manifest.json. Nothing was restored.")
                archive.extractall(folder / "parts", filter="data")
        except tarfile.TarError as exc:
            raise BackupRefused(f"the archive is not a readable tar file ({exc}). Nothing was restored.") from exc
        parts = folder / "parts"
        manifest = json.loads((parts / MANIFEST).read_text())
        backup_verify(parts, manifest)
        yield parts, manifest


def backup_verify(parts: Path, manifest: dict[str, Any]) -> None:
    """Every refusal a restore makes before it changes anything."""
    if manifest.get("format") != FORMAT or manifest.get("format_version") != FORMAT_VERSION:
        raise BackupRefused(
            "this archive's manifest is not of a backup format this console reads. Nothing was restored."
        )
    for name, expected in dict(manifest.get("parts") or {}).items():
        part = parts / name
        if not part.is_file():
            raise BackupRefused(f"the archive lacks {name}, which its manifest lists. Nothing was restored.")
        size, digest = part.stat().st_size, _sha256(part)
        if (size, digest) != (expected.get("size"), expected.get("sha256")):
            raise BackupRefused(
                f"{name} does not match the archive's manifest (size {size}, sha256 {digest[:12]}..., the manifest "
                f"says size {expected.get('size')}, sha256 {str(expected.get('sha256'))[:12]}...): the archive was "
                "changed or damaged. Nothing was restored."
            )
    if manifest.get("database") != connection.vendor:
        raise BackupRefused(
            f"this archive holds a {manifest.get('database')} database and this console uses {connection.vendor}. "
            "Nothing was restored."
        )
    known = {f"{app}.{name}" for app, name in MigrationLoader(None, ignore_no_migrations=True).disk_migrations}
    unknown = sorted(set(manifest.get("migrations") or []) - known)
    if unknown:
        raise BackupRefused(
            f"this archive was made by a newer console ({manifest.get('console_version')}): its database has "
            f"{len(unknown)} migration(s) this code does not know ({', '.join(unknown[:3])}). Restore it with that "
            "version or newer. Nothing was restored."
        )
    held = {key_fingerprint(key) for key in _console_keys()}
    needed = {fingerprint for fingerprint in dict(manifest.get("keys_in_use") or {}) if fingerprint != "unreadable"}
    missing = sorted(needed - held)
    if missing:
        raise BackupRefused(
            "this archive's stored API keys are encrypted under key(s) this console does not hold "
            f"(fingerprint {', '.join(missing)}): put the KEY_ENCRYPTION_KEYS the backup was made with "
            "in this console's settings (any position) and restore again. Nothing was restored."
        )


def _restore_postgresql(dump: Path) -> None:
    connections.close_all()
    with connection.cursor() as cursor:
        # Everything the dump does not hold goes too (tables of a newer console, rows made since).
        cursor.execute("DROP SCHEMA IF EXISTS public CASCADE")
        cursor.execute("CREATE SCHEMA public")
    connections.close_all()
    _run_tool("pg_restore", "--no-owner", "--exit-on-error", "--dbname", connection.settings_dict["NAME"], str(dump))


def _restore_sqlite(copy: Path) -> None:
    connections.close_all()
    source = sqlite3.connect(copy)
    target = sqlite3.connect(connection.settings_dict["NAME"])
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()


def _restore_folder(archive: Path, folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    for entry in os.listdir(folder):
        place = os.path.join(folder, entry)
        if os.path.isdir(place) and not os.path.islink(place):
            shutil.rmtree(place)
        else:
            os.remove(place)
    with tarfile.open(archive, "r") as files:
        files.extractall(folder, filter="data")


def backup_restore(parts: Path, manifest: dict[str, Any]) -> None:
    """Put a verified archive's parts in place: the configured database, then
    the imports and ZIP folders."""
    if connection.vendor == "postgresql":
        _restore_postgresql(parts / DATABASE_PARTS["postgresql"])
    else:
        _restore_sqlite(parts / DATABASE_PARTS["sqlite"])
    for part, setting in FILE_PARTS.items():
        _restore_folder(parts / part, getattr(settings, setting))


def passphrase_from(*, file: str = "", env: str = "") -> str:
    """The archive's passphrase: the first line of a file, or an environment
    variable (never an argument: it would show in the process list)."""
    if file:
        try:
            lines = Path(file).read_text().splitlines()
        except OSError as exc:
            raise BackupRefused(f"the passphrase file could not be read ({exc.strerror}).") from exc
        if not lines or not lines[0].strip():
            raise BackupRefused("the passphrase file is empty.")
        return lines[0].strip()
    if env:
        value = os.environ.get(env, "")
        if not value:
            raise BackupRefused(f"the environment variable {env} is not set or empty.")
        return value
    return ""


# A heartbeat younger than this says the process still runs (workers beat every
# WORKER_HEARTBEAT_SECONDS, beat records every BEAT_RECORD_SECONDS).
ALIVE_SECONDS = 2.5 * heartbeat.WORKER_HEARTBEAT_SECONDS


def background_running() -> list[str]:
    """Beat and the workers whose heartbeats say they run now: a restore
    under them would have tasks writing into the database being replaced."""
    now = timezone.now()
    seen = {"beat": heartbeat.beat_last_seen()}
    queues = [heartbeat.default_queue(), settings.CELERY_STREAM_QUEUE, settings.AGENTS_STREAM_QUEUE]
    for queue in dict.fromkeys(queue for queue in queues if queue):
        seen[f"a worker of the {queue} queue"] = heartbeat.worker_last_seen(queue)
    return [
        name for name, moment in seen.items() if moment is not None and (now - moment).total_seconds() < ALIVE_SECONDS
    ]
