"""Roll back a document (#36 item 2): "make this the current version".

The service keeps only a document's latest content and has no call that
sets it: a document changes only by a revision turn (`POST
/v1/studio/document/turns` with its `artifact_id`, message at most 18,000
characters). So putting an earlier version back is a revision turn whose
message carries that version's whole content, word for word, with an
instruction to make the document exactly that again. What goes is said
before it is sent (the person confirms); a version too long to fit the
contract's limit with its instruction is refused in words (download it
instead), never cut. The result is a new turn and, once it completes, a new
kept version (studio/versions.py), so a roll back is itself in the history.

A website or an app has no content to send back: "go back to this" is a
turn asking the director for the state a kept result shows (its time, the
request that made it, its public address then) and naming, in order, the
requests made after it to undo. Said before sending; past the studio's
message limit it is refused in words, never cut.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.web.local_formats import integer
from studio.forms import MESSAGE_MAX_LENGTH
from studio.models import DocumentVersion, TurnResult

DOCUMENT_MESSAGE_MAX = 18000  # the contract's limit of a document turn's message

INSTRUCTION = (
    "Make this document exactly the following earlier version again, word for word: "
    "the same content, headings, order and wording, nothing added and nothing left out. "
    "It is the version of {when}, kept by Workspace Console.\n\n"
    "--- the version ({format}) ---\n"
)


@dataclass(frozen=True)
class Restore:
    """What "make this the current version" would send, or why it can't."""

    message: str
    problem: str

    @property
    def length(self) -> int:
        return len(self.message)


def restore_message(version: DocumentVersion, *, when: str) -> Restore:
    """The revision turn's message for `version` (`when`: its time in words)."""
    content = version.content or ""
    if not content.strip():
        return Restore(message="", problem="This version kept no content, so there is nothing to put back.")
    head = INSTRUCTION.format(when=when, format=version.content_format or "markdown")
    message = head + content
    if len(message) > DOCUMENT_MESSAGE_MAX:
        room = DOCUMENT_MESSAGE_MAX - len(head)
        return Restore(
            message="",
            problem=(
                f"This version is {integer(len(content))} characters long; a revision turn carries at most "
                f"{integer(room)} of them with its instruction (the service's limit is {integer(DOCUMENT_MESSAGE_MAX)} "
                "characters). Nothing was sent: download this version and paste the parts you need "
                "into a new turn instead."
            ),
        )
    return Restore(message=message, problem="")


def go_back_message(result: TurnResult, *, later: list[TurnResult], when: str) -> Restore:
    """The turn asking a website's or app's director to go back to `result`,
    undoing the `later` requests (oldest first). `when`: its time in words."""
    if not later:
        return Restore(message="", problem="This is the latest result the console kept: nothing was asked after it.")
    thing = "site" if result.studio == "website" else "app"
    lines = [
        f"Go back to the {thing} as it was on {when}, right after this request: “{' '.join(result.asked.split())}”.",
        # Sent to the director (the service) as the turn's message, not shown as the console's words: English.
        f"Undo every change asked for after it, keeping everything else as it is. The {len(later)} later "
        + ("request" if len(later) == 1 else "requests")
        + " to undo, oldest first:",
    ]
    lines += [f"{number}. “{' '.join(item.asked.split())}”" for number, item in enumerate(later, start=1)]
    if result.public_url:
        lines.append(f"Its public address then: {result.public_url}")
    message = "\n".join(lines)
    limit = MESSAGE_MAX_LENGTH.get(result.studio, 3800)
    if len(message) > limit:
        return Restore(
            message="",
            problem=(
                f"Going back over {len(later)} later requests takes a message of {integer(len(message))} characters; "
                f"the {result.studio} director takes at most {integer(limit)}. Nothing was sent: go back to a later "
                "result first, then further."
            ),
        )
    return Restore(message=message, problem="")
