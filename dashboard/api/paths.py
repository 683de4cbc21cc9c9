"""Remote paths with ids in them.

Every id put into a remote path goes through `api_path`, which quotes each
one whole (`/`, `?`, `#`, CR, LF and NUL included): an odd id can only ever
name a resource the service then answers 404 for, never another path. An
id of `.` or `..` is a dot segment that URL normalisation (httpx's, any
proxy's) would resolve away, turning `/v1/agents/..` into `/v1`: its dots
are percent-encoded too.
"""

from __future__ import annotations

from urllib.parse import quote


def quote_id(value: object) -> str:
    quoted = quote(str(value), safe="")
    return quoted.replace(".", "%2E") if quoted in (".", "..") else quoted


def api_path(template: str, *ids: object) -> str:
    """`api_path("/v1/agents/{}/runs", agent_id)` -> `/v1/agents/<quoted id>/runs`."""
    return template.format(*(quote_id(value) for value in ids))
