"""`manage.py bootstrap`, the setup half of `make run`: migrations, the demo
user with a printed password, and a sandbox key checked with /v1/me. It runs
again without failing. The sandbox it starts is real HTTP over a SQLite file."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from dashboard.keys.models import ApiKey

PASSWORD_LINE = re.compile(r"user demo, password (\S+)")


@pytest.fixture(scope="module")
def collected_static(tmp_path_factory):
    """One folder for the module's runs: the first collects, the others find the
    same sources' files there and skip (compressing them all is 14 s a run)."""
    return tmp_path_factory.mktemp("staticfiles")


@pytest.fixture(autouse=True)
def static_root(settings, collected_static):
    """bootstrap collects static files: into a folder of the tests' own."""
    settings.STATIC_ROOT = collected_static
    return settings.STATIC_ROOT


@pytest.fixture
def sandbox_db(tmp_path, monkeypatch):
    path = tmp_path / "sandbox.sqlite3"
    monkeypatch.setenv("SANDBOX_DB", str(path))
    return path


def bootstrap(*args: str) -> str:
    out = io.StringIO()
    call_command("bootstrap", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_first_run_creates_the_demo_user_with_a_printed_password_and_a_working_sandbox_key(sandbox_db):
    output = bootstrap()

    password = PASSWORD_LINE.search(output).group(1)
    demo = authenticate(username="demo", password=password)
    assert demo is not None
    # The demo user tries everything: deciding approvals and the audit trail too.
    assert demo.has_perm("audit.decide_approvals") and demo.has_perm("audit.view_audit_trail")
    key = ApiKey.objects.get(user__username="demo")
    assert key.is_active
    assert key.workspace_name  # filled from the sandbox's /v1/me answer
    assert key.last_verified_at is not None
    assert key.secret().startswith("svc_sk_")
    assert key.secret() not in output
    assert sandbox_db.exists()
    assert "http://127.0.0.1:8000" in output


@pytest.mark.django_db
def test_bootstrap_collects_hashed_compressed_static_files_for_make_run(sandbox_db, static_root):
    bootstrap()

    manifest = json.loads((static_root / "staticfiles.json").read_text())
    hashed = manifest["paths"]["css/console.css"]
    assert hashed != "css/console.css"
    assert (static_root / hashed).exists() and (static_root / f"{hashed}.gz").exists()


@pytest.mark.django_db
def test_static_files_are_collected_again_only_when_a_source_changed(
    sandbox_db, static_root, settings, tmp_path, monkeypatch
):
    from devtools.management.commands import bootstrap as command

    bootstrap()  # collected (or already there from these sources)
    manifest = static_root / "staticfiles.json"
    collected_at = manifest.stat().st_mtime_ns
    assert command.static_files_collect(verbosity=0) is False
    assert manifest.stat().st_mtime_ns == collected_at

    # A source changed (here: one more folder of static files, then its file's content): another digest each time.
    extra = tmp_path / "more-static"
    extra.mkdir()
    (extra / "note.txt").write_text("one")
    before = command.static_sources_fingerprint()
    settings.STATICFILES_DIRS = [*settings.STATICFILES_DIRS, extra]
    with_extra = command.static_sources_fingerprint()
    (extra / "note.txt").write_text("two")
    assert len({before, with_extra, command.static_sources_fingerprint()}) == 3
    # So the next run collects (collectstatic itself is Django's: counted here, not run a second time).
    collected = []
    monkeypatch.setattr(command, "call_command", lambda *args, **kwargs: collected.append(args))
    assert command.static_files_collect(verbosity=0) is True
    assert collected == [("collectstatic",)]
    # The module's folder left as the other tests find it: collected from the sources they have.
    (static_root / command.FINGERPRINT_NAME).write_text(before + "\n")


@pytest.mark.django_db
def test_second_run_keeps_user_and_key_and_says_how_to_reset_the_password(sandbox_db):
    first_password = PASSWORD_LINE.search(bootstrap()).group(1)
    first_key = ApiKey.objects.get(user__username="demo")

    output = bootstrap()

    assert PASSWORD_LINE.search(output) is None
    assert "make demo-password" in output
    assert authenticate(username="demo", password=first_password) is not None
    assert list(ApiKey.objects.filter(user__username="demo").values_list("pk", flat=True)) == [first_key.pk]
    assert "still works" in output


@pytest.mark.django_db
def test_reset_demo_password_prints_a_new_one_that_works(sandbox_db):
    old_password = PASSWORD_LINE.search(bootstrap()).group(1)

    new_password = PASSWORD_LINE.search(bootstrap("--reset-demo-password")).group(1)

    assert new_password != old_password
    assert authenticate(username="demo", password=new_password) is not None
    assert authenticate(username="demo", password=old_password) is None


@pytest.mark.django_db
def test_a_lost_sandbox_database_gets_the_demo_user_a_fresh_working_key(sandbox_db):
    bootstrap()
    old_key = ApiKey.objects.get(user__username="demo")
    sandbox_db.unlink()

    output = bootstrap()

    active = ApiKey.objects.get(user__username="demo", is_active=True)
    assert active.secret() != old_key.secret()
    assert "is stored" in output


@pytest.mark.django_db
def test_with_a_real_service_configured_no_sandbox_is_started(settings, sandbox_db):
    settings.SERVICE_BASE_URL = "https://api.example.com"

    output = bootstrap()

    assert "add your own key" in output
    assert not ApiKey.objects.filter(user__username="demo").exists()
    assert not sandbox_db.exists()


@pytest.mark.django_db
def test_make_run_stops_early_with_a_hint_when_the_web_port_is_taken(sandbox_db, monkeypatch):
    import socket

    from django.core.management.base import CommandError

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        monkeypatch.setenv("WEB_PORT", str(listener.getsockname()[1]))

        with pytest.raises(CommandError, match=r"Port in use: WEB_PORT=\d+.*WEB_PORT=8200 SANDBOX_PORT=8300 make run"):
            bootstrap("--check-ports")

    assert not ApiKey.objects.exists()
    assert not sandbox_db.exists()


@pytest.mark.django_db
def test_a_refused_key_check_ends_with_the_message_and_request_id_not_a_traceback(sandbox_db, monkeypatch):
    from django.core.management.base import CommandError

    from dashboard.api import errors

    def refuse(**kwargs):
        raise errors.ServerError("The service failed.", status=500, request_id="req_bootstrap_1")

    monkeypatch.setattr("dashboard.keys.services.api_key_add", refuse)

    with pytest.raises(CommandError) as failure:
        bootstrap()

    assert "The service failed." in str(failure.value)
    assert "req_bootstrap_1" in str(failure.value)
    assert str(sandbox_db) in str(failure.value)
    assert not ApiKey.objects.exists()
