"""The kinds of long operation the console knows how to follow.

Each area app lists its kinds in the Area it registers in its
AppConfig.ready() (`dashboard.frame.areas`), which registers them here::

    OperationKind(
        name="studio.turn",
        title="Studio turn",
        fetch=lambda client, op: client.get(api_path("/v1/turns/{}", op.remote_id)),
        read_status=lambda snapshot: snapshot.get("status"),
        final_statuses={"completed", "needs_input", "failed"},
        template="studio/turn_snapshot.html",
        person_needed=lambda snapshot: snapshot.get("status") == "needs_input",
    )

The poller only ever calls `fetch` and `read_status`; the status partial only
ever renders `template` from the stored snapshot. A kind that is not (or no
longer) registered still renders, as generic JSON, so an old row never
breaks a page.

How an area uses it (see studio/ for a complete example):

1. Start the remote operation in background mode, then record it:
   `dashboard.live.services.operation_track(owner_key=..., user=..., kind=...,
   remote_id=..., title=..., snapshot=<the 202 body>, context={...})`.
   The same (owner key, kind, remote id) is always one row.
2. Show it live: `live = dashboard.live.selectors.operation_view(op=op, request=request)`
   and `{% include "live/operation.html#status" %}` (with `op` and `live` in the
   context) for the full region, or `{% include "live/operation.html#status_row" %}`
   inside a `<ul class="live-list">` for a list row. Both poll `live:status`
   every 2 s with the version they show (answered 204, nothing rendered,
   while it is current) until final (answered 286, rendered without the
   trigger).
3. The kind's `template` is included with `op`, `snapshot` (the stored dict)
   and `extra` (what `context(op, snapshot, request)` returned). Read the
   snapshot tolerantly; `{% load live_tags %}{% json_view value %}` shows any
   shape readably.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dashboard.api import ServiceClient
    from dashboard.live.models import TrackedOperation

GENERIC_TEMPLATE = "live/generic_snapshot.html"


def status_member(snapshot: dict) -> str | None:
    """The usual place of a status: the snapshot's top-level `status`."""
    value = snapshot.get("status") if isinstance(snapshot, dict) else None
    return str(value) if value not in (None, "") else None


@dataclass(frozen=True)
class OperationKind:
    name: str
    title: str
    # (client, op) -> the latest snapshot of the remote operation (a dict).
    fetch: Callable[[ServiceClient, TrackedOperation], dict]
    final_statuses: frozenset[str]
    template: str = GENERIC_TEMPLATE
    read_status: Callable[[dict], str | None] = status_member
    # (op, snapshot, request) -> extra template context (forms, derived values).
    context: Callable[..., dict[str, Any]] | None = None
    # op -> the area's own page for this operation (defaults to live:detail).
    page_url: Callable[[TrackedOperation], str] | None = None
    # snapshot -> whether the operation waits for a person (an answer, a
    # decision): what an inbox of things waiting on people gathers.
    person_needed: Callable[[dict], bool] | None = None
    # How often a browser showing the operation asks the console (seconds).
    # Unchanged answers cost one query; a kind whose state is pushed to its
    # row the moment it changes (a streamed call) is watched more closely.
    watch_seconds: float = 2.0
    # ([operation ids]) -> None: called after rows of this kind were stored
    # final (by a poll batch or a pushed state), outside their lease. It may
    # be called again for the same row (a retried batch): it must be
    # idempotent. Its failure is logged, never the poll's (Studio keeps a
    # document's version here).
    on_final: Callable[[list[int]], None] | None = None
    # op -> whether its news is the person's to be told (a toast): a row
    # tracked only so a list can show it live tells nobody anything until
    # the person chose to follow it. None: always.
    announced: Callable[[TrackedOperation], bool] | None = None
    # Whether a row of this kind is work its person started (a message, a
    # turn). False: rows tracked only to show others' work live (a run a
    # list showed, a run followed by choice): never "yours" on the home page.
    started_by_person: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "final_statuses", frozenset(self.final_statuses))

    def is_final(self, status: str | None) -> bool:
        return status is not None and status in self.final_statuses

    def announces(self, op: TrackedOperation) -> bool:
        return self.announced is None or bool(self.announced(op))

    def needs_person(self, snapshot: dict) -> bool:
        """Whether the operation in this state waits for a person."""
        if self.person_needed is None or not isinstance(snapshot, dict):
            return False
        return bool(self.person_needed(snapshot))


@dataclass
class _Registry:
    kinds: dict[str, OperationKind] = field(default_factory=dict)

    def register(self, kind: OperationKind) -> OperationKind:
        existing = self.kinds.get(kind.name)
        if existing is not None and existing is not kind and existing != kind:
            raise ValueError(f"operation kind {kind.name!r} is already registered")
        self.kinds[kind.name] = kind
        return kind

    def get(self, name: str) -> OperationKind | None:
        return self.kinds.get(name)

    def names(self) -> Iterable[str]:
        return sorted(self.kinds)


_registry = _Registry()


def register(kind: OperationKind) -> OperationKind:
    """Add a kind; registering the same kind again (a second ready()) is harmless."""
    return _registry.register(kind)


def get_kind(name: str) -> OperationKind | None:
    return _registry.get(name)


def watched_kind_names() -> list[str]:
    """The kinds whose rows are never work their person started (`started_by_person` False)."""
    return [kind.name for kind in _registry.kinds.values() if not kind.started_by_person]


def kind_names() -> list[str]:
    """Every registered kind's name (the metrics make their series at zero from it)."""
    return list(_registry.names())


def unregister(name: str) -> None:
    """For tests that register a throwaway kind."""
    _registry.kinds.pop(name, None)
