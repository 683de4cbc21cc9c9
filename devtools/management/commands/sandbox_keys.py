from django.core.management.base import BaseCommand, CommandError

from sandbox.admin import mint_key
from sandbox.seed import KEY_KINDS


class Command(BaseCommand):
    help = "Print a fresh sandbox API key of a kind (demo, member, readonly, revoked, no_credits, other_workspace)."

    def add_arguments(self, parser):
        parser.add_argument("--kind", default="demo", choices=sorted(KEY_KINDS))
        parser.add_argument("--db", default=None, help="SQLite file (default $SANDBOX_DB or var/sandbox.sqlite3)")

    def handle(self, *args, **options):
        try:
            self.stdout.write(mint_key(db_path=options["db"], kind=options["kind"]))
        except ValueError as exc:
            raise CommandError(str(exc))
