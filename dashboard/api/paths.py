"""Remote paths with ids in them.

Every id put into a remote path goes through `api_path`, which quotes each
one whole (`/`, `?`, `#`, CR, LF and NUL included): an odd id can only ever
name a resource the service then answers 404 for, never another path.
"""

from __future__ import annotations

from urllib.parse import quote


def api_path(template: str, *ids: object) -> str:
    """`api_path("/v1/agents/{}/runs", agent_id)` -> `/v1/agents/<quoted id>/runs`."""
    return template.format(*(quote(str(value), safe="") for value in ids))
