"""Encryption at rest, rotation and decryption failures of stored API keys."""

from __future__ import annotations

import io

import httpx
import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command
from django.db import connection

from dashboard.frame.workspace import Workspace
from dashboard.keys.errors import KeyDecryptionError, NoActiveKeyError
from dashboard.keys.models import ApiKey
from dashboard.keys.selectors import active_key_for
from tests.helpers import mocked_service
from tests.keys.support import DEMO_SECRET, OTHER_ME, OTHER_SECRET, SERVICE, me_body


def raw_row(pk: int) -> tuple:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {ApiKey._meta.db_table} WHERE id = %s", [pk])
        return cursor.fetchone()


def test_the_database_holds_no_plaintext_secret(user, add_key):
    key = add_key(user)

    row = raw_row(key.pk)
    assert row is not None
    assert not any(DEMO_SECRET in str(value) for value in row)
    # Not even the part after the visible prefix, in any column.
    hidden_part = DEMO_SECRET[len(key.prefix) : -4]
    assert not any(hidden_part in str(value) for value in row)
    # ...but it decrypts back in memory.
    assert ApiKey.objects.get(pk=key.pk).secret() == DEMO_SECRET


def test_stored_key_shows_prefix_from_me_and_last4(user, add_key):
    key = add_key(user)

    assert key.prefix == DEMO_SECRET[:11]
    assert key.last4 == "WXYZ"
    assert key.masked == f"{DEMO_SECRET[:11]}…WXYZ"
    assert key.workspace_name == "Acme Marketing"
    assert key.workspace_timezone == "Europe/Paris"
    assert key.member_role == "admin"
    assert key.key_name == "Console key"
    assert key.key_created_at.isoformat() == "2026-03-01T22:30:00.123000+00:00"
    assert key.last_verified_at is not None


def test_client_acts_as_the_decrypted_key(user, add_key):
    add_key(user)
    clients = [Workspace(user).client, active_key_for(user=user).client()]

    with mocked_service(SERVICE) as remote:
        route = remote.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))
        for client in clients:
            client.get("/v1/me")

    # Each call reaches the service carrying the decrypted secret as its bearer token...
    assert route.call_count == len(clients)
    assert [call.request.headers["Authorization"] for call in route.calls] == [f"Bearer {DEMO_SECRET}"] * len(clients)
    # ...while the transport keeps it private: its repr never shows it.
    assert all(DEMO_SECRET not in repr(client) for client in clients)


def test_no_key_raises_no_active_key(user):
    assert active_key_for(user=user) is None
    with pytest.raises(NoActiveKeyError):
        Workspace(user).client  # noqa: B018 - reading it is the act under test


def test_decryption_failure_raises_instead_of_falling_back(user, add_key, settings):
    key = add_key(user)
    # The encryption key the row was written under is gone.
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]

    stored = ApiKey.objects.get(pk=key.pk)
    with pytest.raises(KeyDecryptionError):
        stored.secret()
    with pytest.raises(KeyDecryptionError):
        stored.client()
    with pytest.raises(KeyDecryptionError):
        Workspace(user).client  # noqa: B018 - reading it is the act under test
    assert stored.is_readable is False


def test_rotation_reencrypts_under_the_newest_key(user, other_user, add_key, settings):
    old_key = settings.KEY_ENCRYPTION_KEYS[0]
    first = add_key(user)
    second = add_key(other_user, label="Globex", **OTHER_ME)
    tokens_before = {pk: raw_row(pk) for pk in (first.pk, second.pk)}

    new_key = Fernet.generate_key().decode()
    settings.KEY_ENCRYPTION_KEYS = [new_key, old_key]
    out = io.StringIO()
    call_command("rotate_key_encryption", stdout=out)

    assert "Re-encrypted 2 stored API key(s)" in out.getvalue()
    # The old key can be removed now: every row decrypts under the new one alone.
    settings.KEY_ENCRYPTION_KEYS = [new_key]
    assert ApiKey.objects.get(pk=first.pk).secret() == DEMO_SECRET
    assert ApiKey.objects.get(pk=second.pk).secret() == OTHER_SECRET
    assert all(raw_row(pk) != before for pk, before in tokens_before.items())
    # ...and no longer under the old one alone.
    settings.KEY_ENCRYPTION_KEYS = [old_key]
    with pytest.raises(KeyDecryptionError):
        ApiKey.objects.get(pk=first.pk).secret()


def test_rotation_reports_unreadable_keys_and_still_rotates_the_rest(user, other_user, add_key, settings):
    lost_key = settings.KEY_ENCRYPTION_KEYS[0]
    unreadable = add_key(user)
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    readable = add_key(other_user, label="Globex", **OTHER_ME)
    current = settings.KEY_ENCRYPTION_KEYS[0]
    assert lost_key != current

    newest = Fernet.generate_key().decode()
    settings.KEY_ENCRYPTION_KEYS = [newest, current]
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 stored key\\(s\\) could not be decrypted"):
        call_command("rotate_key_encryption", stdout=out)

    assert "Re-encrypted 1 stored API key(s)" in out.getvalue()
    settings.KEY_ENCRYPTION_KEYS = [newest]
    assert ApiKey.objects.get(pk=readable.pk).secret() == OTHER_SECRET
    with pytest.raises(KeyDecryptionError):
        ApiKey.objects.get(pk=unreadable.pk).secret()


def test_first_key_is_active_later_ones_are_not(user, add_key):
    first = add_key(user)
    second = add_key(user, label="Globex", **OTHER_ME)

    assert ApiKey.objects.get(pk=first.pk).is_active
    assert not ApiKey.objects.get(pk=second.pk).is_active
    assert active_key_for(user=user).pk == first.pk


def test_adding_the_same_remote_key_again_updates_the_row(user, add_key):
    first = add_key(user, label="Acme")
    again = add_key(user, label="Acme renamed", workspace_name="Acme Renamed Inc")

    assert again.pk == first.pk
    assert ApiKey.objects.filter(user=user).count() == 1
    stored = ApiKey.objects.get(pk=first.pk)
    assert stored.label == "Acme renamed"
    assert stored.workspace_name == "Acme Renamed Inc"
    assert stored.is_active
