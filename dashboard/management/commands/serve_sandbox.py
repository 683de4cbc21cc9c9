"""`manage.py serve_sandbox --host 0.0.0.0`: the sandbox on a chosen address.

`python -m sandbox` (what `make run` uses) listens on 127.0.0.1 only, which
other containers can't reach; docker-compose's optional `sandbox` profile
needs it on the container's network address.
"""

from __future__ import annotations

import os

from django.core.management.base import BaseCommand

from sandbox.server import DEFAULT_DB, build_app, config_from_env, serve


class Command(BaseCommand):
    help = "Serve the local sandbox of the remote service on HOST:PORT (its own SQLite file, never the console's database)."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8100)
        parser.add_argument("--db", default=None, help="SQLite file (default $SANDBOX_DB or var/sandbox.sqlite3)")

    def handle(self, *args, host: str, port: int, db: str | None, **options):
        db_path = db or os.environ.get("SANDBOX_DB", DEFAULT_DB)
        os.makedirs(os.path.dirname(os.path.abspath(db_path)), exist_ok=True)
        app = build_app(db_path=db_path, config=config_from_env())
        server = serve(app, host=host, port=port)
        self.stdout.write(f"sandbox: http://{host}:{server.server_port}/v1 (db {db_path})")
        self.stdout.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
            app.store.close()
