"""Seeding: the workspaces, members and keys every sandbox has, plus the hook
through which each area adds its demo data.

The seed runs once per database (a `meta` row remembers it), so a file
database keeps its state across restarts. Everything is deterministic: ids
and sample values come from `ctx.rng(name)`, a `random.Random` seeded from
the config seed and the hook's name.
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.clock import Clock
from sandbox.core import KEY_PREFIX, Config, hash_secret
from sandbox.storage import Store

SEED_VERSION = "1"

# Fixed ids so the demo workspace is the same on every machine.
DEMO_WORKSPACE_ID = "6f1c2a7e-0b8d-4c3e-9a51-2d7f4e8b9c10"
OTHER_WORKSPACE_ID = "a3d5e7f9-1b2c-4d6e-8f0a-3c5e7a9b1d20"
NO_CREDITS_WORKSPACE_ID = "c9e1a3b5-7d2f-4a6c-8e0b-5f7a9c1e3b30"

WORKSPACES = [
    {"id": DEMO_WORKSPACE_ID, "name": "Acme Marketing", "timezone": "Europe/Berlin", "credits": 1_000_000},
    {"id": OTHER_WORKSPACE_ID, "name": "Globex Research", "timezone": "America/New_York", "credits": 100_000},
    {"id": NO_CREDITS_WORKSPACE_ID, "name": "Initech Trial", "timezone": "Asia/Tokyo", "credits": 0},
]

MEMBERS = [
    {
        "id": "0a9b8c7d-6e5f-4a3b-8c1d-0e9f8a7b6c51",
        "workspace_id": DEMO_WORKSPACE_ID,
        "name": "Dana Admin",
        "email": "dana@acme.example",
        "role": "admin",
        "slot": "demo",
    },
    {
        "id": "1b2c3d4e-5f6a-4b7c-9d8e-1f2a3b4c5d62",
        "workspace_id": DEMO_WORKSPACE_ID,
        "name": "Morgan Member",
        "email": "morgan@acme.example",
        "role": "member",
        "slot": "member",
    },
    {
        "id": "2c3d4e5f-6a7b-4c8d-8e9f-2a3b4c5d6e73",
        "workspace_id": DEMO_WORKSPACE_ID,
        "name": "Vic Viewer",
        "email": "vic@acme.example",
        "role": "viewer",
        "slot": "readonly",
    },
    {
        "id": "3d4e5f6a-7b8c-4d9e-9f0a-3b4c5d6e7f84",
        "workspace_id": OTHER_WORKSPACE_ID,
        "name": "Grace Globex",
        "email": "grace@globex.example",
        "role": "admin",
        "slot": "other_workspace",
    },
    {
        "id": "4e5f6a7b-8c9d-4e0f-8a1b-4c5d6e7f8a95",
        "workspace_id": NO_CREDITS_WORKSPACE_ID,
        "name": "Ian Initech",
        "email": "ian@initech.example",
        "role": "admin",
        "slot": "no_credits",
    },
]

# Key kind -> member slot (the member the key acts as) and whether it is revoked.
KEY_KINDS = {
    "demo": ("demo", False),
    "member": ("member", False),
    "readonly": ("readonly", False),
    "revoked": ("demo", True),
    "no_credits": ("no_credits", False),
    "other_workspace": ("other_workspace", False),
}


@dataclass
class SeedContext:
    """What a seed hook gets: `store`, `clock`, `config`, `rng(name)`,
    `demo_workspace_id`, `workspaces` (slot -> id: demo, other_workspace,
    no_credits), `members` (slot -> member doc: demo, member, readonly, ...)."""

    store: Store
    clock: Clock
    config: Config
    demo_workspace_id: str = DEMO_WORKSPACE_ID
    workspaces: dict = field(default_factory=dict)
    members: dict = field(default_factory=dict)

    def rng(self, name: str) -> random.Random:
        return random.Random(f"{self.config.seed}:{name}")

    def uuid(self, rng: random.Random) -> str:
        """A deterministic UUID4 drawn from `rng`."""
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))


SEED_HOOKS: list[tuple[int, str, Callable[[SeedContext], None]]] = []


def seed_hook(name: str, *, order: int = 100):
    """Register `fn(ctx: SeedContext)` to add demo data on first start.
    Core accounts run at order 0, the Objects demo data at 10, the Studio and
    Agents data at 100+. Hooks run once per database, in order."""

    def decorator(fn):
        if not any(n == name for _, n, _ in SEED_HOOKS):
            SEED_HOOKS.append((order, name, fn))
        return fn

    return decorator


def make_context(store: Store, clock: Clock, config: Config) -> SeedContext:
    ctx = SeedContext(store=store, clock=clock, config=config)
    ctx.workspaces = {
        "demo": DEMO_WORKSPACE_ID,
        "other_workspace": OTHER_WORKSPACE_ID,
        "no_credits": NO_CREDITS_WORKSPACE_ID,
    }
    ctx.members = {m["slot"]: store.get("member", m["id"]) or m for m in MEMBERS}
    return ctx


def run_seed(store: Store, clock: Clock, config: Config) -> None:
    with store.lock:
        # Each hook runs once per database: a hook added later still runs on a
        # database seeded before it existed.
        done = set((store.meta_get("seed_hooks_done") or "").split(",")) - {""}
        if all(name in done for _, name, _ in SEED_HOOKS):
            return
        ctx = make_context(store, clock, config)
        for _order, name, fn in sorted(SEED_HOOKS, key=lambda h: (h[0], h[1])):
            if name in done:
                continue
            fn(ctx)
            done.add(name)
            store.meta_set("seed_hooks_done", ",".join(sorted(done)))
        store.meta_set("seeded", SEED_VERSION)


@seed_hook("accounts", order=0)
def seed_accounts(ctx: SeedContext) -> None:
    for ws in WORKSPACES:
        ctx.store.insert("workspace", dict(ws))
    for m in MEMBERS:
        ctx.store.insert("member", dict(m), workspace_id=m["workspace_id"])
    ctx.members = {m["slot"]: ctx.store.get("member", m["id"]) for m in MEMBERS}
    from sandbox.objects import ensure_system_objects

    for ws in WORKSPACES:
        ensure_system_objects(ctx.store, ws["id"])


def create_key(store: Store, clock: Clock, kind: str, *, name: str | None = None) -> str:
    """Mint a fresh secret of a key kind (demo, member, readonly, revoked,
    no_credits, other_workspace) and store only its hash."""
    if kind not in KEY_KINDS:
        raise ValueError(f"unknown key kind {kind!r}; one of {', '.join(KEY_KINDS)}")
    slot, revoked = KEY_KINDS[kind]
    member = next(m for m in MEMBERS if m["slot"] == slot)
    secret = KEY_PREFIX + secrets.token_urlsafe(30).replace("-", "x").replace("_", "y")
    store.add_api_key(
        hash=hash_secret(secret),
        id=str(uuid.uuid4()),
        workspace_id=member["workspace_id"],
        member_id=member["id"],
        name=name or f"{kind} key",
        prefix=secret[:12],
        kind=kind,
        revoked=revoked,
        created_at=clock.iso(),
    )
    return secret
