"""Two texts compared by words (pure): what a review or a diff marks as
taken out and put in, inside a line rather than the whole line. Words and
punctuation are compared, never the spaces between them (they go with the
word before), so a changed date or name stands out in a long message.
Used by a run's rerun with changes and by a document's versions compared."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

SAME, REMOVED, ADDED = "same", "removed", "added"
MAX_WORDS = 4000  # per side: difflib is quadratic in the worst case; past it the texts are one change


@dataclass(frozen=True)
class WordChange:
    """One piece of the text: kept (SAME), taken out (REMOVED) or put in (ADDED)."""

    kind: str
    text: str


def _tokens(text: str) -> list[tuple[str, str]]:
    """(word or punctuation, the spaces after it); leading spaces are a token of their own."""
    lead = text[: len(text) - len(text.lstrip())]
    found = re.findall(r"(\w+|[^\w\s]+)(\s*)", text)
    return ([("", lead)] if lead else []) + found


def word_changes(before: str, after: str) -> list[WordChange]:
    """`before` -> `after` as pieces, neighbours of one kind joined."""
    old, new = _tokens(before), _tokens(after)
    pieces: list[WordChange] = []

    def add(kind: str, text: str) -> None:
        if pieces and pieces[-1].kind == kind:
            pieces[-1] = WordChange(kind, pieces[-1].text + text)
        elif text:
            pieces.append(WordChange(kind, text))

    if len(old) > MAX_WORDS or len(new) > MAX_WORDS:
        add(REMOVED, before)
        add(ADDED, after)
        return pieces
    matcher = difflib.SequenceMatcher(a=[t[0] for t in old], b=[t[0] for t in new], autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            add(SAME, "".join(word + space for word, space in new[b1:b2]))
            continue
        add(REMOVED, "".join(word + space for word, space in old[a1:a2]))
        add(ADDED, "".join(word + space for word, space in new[b1:b2]))
    return pieces
