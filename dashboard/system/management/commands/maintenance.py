"""`manage.py maintenance on|off|status`: the flag every web process reads
(dashboard/maintenance.py). `on` refuses writes in words and says so on
every page (`--closed`: pages too); `/readyz` answers 503 "maintenance"."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from dashboard.maintenance import maintenance_begin, maintenance_end, maintenance_state


class Command(BaseCommand):
    help = "Turn maintenance mode on or off (writes refused in words, pages say so, /readyz says why), or show it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("state", choices=["on", "off", "status"])
        parser.add_argument(
            "--why", default="upgrade", help="What pages and /readyz say: upgrade (default), backup, restore or words."
        )
        parser.add_argument("--closed", action="store_true", help="Close pages too, not only writes.")

    def handle(self, *args, **options) -> None:
        if options["state"] == "on":
            state = maintenance_begin(why=options["why"], closed=options["closed"])
            held = "pages and writes" if state.closed else "writes (pages can be read)"
            self.stdout.write(f"Maintenance is on ({state.words}): {held} are refused until `maintenance off`.")
        elif options["state"] == "off":
            maintenance_end()
            self.stdout.write("Maintenance is off: the console takes writes again.")
        else:
            current = maintenance_state()
            if current is None:
                self.stdout.write("Maintenance is off.")
            else:
                self.stdout.write(f"Maintenance is on since {current.since}: {current.words}.")
