"""The embedded Celery broker of `make run`: kombu's SQLAlchemy transport on
one SQLite file (var/broker.sqlite3), hardened for the web, the worker and
beat using it at once. Production uses Redis and never loads this module.

Why not kombu's `filesystem://` transport: it writes a message as a plain
file that a consumer may read half-written, and the worker dies on the
truncated JSON. A SQLite transaction is all or nothing.

What this subclass changes in kombu's SQLAlchemy transport, and why:

- Every connection waits for the write lock (busy timeout) and uses WAL, so
  a publish from a web thread never fails with "database is locked" while the
  worker takes a message, and readers never wait for writers.
- A consumer takes a message inside `BEGIN IMMEDIATE` (one writer at a time:
  two consumers never take the same row) and deletes it there, as the
  filesystem transport deleted its file. kombu's own transport only marks the
  row invisible and never removes it, so a day of beat ticks every 2 s would
  leave tens of thousands of dead rows that every poll scans past. Delivery
  semantics are kombu's virtual transport's either way: a message taken but
  not acknowledged is put back when its channel closes (a warm shutdown), and
  lost if the consumer is killed outright (the live poller's leases cover
  that: a lost poll is claimed again when its lease runs out).
- An empty queue is polled with a plain read, so an idle worker polling every
  second takes no write lock.
- Several processes opening a fresh file at once (`make run` starts four)
  create the tables one at a time, and a queue row that another process
  created first is read back instead of failing on the unique name.
- Engines are disposed of in a forked child (Celery's prefork pool): a SQLite
  connection must never be shared across processes.

Registered under the URL scheme `sqlite://` (see `dashboard.celery`), so
CELERY_BROKER_URL is an ordinary SQLAlchemy SQLite URL.
"""

from __future__ import annotations

import os
from json import loads
from queue import Empty

from kombu.transport import sqlalchemy as kombu_sqla
from kombu.utils.encoding import bytes_to_str
from sqlalchemy import create_engine, event, text
from sqlalchemy.exc import IntegrityError

#: The URL scheme of the embedded broker (CELERY_BROKER_URL=sqlite:///path).
SCHEME = "sqlite"

# Seconds a connection waits for another process's write to finish.
BUSY_TIMEOUT_SECONDS = 30.0


def _sqlite_pragmas(dbapi_connection, connection_record) -> None:
    # WAL lets readers go on during a write and survives a killed writer;
    # NORMAL sync is durable across process crashes (not power loss), which
    # is what a developer machine needs.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


class Channel(kombu_sqla.Channel):
    def _engine_from_config(self):
        url = self.connection.client.hostname
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_SECONDS})
        event.listen(engine, "connect", _sqlite_pragmas)
        # kombu creates the tables next, checking first, which races with other
        # processes doing the same ("table already exists"): create them here
        # under the write lock, so kombu's own pass finds them.
        with engine.connect() as connection:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
            kombu_sqla.metadata.create_all(connection)
            connection.commit()
        return engine

    def _get_or_create(self, queue):
        query = self.session.query(self.queue_cls).filter(self.queue_cls.name == queue)
        found = query.first()
        if found is not None:
            return found
        self.session.add(self.queue_cls(queue))
        try:
            self.session.commit()
        except IntegrityError:  # another process created it first
            self.session.rollback()
        return query.one()

    def _has_visible_message(self, queue_id: int) -> bool:
        found = self.session.execute(
            text(f"SELECT 1 FROM {self.message_tablename} WHERE queue_id = :queue AND visible LIMIT 1"),
            {"queue": queue_id},
        ).first()
        self.session.commit()
        return found is not None

    def _get(self, queue, timeout=None):
        queue_row = self._get_or_create(queue)
        if not self._has_visible_message(queue_row.id):
            raise Empty()
        session = self.session
        # The write lock first: no other consumer can take the same row.
        session.execute(text("BEGIN IMMEDIATE"))
        try:
            message = (
                session.query(self.message_cls)
                .filter(self.message_cls.queue_id == queue_row.id)
                .filter(self.message_cls.visible.is_(True))
                .order_by(self.message_cls.id)
                .limit(1)
                .first()
            )
            if message is None:
                raise Empty()
            payload = message.payload
            session.delete(message)
        except BaseException:
            session.rollback()
            raise
        session.commit()
        return loads(bytes_to_str(payload))

    def check(self) -> None:
        """Open the database (creating its tables) and read it: what /healthz asks."""
        self.session.execute(text(f"SELECT count(*) FROM {self.queue_tablename}")).scalar()
        self.session.commit()


class Transport(kombu_sqla.Transport):
    Channel = Channel
    driver_name = "sqlite"


def _engines_forget_after_fork() -> None:
    # The child keeps the parent's pooled connections in the class-level cache;
    # dispose(close=False) drops them without touching the parent's sockets/files.
    for engine, _session_maker in list(Channel._engines.values()):
        engine.dispose(close=False)


os.register_at_fork(after_in_child=_engines_forget_after_fork)
