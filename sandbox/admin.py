"""Administration without a running server (the console's bootstrap uses it)."""

from __future__ import annotations

import os

from sandbox.seed import KEY_KINDS, create_key
from sandbox.server import DEFAULT_DB, build_app, config_from_env


def mint_key(*, db_path: str | None = None, kind: str = "demo", name: str | None = None) -> str:
    """Open (and seed if new) the sandbox database at `db_path` and return a
    fresh key of `kind`. Safe while a sandbox server uses the same file."""
    if kind not in KEY_KINDS:
        raise ValueError(f"unknown key kind {kind!r}; one of {', '.join(KEY_KINDS)}")
    app = build_app(db_path=db_path or os.environ.get("SANDBOX_DB", DEFAULT_DB), config=config_from_env())
    try:
        return create_key(app.store, app.clock, kind, name=name)
    finally:
        app.store.close()
