"""`manage.py bootstrap`: the setup half of `make run`, safe to run again.

1. Apply migrations.
2. Collect the static files: hashed names, gzip copies and the manifest
   (dashboard/static.py), so that `make run` serves them as production does,
   compressed and cached for good. Skipped when the sources are those of the
   last collection (their fingerprint, kept beside the manifest): compressing
   every file again took 14 s of a 15 s `make run` start.
3. Create the `demo` user with a generated password, printed once. On later
   runs the password is not known any more (only its hash is stored), so the
   command says how to set a new one instead of failing.
4. Give `demo` a working key of the sandbox's demo workspace.

Why the key is checked by a sandbox started here, in-process: the keys
service stores a key only after `GET /v1/me` answers (that is where the
workspace name and time zone on every page come from), and the long-running
sandbox process is not up yet when this runs. A throwaway server on a free
port, over the same SQLite file (var/sandbox.sqlite3) the sandbox process
opens a moment later, answers that check in well under a second, seeds the
demo workspace on the very first run, and needs no "unverified key" state
that every page would then have to handle. On a later run the stored key is
checked again the same way and replaced only if the sandbox no longer knows
it (e.g. var/sandbox.sqlite3 was deleted) or it can't be decrypted (.env's
KEY_ENCRYPTION_KEYS changed).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role

DEMO_USERNAME = "demo"
DEMO_KEY_LABEL = "Sandbox demo workspace"


def demo_password_new() -> str:
    return secrets.token_urlsafe(12)


def demo_user_ensure(*, reset_password: bool) -> tuple[AbstractBaseUser, str | None]:
    """The demo user and its new password, or None when it already existed
    and no reset was asked for."""
    user_model = get_user_model()
    user = user_model.objects.filter(username=DEMO_USERNAME).first()
    if user is not None and not reset_password:
        return user, None
    password = demo_password_new()
    if user is None:
        user = user_model.objects.create_user(username=DEMO_USERNAME, password=password)
    else:
        user.set_password(password)
        user.save(update_fields=["password"])
    return user, password


# Beside the manifest in STATIC_ROOT: what the collection there was made from.
FINGERPRINT_NAME = "staticfiles.fingerprint"


def static_sources_fingerprint() -> str:
    """A digest of every static file the finders offer (name and content) and
    of the storage that processes them: the same digest, the same collection."""
    from django.contrib.staticfiles.finders import get_finders

    digest = hashlib.sha256(settings.HASHED_STATIC_STORAGE.encode())
    digest.update((Path(settings.BASE_DIR) / "dashboard" / "static.py").read_bytes())
    files = {}
    for finder in get_finders():
        for path, storage in finder.list(["CVS", ".*", "*~"]):
            files.setdefault(path, storage.path(path))  # the first finder's file wins, as collectstatic's
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + hashlib.sha256(Path(files[path]).read_bytes()).digest())
    return digest.hexdigest()


def static_files_collect(*, verbosity: int) -> bool:
    """Hashed, compressed static files and their manifest in STATIC_ROOT
    (True), unless they are there already from the same sources (False). The
    hashed storage is named here because this process chose its storage
    before the manifest existed (settings pick it by the manifest); the web
    processes `make run` starts next find the manifest and serve from it."""
    root = Path(settings.STATIC_ROOT)
    fingerprint = static_sources_fingerprint()
    kept = root / FINGERPRINT_NAME
    if (root / "staticfiles.json").exists() and kept.exists() and kept.read_text().strip() == fingerprint:
        return False
    storages = {**settings.STORAGES, "staticfiles": {"BACKEND": settings.HASHED_STATIC_STORAGE}}
    with override_settings(STORAGES=storages):
        call_command("collectstatic", interactive=False, verbosity=verbosity)
    kept.write_text(fingerprint + "\n")
    return True


def port_in_use(*, port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def ports_check() -> None:
    """Fail before starting anything when a port `make run` needs is taken,
    with the way out, instead of one process dying among the others' logs.
    (The Procfile starts the sandbox even when a real service is configured.)"""
    wanted = [
        ("WEB_PORT", int(os.environ.get("WEB_PORT", "8000"))),
        ("SANDBOX_PORT", int(os.environ.get("SANDBOX_PORT", "8100"))),
    ]
    taken = [f"{name}={port}" for name, port in wanted if port_in_use(port=port)]
    if taken:
        raise CommandError(
            f"Port in use: {', '.join(taken)} (another `make run`?). "
            "Stop it, or pick free ports, e.g. `WEB_PORT=8200 SANDBOX_PORT=8300 make run`."
        )


def sandbox_db_path() -> Path:
    return Path(os.environ.get("SANDBOX_DB") or settings.VAR_DIR / "sandbox.sqlite3")


def demo_sandbox_key_ensure(*, user: AbstractBaseUser, db_path: Path) -> str:
    """Make sure `user`'s active key works against the sandbox at `db_path`.

    Returns "kept" (the stored key still answers /v1/me) or "stored" (a new
    demo-workspace key was checked, stored encrypted and made active).
    """
    from dashboard.api import errors
    from dashboard.keys.errors import KeyDecryptionError
    from dashboard.keys.selectors import active_key_for
    from dashboard.keys.services import api_key_activate, api_key_add, api_key_check
    from sandbox.testing import start_sandbox

    db_path.parent.mkdir(parents=True, exist_ok=True)
    # time_scale only matters for simulated long work; this server answers /v1/me.
    sandbox = start_sandbox(db_path=str(db_path), port=0)
    try:
        # The transport reads SERVICE_BASE_URL on every call.
        with override_settings(SERVICE_BASE_URL=sandbox.base_url):
            active = active_key_for(user=user)
            if active is not None:
                try:
                    api_key_check(user=user, pk=active.pk)
                    return "kept"
                except (errors.AuthenticationError, KeyDecryptionError):
                    pass  # replaced below
            # start_sandbox minted this demo-workspace key into db_path.
            key = api_key_add(user=user, label=DEMO_KEY_LABEL, secret=sandbox.demo_key)
            api_key_activate(user=user, pk=key.pk)
            return "stored"
    finally:
        sandbox.stop()


class Command(BaseCommand):
    help = (
        "Set up a fresh machine for `make run`: migrate, collect static files, the demo user, its sandbox key. "
        "Safe to run again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--reset-demo-password",
            action="store_true",
            help="Give the demo user a new generated password and print it.",
        )
        parser.add_argument(
            "--check-ports", action="store_true", help="First check that WEB_PORT and SANDBOX_PORT are free (make run)."
        )

    def handle(self, *args, reset_demo_password: bool = False, check_ports: bool = False, **options):
        verbosity = options.get("verbosity", 1)
        if check_ports:
            ports_check()
        call_command("migrate", interactive=False, verbosity=max(0, verbosity - 1))
        static_files_collect(verbosity=max(0, verbosity - 1))
        user, password = demo_user_ensure(reset_password=reset_demo_password)
        # The demo user tries everything, deciding approvals, the audit trail
        # and the People page included: the Administrator role.
        person_role_set(user=user, role=Role.ADMINISTRATOR)

        if settings.SERVICE_BASE_URL == settings.SANDBOX_BASE_URL:
            from dashboard.api.errors import ApiError

            try:
                key_state = demo_sandbox_key_ensure(user=user, db_path=sandbox_db_path())
            except ApiError as exc:
                # The message and request id only: the key itself is never printed.
                raise CommandError(
                    f"The sandbox refused the demo key check (GET /v1/me): {exc.message} "
                    f"[status {exc.status}, request id {exc.request_id}]. "
                    f"Deleting {sandbox_db_path()} makes the next run start a fresh sandbox."
                ) from exc
        else:
            key_state = "remote"

        self.stdout.write(self.banner(password=password, key_state=key_state))

    def banner(self, *, password: str | None, key_state: str) -> str:
        address = f"http://127.0.0.1:{os.environ.get('WEB_PORT', '8000')}"
        if password is not None:
            login = f"user {DEMO_USERNAME}, password {password}   (shown only now: note it)"
        else:
            login = (
                f"user {DEMO_USERNAME} (already set up; its password was printed on the first run).\n"
                "                 Forgot it? `make demo-password` prints a new one."
            )
        key_line = {
            "kept": "the demo user's sandbox key still works",
            "stored": "a key of the sandbox demo workspace is stored for the demo user",
            "remote": f"SERVICE_BASE_URL is {settings.SERVICE_BASE_URL}: add your own key after logging in",
        }[key_state]
        rule = "=" * 72
        return "\n".join(
            [
                rule,
                "  Workspace Console",
                f"  Address:       {address}",
                f"  Log in:        {login}",
                f"  API key:       {key_line}",
                f"  Remote:        {settings.SERVICE_BASE_URL}",
                f"  Local data:    {settings.VAR_DIR} (database, sandbox, broker, cache)",
                rule,
                "",
            ]
        )
