"""Telling apart approvals whose summaries are the same on one list: "Send
the email to sales@" six times reads as one approval six times. For each
group of equal summaries, the first part of the input whose values differ
inside the group ("to: bob@example.com"), else the approval's own id. Pure
(no query, no call): the queue and the inbox call it over what they show."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

# Parts of an input a person tells actions apart by, tried first.
LIKELY = ("to", "recipient", "recipients", "email", "subject", "name", "title", "record", "record_id", "amount")
MAX_WORDS = 60
# Shared first characters worth leaving out (shorter: the whole value reads better).
MIN_SHARED = 12


def _parts(value: Any, prefix: str = "") -> dict[str, str]:
    """The input's scalar parts, one level deep ("customer.email"), in order, as text."""
    if not isinstance(value, dict):
        return {prefix or "input": _words(value)} if value not in (None, "", [], {}) else {}
    found: dict[str, str] = {}
    for key, part in value.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(part, dict) and not prefix:
            found.update(_parts(part, name))
        elif isinstance(part, (str, int, float, bool)) or (isinstance(part, list) and len(part) <= 5):
            found[name] = _words(part)
    return found


def _words(value: Any) -> str:
    if isinstance(value, list):
        value = ", ".join(str(part) for part in value)
    text = str(value).replace("\n", " ").strip()
    return text if len(text) <= MAX_WORDS else text[: MAX_WORDS - 1] + "…"


def _differing(parts: list[dict[str, str]]) -> str:
    """The name of the first part whose values are not all the same ("" if none)."""
    names = list(dict.fromkeys(name for found in parts for name in found))

    def rank(pair: tuple[int, str]) -> tuple[int, int]:
        last = pair[1].rsplit(".", 1)[-1]
        return (LIKELY.index(last) if last in LIKELY else len(LIKELY), pair[0])

    ranked = sorted(enumerate(names), key=rank)
    for _, name in ranked:
        if len({found.get(name, "") for found in parts}) > 1:
            return name
    return ""


def _shared_start(values: list[str]) -> int:
    """Where the values stop sharing their first words (0 when they share few):
    "Qualify the lead number 3" and "… number 7" differ at "3"."""
    common = os.path.commonprefix([value for value in values if value])
    cut = common.rfind(" ") + 1
    return cut if cut >= MIN_SHARED else 0


def tell_apart(approvals: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Approval id -> a short phrase telling it from the others with the same
    summary (only those that share one have an entry)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for approval in approvals:
        if approval.get("id"):
            groups[str(approval.get("summary") or "").strip().casefold()].append(approval)
    phrases: dict[str, str] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        parts = [_parts(approval.get("input")) for approval in group]
        name = _differing(parts)
        shared = _shared_start([found.get(name, "") for found in parts]) if name else 0
        for approval, found in zip(group, parts, strict=True):
            value = found.get(name, "") if name else ""
            if value and shared:
                value = "…" + value[shared:]  # where the twins differ, not the words they share
            phrases[str(approval["id"])] = f"{name}: {value}" if value else f"approval {approval['id']}"
    return phrases
