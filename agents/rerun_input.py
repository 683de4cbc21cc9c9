"""Rerun with changes: what a person edited of a run's input, read and
compared with what woke the run (pure logic; the view is
agents/views/reruns.py, the form agents/forms.py's RerunEditForm, which
reads the typed event as the chat form does).

A run was woken by a message, an event payload (a JSON object), or both
(spec: `POST /v1/agents/{id}/runs` takes `message`, max 20000, and
`payload`, an object). The edit form is prefilled with both as the service
gave them; before anything is sent the person sees what changed, in words
(the message by words, dashboard/web/word_diff.py; the payload by the
runs comparison's JSON diff), and
sends only after that review.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from agents.run_compare import JsonDiff, json_diff
from dashboard.web.word_diff import WordChange, word_changes


def payload_text(payload: dict[str, Any] | None) -> str:
    """The payload as the edit form shows it: indented JSON, keys in the service's order."""
    if payload is None:
        return ""
    return json.dumps(payload, ensure_ascii=False, indent=2)


@dataclass
class InputChanges:
    """What the edited input changes of the run's, for the review."""

    message_before: str
    message_after: str
    payload_before: dict[str, Any] | None
    payload_after: dict[str, Any] | None
    message_words: list[WordChange] = field(default_factory=list)
    payload_diff: JsonDiff | None = None

    @property
    def message_changed(self) -> bool:
        return self.message_before != self.message_after

    @property
    def payload_changed(self) -> bool:
        return self.payload_before != self.payload_after

    @property
    def same(self) -> bool:
        return not self.message_changed and not self.payload_changed

    @property
    def digest(self) -> str:
        """What the review showed, as the Send button carries it: sending
        anything else goes back to the review."""
        return input_digest(self.message_after, self.payload_after)

    @property
    def empty(self) -> bool:
        """Nothing to send: the service needs a message or an event."""
        return not self.message_after and self.payload_after is None


def input_digest(message: str, payload: dict[str, Any] | None) -> str:
    body = json.dumps([message, payload], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()


def input_changes(
    *,
    message_before: str,
    payload_before: dict[str, Any] | None,
    message_after: str,
    payload_after: dict[str, Any] | None,
) -> InputChanges:
    changes = InputChanges(
        message_before=message_before,
        message_after=message_after,
        payload_before=payload_before,
        payload_after=payload_after,
    )
    if changes.message_changed:
        changes.message_words = word_changes(message_before, message_after)
    if changes.payload_changed:
        changes.payload_diff = json_diff(payload_before, payload_after)
    return changes
