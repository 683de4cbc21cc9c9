"""`manage.py restore FILE`: check the archive against its manifest, then
put it in place of the configured database and the imports and ZIP folders,
migrate and run preflight (dashboard/system/backup.py). Maintenance mode is
on, pages closed, from the first change; it goes off when preflight passes
and stays on, saying so, when it does not."""

from __future__ import annotations

from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from dashboard.maintenance import maintenance_begin, maintenance_end
from dashboard.system.backup import (
    ALIVE_SECONDS,
    BackupRefused,
    background_running,
    backup_opened,
    backup_restore,
    passphrase_from,
)


class Command(BaseCommand):
    help = (
        "Restore one backup archive into the configured database and folders: refused in words when it does not "
        "match its manifest or its keys are not this console's; then migrate and preflight."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", help="The archive `manage.py backup` wrote.")
        parser.add_argument("--passphrase-file", default="", help="The passphrase of an encrypted archive, in a file.")
        parser.add_argument("--passphrase-env", default="", help="The passphrase, in this environment variable.")
        parser.add_argument(
            "--background-stopped",
            action="store_true",
            help="Restore even though beat or a worker beat its heart in the last seconds (you stopped them just now).",
        )
        parser.add_argument(
            "--service-timeout", type=float, default=3.0, help="Preflight's wait for the service (default 3 s)."
        )

    def handle(self, *args, **options) -> None:
        started = False
        running = [] if options["background_stopped"] else background_running()
        if running:
            raise CommandError(
                f"restore refused: {' and '.join(running)} still run(s) (a heartbeat within {ALIVE_SECONDS:.0f} s), and "
                "their tasks would write into the database being replaced. Stop worker, streams and beat "
                "(docker-compose stop worker streams beat), then restore again. Nothing was restored."
            )
        try:
            passphrase = passphrase_from(file=options["passphrase_file"], env=options["passphrase_env"])
            with backup_opened(Path(options["archive"]), passphrase=passphrase) as (parts, manifest):
                self.stdout.write(
                    f"Archive checked: console {manifest['console_version']}, made {manifest['created']}, "
                    f"{len(manifest['parts'])} parts match the manifest."
                )
                maintenance_begin(why="restore", closed=True)
                started = True
                backup_restore(parts, manifest)
        except BackupRefused as exc:
            if started:
                raise CommandError(f"restore failed: {exc} Maintenance stays on; restore again.") from exc
            raise CommandError(f"restore refused: {exc}") from exc
        self.stdout.write("Database and folders restored; bringing migrations forward.")
        call_command("migrate", interactive=False, verbosity=0)
        try:
            call_command("preflight", service_timeout=options["service_timeout"], stdout=self.stdout)
        except CommandError as exc:
            raise CommandError(
                "restored, but preflight failed (above): maintenance stays on. Fix what it says, run "
                "`manage.py preflight`, then `manage.py maintenance off`."
            ) from exc
        maintenance_end()
        self.stdout.write("Restore done: maintenance is off, the console takes writes again.")
