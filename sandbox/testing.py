"""Start a sandbox inside the test process: `start_sandbox()`.

handle = start_sandbox(time_scale=0.002)
handle.base_url      # "http://127.0.0.1:PORT" (paths begin with /v1)
handle.demo_key      # a key of the seeded demo workspace (member role admin)
handle.mint_key("readonly")   # demo | member | readonly | revoked | no_credits | other_workspace
handle.revoke_key(key_id)     # revoked in the product's API settings: every call with it answers 401
handle.advance(service_seconds=180)  # skip 180 simulated seconds: work started earlier is done
handle.clock         # the server's Clock (`handle.clock.advance(real_seconds)`)
handle.stop()
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.clock import Clock
from sandbox.core import App, Config
from sandbox.seed import create_key
from sandbox.server import build_app, start_in_thread


@dataclass
class SandboxHandle:
    app: App
    server: object
    thread: object
    base_url: str
    demo_key: str

    @property
    def store(self):
        return self.app.store

    @property
    def clock(self) -> Clock:
        """The clock every request of this server reads "now" from."""
        return self.app.clock

    def advance(self, *, service_seconds: float) -> None:
        """Move the server's clock forward by `service_seconds` of simulated
        time (the durations in sandbox/*.py, e.g. `WEBSITE_BUILD_SECONDS`),
        scaled to real seconds like every duration. Real time keeps flowing,
        and the move is for every request and every test sharing this server."""
        self.clock.advance(self.clock.real_seconds(service_seconds))

    def mint_key(self, kind: str = "demo") -> str:
        """A fresh secret of this kind (see sandbox/README.md, Key kinds)."""
        return create_key(self.app.store, self.app.clock, kind)

    def revoke_key(self, key_id: str, *, revoked: bool = True) -> None:
        """Revoke the key with this id (`key.id` in its /v1/me), as a
        workspace admin does in the product's API settings; `revoked=False`
        restores it. Raises LookupError for an unknown id."""
        if not self.store.api_key_revoke(key_id, revoked=revoked):
            raise LookupError(key_id)

    def insert_records(self, object_id: str, rows: list[dict]) -> int:
        """Many records of one custom object at once, checked and normalised
        as the records endpoint does (choice labels become option ids), in
        one transaction: 10,000 records in seconds, for tests and benchmarks
        that need volume rather than the write path."""
        return len(self.insert_record_ids(object_id, rows))

    def insert_record_ids(self, object_id: str, rows: list[dict]) -> list[str]:
        """As `insert_records`, answering the new records' ids in order."""
        from sandbox.records import check_values

        obj = self.store.get("object", object_id)
        if obj is None:
            raise LookupError(object_id)
        docs = [{"object_id": obj["id"], "values": check_values(obj, values, creating=True)} for values in rows]
        return [doc["id"] for doc in self.store.insert_many("record", docs, workspace_id=obj["workspace_id"])]

    def insert_links(self, relation_key: str, source_object_id: str, target_object_id: str, pairs) -> int:
        """Many links at once (source record id, target record id), in one
        transaction, as the relationships endpoint stores them."""
        source, target = self.store.get("object", source_object_id), self.store.get("object", target_object_id)
        if source is None or target is None:
            raise LookupError(source_object_id if source is None else target_object_id)
        docs = [
            {
                "relation_key": relation_key,
                "source_object": source["key"],
                "source_object_id": source["id"],
                "source_id": source_id,
                "target_object": target["key"],
                "target_object_id": target["id"],
                "target_id": target_id,
                "label": "",
                "metadata": {},
            }
            for source_id, target_id in pairs
        ]
        return len(self.store.insert_many("relationship", docs, workspace_id=source["workspace_id"]))

    def record_ids(self, object_id: str) -> list[str]:
        """The ids of an object's records, oldest first (as `insert_records` wrote them)."""
        return [doc["id"] for doc in self.store.list("record", where={"object_id": object_id})]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
        self.app.store.close()


def start_sandbox(
    *,
    time_scale: float = 0.002,
    db_path: str = ":memory:",
    port: int = 0,
    rate_limit_per_minute: int | None = None,
    app_url: str | None = None,
) -> SandboxHandle:
    """Serve a sandbox on 127.0.0.1 in a background thread. No rate limit
    unless `rate_limit_per_minute` is given."""
    config = Config(time_scale=time_scale, rate_limit_per_minute=rate_limit_per_minute, app_url=app_url)
    app = build_app(db_path=str(db_path), config=config)
    server, thread = start_in_thread(app, port=port)
    base_url = f"http://127.0.0.1:{server.server_port}"
    demo_key = create_key(app.store, app.clock, "demo", name="demo key")
    return SandboxHandle(app=app, server=server, thread=thread, base_url=base_url, demo_key=demo_key)
