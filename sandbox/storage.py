"""SQLite storage for the sandbox: one table of JSON documents per kind.

Every entity (workspace, member, object, record, relationship, agent, turn,
board...) is a JSON document in `docs`, addressed by
(kind, id), scoped by workspace_id, with a monotonic `seq` that gives stable
paging under inserts. API keys and idempotency results have their own small
tables because they are looked up by something other than an id.

One connection guarded by one re-entrant lock: the sandbox is a test peer,
so simplicity beats throughput. `with store.lock:` makes a read-modify-write
atomic (the record merge "under a row lock" of the spec).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    workspace_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    data TEXT NOT NULL,
    UNIQUE (kind, id)
);
CREATE INDEX IF NOT EXISTS docs_kind_ws ON docs (kind, workspace_id, seq);
-- A record's links are read by either end (`relationships_list`, the delete of
-- a record): without these each read scans every link of the workspace.
CREATE INDEX IF NOT EXISTS docs_source_id ON docs (kind, workspace_id, json_extract(data, '$.source_id'));
CREATE INDEX IF NOT EXISTS docs_target_id ON docs (kind, workspace_id, json_extract(data, '$.target_id'));
CREATE TABLE IF NOT EXISTS api_keys (
    hash TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    workspace_id TEXT NOT NULL,
    member_id TEXT NOT NULL,
    name TEXT NOT NULL,
    prefix TEXT NOT NULL,
    kind TEXT NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS idempotency (
    workspace_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT,
    headers TEXT NOT NULL,
    replay TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (workspace_id, key)
);
CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class Store:
    """JSON documents in SQLite. Documents are plain dicts; `_seq` is added on
    read (never stored in the JSON, never rendered)."""

    def __init__(self, db_path: str | Path = ":memory:", *, clock=None):
        self.db_path = str(db_path)
        if self.db_path != ":memory:":
            Path(self.db_path).parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self.conn = sqlite3.connect(self.db_path, check_same_thread=False, isolation_level=None, timeout=30)
        if self.db_path != ":memory:":
            # Another process (`manage.py sandbox_keys`) may write keys while the server runs.
            self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(SCHEMA)
        self.clock = clock
        # Documents decoded for `list(..., shared=True)`, by seq, with the JSON
        # they were decoded from: a list of 10,000 records re-reads only what changed.
        self._decoded: dict[int, tuple[str, dict]] = {}
        self._remembered: dict[Any, Any] = {}
        self._remembered_at: tuple[int, int] | None = None

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    # -- timestamps ---------------------------------------------------------
    def _now(self) -> str:
        if self.clock is not None:
            return self.clock.iso()
        from sandbox.clock import Clock

        return Clock().iso()

    # -- documents ----------------------------------------------------------
    @staticmethod
    def _row_to_doc(row) -> dict:
        doc = json.loads(row[1])
        doc["_seq"] = row[0]
        return doc

    @staticmethod
    def _dump(doc: dict) -> str:
        return json.dumps({k: v for k, v in doc.items() if k != "_seq"}, separators=(",", ":"), sort_keys=True)

    def insert(self, kind: str, doc: dict, *, workspace_id: str | None = None) -> dict:
        """Store a new document; sets `id` (uuid4 unless given), `created_at`
        and `updated_at` (unless given), `workspace_id` (when given)."""
        doc = dict(doc)
        doc.setdefault("id", str(uuid.uuid4()))
        now = self._now()
        doc.setdefault("created_at", now)
        doc.setdefault("updated_at", doc["created_at"])
        if workspace_id is not None:
            doc["workspace_id"] = workspace_id
        with self.lock:
            cur = self.conn.execute(
                "INSERT INTO docs (kind, id, workspace_id, created_at, updated_at, data) VALUES (?,?,?,?,?,?)",
                (kind, doc["id"], doc.get("workspace_id"), doc["created_at"], doc["updated_at"], self._dump(doc)),
            )
            doc["_seq"] = cur.lastrowid
        return doc

    def get(self, kind: str, id: str, *, workspace_id: str | None = None) -> dict | None:
        """One document, or None (also None when it belongs to another workspace)."""
        sql = "SELECT seq, data FROM docs WHERE kind=? AND id=?"
        args: list[Any] = [kind, str(id)]
        if workspace_id is not None:
            sql += " AND workspace_id=?"
            args.append(workspace_id)
        with self.lock:
            row = self.conn.execute(sql, args).fetchone()
        return self._row_to_doc(row) if row else None

    def save(self, kind: str, doc: dict, *, touch: bool = True) -> dict:
        """Write a whole document back (read it, change it, save it under
        `with store.lock:`). `touch` sets `updated_at` to now."""
        doc = dict(doc)
        if touch:
            doc["updated_at"] = self._now()
        with self.lock:
            self.conn.execute(
                "UPDATE docs SET data=?, updated_at=?, workspace_id=? WHERE kind=? AND id=?",
                (self._dump(doc), doc.get("updated_at", self._now()), doc.get("workspace_id"), kind, doc["id"]),
            )
        return doc

    def update(self, kind: str, id: str, changes: dict, *, touch: bool = True) -> dict | None:
        """Merge `changes` into a stored document atomically; returns it or None."""
        with self.lock:
            doc = self.get(kind, id)
            if doc is None:
                return None
            doc.update(changes)
            return self.save(kind, doc, touch=touch)

    def delete(self, kind: str, id: str) -> bool:
        with self.lock:
            cur = self.conn.execute("DELETE FROM docs WHERE kind=? AND id=?", (kind, str(id)))
        return cur.rowcount > 0

    def delete_where(self, kind: str, *, workspace_id: str | None = None, where: dict | None = None) -> int:
        sql, args = self._where("DELETE FROM docs", kind, workspace_id, where)
        with self.lock:
            return self.conn.execute(sql, args).rowcount

    @staticmethod
    def _where(head: str, kind: str, workspace_id: str | None, where: dict | None) -> tuple[str, list]:
        sql = head + " WHERE kind=?"
        args: list[Any] = [kind]
        if workspace_id is not None:
            sql += " AND workspace_id=?"
            args.append(workspace_id)
        for field, value in (where or {}).items():
            if value is None:
                sql += f" AND json_extract(data, '$.{field}') IS NULL"
            else:
                sql += f" AND json_extract(data, '$.{field}') = ?"
                args.append(value if not isinstance(value, bool) else int(value))
        return sql, args

    def list(
        self, kind: str, *, workspace_id: str | None = None, where: dict | None = None, shared: bool = False
    ) -> list[dict]:
        """Every document of a kind (in a workspace), oldest first (by seq).
        `where` compares top-level JSON members for equality (None = missing/null).

        `shared=True` answers documents kept from an earlier read when their
        stored JSON is unchanged (decoding is most of a big list's time): the
        caller only reads them, never changes one (it would change every
        later answer)."""
        sql, args = self._where("SELECT seq, data FROM docs", kind, workspace_id, where)
        sql += " ORDER BY seq"
        with self.lock:
            rows = self.conn.execute(sql, args).fetchall()
        if not shared:
            return [self._row_to_doc(r) for r in rows]
        docs = []
        for seq, data in rows:
            kept = self._decoded.get(seq)
            if kept is None or kept[0] != data:
                kept = (data, self._row_to_doc((seq, data)))
                self._decoded[seq] = kept
            docs.append(kept[1])
        return docs

    def remembered(self, key: Any, compute: Callable[[], Any]) -> Any:
        """`compute()`'s answer, kept under `key` until anything in the store
        changes: a write through this connection (`total_changes`) or another
        process's (`PRAGMA data_version`). For answers that depend on the
        stored documents only (never on the clock), read and never changed by
        the caller: the sorted records of a list, paged through 100 at a time."""
        with self.lock:
            now = (self.conn.total_changes, self.conn.execute("PRAGMA data_version").fetchone()[0])
            if now != self._remembered_at or len(self._remembered) >= 64:
                self._remembered = {}
                self._remembered_at = now
            if key not in self._remembered:
                self._remembered[key] = compute()
            return self._remembered[key]

    def find_one(self, kind: str, *, workspace_id: str | None = None, **where) -> dict | None:
        docs = self.list(kind, workspace_id=workspace_id, where=where)
        return docs[0] if docs else None

    def count(self, kind: str, *, workspace_id: str | None = None, where: dict | None = None) -> int:
        sql, args = self._where("SELECT COUNT(*) FROM docs", kind, workspace_id, where)
        with self.lock:
            return self.conn.execute(sql, args).fetchone()[0]

    # -- api keys -----------------------------------------------------------
    def add_api_key(
        self,
        *,
        hash: str,
        id: str,
        workspace_id: str,
        member_id: str,
        name: str,
        prefix: str,
        kind: str,
        revoked: bool,
        created_at: str,
    ) -> None:
        with self.lock:
            self.conn.execute(
                "INSERT INTO api_keys (hash, id, workspace_id, member_id, name, prefix, kind, revoked, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                (hash, id, workspace_id, member_id, name, prefix, kind, int(revoked), created_at),
            )

    def api_key_revoke(self, id: str, *, revoked: bool = True) -> bool:
        """Revoke a key (or restore it), as a workspace admin does in the
        product's API settings: every call with it answers 401 from then on.
        Whether a key has this id."""
        with self.lock:
            cur = self.conn.execute("UPDATE api_keys SET revoked=? WHERE id=?", (int(revoked), id))
        return cur.rowcount > 0

    def api_key_by_hash(self, hash: str) -> dict | None:
        with self.lock:
            cur = self.conn.execute("SELECT * FROM api_keys WHERE hash=?", (hash,))
            row = cur.fetchone()
            if row is None:
                return None
            cols = [c[0] for c in cur.description]
        key = dict(zip(cols, row))
        key["revoked"] = bool(key["revoked"])
        return key

    # -- idempotency --------------------------------------------------------
    def idempotency_get(self, workspace_id: str, key: str) -> dict | None:
        with self.lock:
            row = self.conn.execute(
                "SELECT fingerprint, status, body, headers, replay, created_at FROM idempotency"
                " WHERE workspace_id=? AND key=?",
                (workspace_id, key),
            ).fetchone()
        if row is None:
            return None
        return {
            "fingerprint": row[0],
            "status": row[1],
            "body": json.loads(row[2]) if row[2] is not None else None,
            "headers": json.loads(row[3]),
            "replay": json.loads(row[4]) if row[4] else None,
            "created_at": row[5],
        }

    def idempotency_put(
        self, workspace_id: str, key: str, *, fingerprint: str, status: int, body: Any, headers: dict, replay: Any
    ) -> None:
        with self.lock:
            self.conn.execute(
                "INSERT OR REPLACE INTO idempotency (workspace_id, key, fingerprint, status, body, headers, replay, created_at)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (
                    workspace_id,
                    key,
                    fingerprint,
                    status,
                    None if body is None else json.dumps(body),
                    json.dumps(headers),
                    json.dumps(replay) if replay is not None else None,
                    self._now(),
                ),
            )

    # -- meta ---------------------------------------------------------------
    def meta_get(self, name: str) -> str | None:
        with self.lock:
            row = self.conn.execute("SELECT value FROM meta WHERE name=?", (name,)).fetchone()
        return row[0] if row else None

    def meta_set(self, name: str, value: str) -> None:
        with self.lock:
            self.conn.execute("INSERT OR REPLACE INTO meta (name, value) VALUES (?,?)", (name, value))

    def insert_many(self, kind: str, docs: Iterable[dict], *, workspace_id: str | None = None) -> list[dict]:
        with self.lock:
            self.conn.execute("BEGIN")
            try:
                out = [self.insert(kind, d, workspace_id=workspace_id) for d in docs]
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        return out
