"""`manage.py backup --output FILE`: the database, the imports and ZIP
folders and a manifest in one archive, optionally encrypted with a
passphrase (dashboard/system/backup.py). Maintenance mode is on while it
runs (writes refused in words), unless it was on already."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from dashboard.maintenance import maintenance_begin, maintenance_end, maintenance_state
from dashboard.system.backup import BackupRefused, backup_make, passphrase_from


class Command(BaseCommand):
    help = "Write one backup archive: database, imports and ZIP folders, and a manifest; optionally encrypted."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", required=True, help="The archive to write (replaced if it exists).")
        parser.add_argument(
            "--passphrase-file", default="", help="Encrypt with the passphrase on this file's first line."
        )
        parser.add_argument(
            "--passphrase-env", default="", help="Encrypt with the passphrase in this environment variable."
        )
        parser.add_argument(
            "--no-maintenance",
            action="store_true",
            help="Keep taking writes meanwhile (the dump is consistent anyway).",
        )

    def handle(self, *args, **options) -> None:
        try:
            passphrase = passphrase_from(file=options["passphrase_file"], env=options["passphrase_env"])
        except BackupRefused as exc:
            raise CommandError(f"backup refused: {exc}") from exc
        ours = not options["no_maintenance"] and maintenance_state() is None
        if ours:
            maintenance_begin(why="backup")
        try:
            made = backup_make(output=Path(options["output"]), passphrase=passphrase)
        except BackupRefused as exc:
            raise CommandError(f"backup failed: {exc}") from exc
        finally:
            if ours:
                maintenance_end()
        manifest = made.manifest
        size = made.path.stat().st_size
        self.stdout.write(
            f"Backup written: {made.path} ({size} bytes, {'encrypted (AES-256-GCM, scrypt)' if made.encrypted else 'not encrypted'})"
        )
        self.stdout.write(
            f"  console {manifest['console_version']}, {manifest['database']}, {len(manifest['migrations'])} migrations, "
            f"encryption keys {', '.join(manifest['key_fingerprints'])}"
        )
        for name, part in manifest["parts"].items():
            self.stdout.write(f"  {name}: {part['size']} bytes, sha256 {part['sha256']}")
