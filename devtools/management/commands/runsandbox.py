from django.core.management.base import BaseCommand

from sandbox.server import serve_forever


class Command(BaseCommand):
    help = "Serve the local sandbox of the remote service (its own SQLite storage, never the console's database)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 in a container)"
        )
        parser.add_argument("--port", type=int, default=8100)
        parser.add_argument("--db", default=None, help="SQLite file (default $SANDBOX_DB or var/sandbox.sqlite3)")
        parser.add_argument("--time-scale", type=float, default=None, help="default $SANDBOX_TIME_SCALE or 0.055")
        parser.add_argument("--rate-limit", type=int, default=None, help="per key per minute; 0 = off")

    def handle(self, *args, **options):
        serve_forever(
            host=options["host"],
            port=options["port"],
            db_path=options["db"],
            time_scale=options["time_scale"],
            rate_limit_per_minute=options["rate_limit"],
        )
