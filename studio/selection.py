"""The library's selection of images (issue #36, item 3): kept in the
person's session, one per workspace, so it survives paging, a search and
a board filter, and is gone when they sign out.

At most MAX_SELECTION images (the ZIP's own bound, studio/library_zip.py):
an add past it keeps what fits and says how many were left out. Only ids are
kept (never a picture or a prompt): every action reads the images again
from the service with the person's key (`studio.library.images_by_ids`), so
an image of another workspace never slips in through the session.

The session key carries the workspace id of the working key: another
workspace's selection is never shown or used (a person with two keys has
two selections; switching keys switches them).

Reads: `selection_ids`. Writes: `selection_apply` (a page's boxes),
`selection_add`, `selection_clear`; each returns a `SelectionChange`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from studio.library_zip import MAX_ZIP_IMAGES
from studio.reading import usable_id

MAX_SELECTION = MAX_ZIP_IMAGES
SESSION_PREFIX = "studio_selection:"


@dataclass(frozen=True)
class SelectionChange:
    count: int  # images selected now
    added: int = 0
    left_out: int = 0  # not added: the selection was full

    @property
    def words(self) -> str:
        """What happened, in words (empty when nothing needs saying)."""
        if not self.left_out:
            return ""
        return (
            f"The selection holds at most {MAX_SELECTION} images: {self.left_out} "
            f"{'was' if self.left_out == 1 else 'were'} left out."
        )


def _key(workspace_id: str) -> str:
    return SESSION_PREFIX + workspace_id


def _clean(ids: Iterable[Any]) -> list[str]:
    return list(dict.fromkeys(value for value in (usable_id(raw) for raw in ids) if value))


def selection_ids(*, session: Any, workspace_id: str) -> list[str]:
    """The selected image ids, in the order they were selected."""
    if not workspace_id:
        return []
    return _clean(session.get(_key(workspace_id)) or [])[:MAX_SELECTION]


def _store(session: Any, workspace_id: str, ids: list[str]) -> None:
    if ids:
        session[_key(workspace_id)] = ids
    else:
        session.pop(_key(workspace_id), None)


def selection_add(*, session: Any, workspace_id: str, ids: Iterable[Any]) -> SelectionChange:
    """Add images (those already selected stay where they are)."""
    have = selection_ids(session=session, workspace_id=workspace_id)
    new = [value for value in _clean(ids) if value not in have]
    room = max(MAX_SELECTION - len(have), 0)
    _store(session, workspace_id, have + new[:room])
    return SelectionChange(count=len(have) + len(new[:room]), added=len(new[:room]), left_out=len(new[room:]))


def selection_apply(*, session: Any, workspace_id: str, shown: Iterable[Any], picked: Iterable[Any]) -> SelectionChange:
    """A page's boxes: of the images `shown` on it, those `picked` are
    selected and the others are not; images of other pages stay as they are."""
    shown_ids, picked_ids = set(_clean(shown)), _clean(picked)
    current = selection_ids(session=session, workspace_id=workspace_id)
    _store(session, workspace_id, [value for value in current if value not in shown_ids or value in picked_ids])
    return selection_add(session=session, workspace_id=workspace_id, ids=picked_ids)


def selection_clear(*, session: Any, workspace_id: str) -> SelectionChange:
    _store(session, workspace_id, [])
    return SelectionChange(count=0)
