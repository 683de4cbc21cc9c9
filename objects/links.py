"""A record's relationships as the record page shows them: each link seen
from this record (which way it points, the other end), grouped by kind."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.web.reading import as_dict, text


@dataclass
class Link:
    relation_key: str
    direction: str  # "outgoing" (this record is the source) or "incoming"
    object_key: str
    record_id: str
    label: str
    metadata: dict
    title: str
    url: str = ""  # the other record's page (objects/names.py record_url)
    hidden: bool = False  # the other record is hidden from the reader by its object's access policy


def _end(value) -> tuple[str, str]:
    """An end of a link, read tolerantly: `{object, id}` (or object_key/record_id)."""
    if isinstance(value, dict):
        obj = value.get("object") or value.get("object_key") or value.get("key") or ""
        if isinstance(obj, dict):
            obj = obj.get("key") or obj.get("id") or ""
        return text(obj), text(value.get("id") or value.get("record_id") or "")
    return "", ""


def link_from(raw: dict, *, object_key: str, record_id: str) -> Link:
    """One relationship as seen from this record. The spec names only
    `direction` (`outgoing` when this record is the source) and "the other
    end"; the sandbox's shape is read with fallbacks for other spellings."""
    direction = text(raw.get("direction") or "")
    source = _end(raw.get("source") or raw.get("from"))
    target = _end(raw.get("target") or raw.get("to"))
    other = _end(raw.get("other") or raw.get("record") or raw.get("other_end"))
    if not other[1]:
        if direction == "outgoing" and target[1]:
            other = target
        elif source[1] and (source[1] != record_id or direction not in ("", "outgoing")):
            other = source
        elif target[1]:
            other = target
    if not other[1]:
        other = (
            text(raw.get("other_object") or raw.get("target_object") or ""),
            text(raw.get("other_id") or raw.get("target_id") or ""),
        )
    if not direction:
        direction = "outgoing" if source[1] == record_id or (not source[1] and other != source) else "incoming"
    if direction != "outgoing":
        direction = "incoming"
    title = ""
    for holder in (raw.get("other"), raw.get("target") if direction == "outgoing" else raw.get("source"), raw):
        if isinstance(holder, dict):
            title = text(holder.get("title") or holder.get("display_name") or holder.get("name") or "")
            if title:
                break
    metadata = as_dict(raw.get("metadata"))
    return Link(
        relation_key=text(raw.get("relation_key") or ""),
        direction=direction,
        object_key=other[0] or object_key,
        record_id=other[1],
        label=text(raw.get("label") or ""),
        metadata=metadata,
        title=title,
    )


def links_by_relation(raws: list[dict], *, object_key: str, record_id: str) -> list[tuple[str, list[Link]]]:
    """Links in both directions, grouped by `relation_key` (alphabetical)."""
    groups: dict[str, list[Link]] = {}
    for raw in raws:
        if isinstance(raw, dict):
            link = link_from(raw, object_key=object_key, record_id=record_id)
            groups.setdefault(link.relation_key, []).append(link)
    return sorted(groups.items())


def relation_label(relation_key: str) -> str:
    """A relation key in words: `related_to` -> "Related to"."""
    words = relation_key.replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else relation_key
