"""The backup archive's pieces without a database: the passphrase
encryption (dashboard/system/backup_crypto.py) opens what it sealed, over
several chunks, and nothing else: a wrong passphrase, a chunk cut off, two
chunks swapped or a byte changed are refused; and a key's fingerprint names
it without holding it. A SQLite database (`make run`'s) is copied and put back
whole."""

from __future__ import annotations

import io
import os
import sqlite3
from contextlib import closing
from types import SimpleNamespace

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.core.management.base import CommandError

from dashboard.live import heartbeat
from dashboard.system import backup
from dashboard.system.backup import key_fingerprint
from dashboard.system.backup_crypto import CHUNK, MAGIC, BadPassphrase, decrypt_stream, encrypt_stream

PLAIN = os.urandom(2 * CHUNK + 12345)  # three chunks, the last one short


def sealed(plain: bytes = PLAIN, passphrase: str = "a passphrase") -> bytes:
    target = io.BytesIO()
    encrypt_stream(io.BytesIO(plain), target, passphrase=passphrase)
    return target.getvalue()


def opened(archive: bytes, passphrase: str = "a passphrase") -> bytes:
    target = io.BytesIO()
    decrypt_stream(io.BytesIO(archive), target, passphrase=passphrase)
    return target.getvalue()


def test_what_is_sealed_opens_with_its_passphrase_only():
    archive = sealed()
    assert archive.startswith(MAGIC) and PLAIN[:64] not in archive
    assert opened(archive) == PLAIN
    assert opened(sealed(b"")) == b""
    with pytest.raises(BadPassphrase, match="passphrase does not open"):
        opened(archive, "another passphrase")


def test_a_cut_reordered_or_changed_archive_is_refused():
    archive = sealed()
    header = len(MAGIC) + 16 + 7
    step = 4 + CHUNK + 16
    first, second = archive[header : header + step], archive[header + step : header + 2 * step]
    with pytest.raises(BadPassphrase, match="cut short"):
        opened(archive[: header + 2 * step])  # the last chunk dropped
    with pytest.raises(BadPassphrase):
        opened(archive[:header] + second + first + archive[header + 2 * step :])
    changed = bytearray(archive)
    changed[header + 100] ^= 1
    with pytest.raises(BadPassphrase):
        opened(bytes(changed))


def test_a_fingerprint_names_a_key_without_holding_it():
    key = Fernet.generate_key().decode()
    assert key_fingerprint(key) == key_fingerprint(f" {key} ") != key_fingerprint(Fernet.generate_key().decode())
    assert len(key_fingerprint(key)) == 16 and key_fingerprint(key) not in key


def test_a_sqlite_database_is_copied_consistently_and_put_back(tmp_path, monkeypatch):
    """`make run`'s database: SQLite's online backup API both ways (the
    commands around it are the PostgreSQL drill's, tests/ops/test_restore_drill.py)."""
    live = tmp_path / "console.sqlite3"
    monkeypatch.setattr(backup, "connection", SimpleNamespace(vendor="sqlite", settings_dict={"NAME": str(live)}))
    with closing(sqlite3.connect(live)) as database, database:
        database.execute("CREATE TABLE entry (summary TEXT)")
        database.execute("INSERT INTO entry VALUES ('Before the backup')")
    copy = tmp_path / "database.sqlite3"
    backup._dump_database(copy)
    with closing(sqlite3.connect(live)) as database, database:
        database.execute("UPDATE entry SET summary = 'After the backup'")
        database.execute("CREATE TABLE newer (x)")

    backup._restore_sqlite(copy)

    with closing(sqlite3.connect(live)) as database:
        assert database.execute("SELECT summary FROM entry").fetchall() == [("Before the backup",)]
        tables = database.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        assert tables == [("entry",)]


def test_a_restore_under_running_workers_is_refused_in_words(tmp_path):
    heartbeat.worker_heartbeat_record(queues=[heartbeat.default_queue()])
    with pytest.raises(CommandError) as refused:
        call_command("restore", str(tmp_path / "any.backup"), stdout=io.StringIO())
    assert str(refused.value).startswith(
        f"restore refused: a worker of the {heartbeat.default_queue()} queue still run"
    )
    assert "Stop worker, streams and beat" in str(refused.value)
    with pytest.raises(CommandError, match="there is no archive at"):  # told they stopped: on to the archive
        call_command("restore", str(tmp_path / "any.backup"), "--background-stopped", stdout=io.StringIO())
