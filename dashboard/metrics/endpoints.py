"""Remote paths as endpoint templates: the `endpoint` label of the remote-call series.

A label value must come from a set that cannot grow with the data, or every
new agent, record or turn id would make a new series (and put ids, which may
be personal, into the metrics). So a path is matched against the contract's
endpoints (../shared/api-spec.md, "Endpoints"), written out below, and each
id segment is replaced by its name: `/v1/agents/agt_1/runs` ->
`/v1/agents/{id}/runs`. A path the table does not know is `other`, never
itself: the label set stays exactly the table plus one value, whatever a
caller (or a future endpoint) sends. A segment listed as a choice (the
studio of a turn, `image` or `video` of a Content App) is kept when it is
one of the contract's words, as it says which studio is slow.
"""

from __future__ import annotations

from functools import lru_cache

OTHER = "other"

# `{name}` matches any one segment; `{name:a|b}` keeps the segment when it is
# one of the words, else shows `{name}`.
TEMPLATES = (
    "/v1/me",
    "/v1/studio/{studio:website|document|app|image|video}/turns",
    "/v1/turns/{id}",
    "/v1/studio/apps",
    "/v1/studio/{studio:image|video}/apps/{app}",
    "/v1/websites",
    "/v1/websites/{id}",
    "/v1/documents",
    "/v1/documents/{id}",
    "/v1/apps",
    "/v1/apps/{id}",
    "/v1/images/boards",
    "/v1/images",
    "/v1/videos",
    "/v1/agents",
    "/v1/agents/{id}",
    "/v1/agents/{id}/activate",
    "/v1/agents/{id}/pause",
    "/v1/agents/{id}/runs",
    "/v1/runs/{id}",
    "/v1/approvals",
    "/v1/approvals/{id}",
    "/v1/objects",
    "/v1/objects/{object}",
    "/v1/objects/{object}/records",
    "/v1/objects/{object}/records/{id}",
    "/v1/objects/{object}/records/{id}/relationships",
)


def _segments(path: str) -> list[str]:
    return [segment for segment in path.split("?", 1)[0].split("#", 1)[0].split("/") if segment]


def _compiled() -> list[tuple[str, list[tuple[str, frozenset[str] | None]]]]:
    """Each template as (template, [(literal or placeholder, choices)])."""
    table = []
    for template in TEMPLATES:
        parts: list[tuple[str, frozenset[str] | None]] = []
        for segment in _segments(template):
            if segment.startswith("{"):
                name, _, words = segment.strip("{}").partition(":")
                parts.append(("{" + name + "}", frozenset(words.split("|")) if words else frozenset()))
            else:
                parts.append((segment, None))
        table.append((template, parts))
    return table


_TABLE = _compiled()


@lru_cache(maxsize=4096)
def endpoint_template(path: str) -> str:
    """The contract's endpoint a remote path calls, its ids replaced by their names
    (`/v1/objects/contacts/records/rec_1` -> `/v1/objects/{object}/records/{id}`);
    `other` for a path the contract does not list. Cached: the poller calls
    the same few paths over and over."""
    segments = _segments(path)
    for _template, parts in _TABLE:
        if len(parts) != len(segments):
            continue
        shown: list[str] = []
        for (part, choices), segment in zip(parts, segments):
            if choices is None:
                if part != segment:
                    break
                shown.append(part)
            else:
                shown.append(segment if segment in choices else part)
        else:
            return "/" + "/".join(shown)
    return OTHER
