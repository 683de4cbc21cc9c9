from __future__ import annotations

import contextlib
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from dashboard.idempotency import IdempotencyKeyField
from dashboard.web.counted import CountedCharField, CountedTextarea, over_limit_words
from dashboard.web.local_formats import integer

# The five studios, what each makes, and the longest `message` each accepts (spec, "Limits").
STUDIOS: list[tuple[str, str, int]] = [
    ("website", "Website", 3800),
    ("document", "Document", 18000),
    ("app", "App", 18000),
    ("image", "Image", 3800),
    ("video", "Video", 3800),
]
STUDIO_LABELS = {name: label for name, label, _ in STUDIOS}
MESSAGE_MAX_LENGTH = {name: limit for name, _, limit in STUDIOS}
LONGEST_MESSAGE = max(MESSAGE_MAX_LENGTH.values())
STUDIO_MAKES = {
    "website": "Websites: a new site built and published in minutes, or changes to one (the Page Editor).",
    "document": "Documents: decks, proposals, resumes, invoices, one-pagers and reports, written from your facts.",
    "app": "Apps on your workspace's objects: screens, data and actions, compiled and published.",
    "image": "Images on a board: one to four at a time, in the size and aspect you ask for.",
    "video": "Video projects: trims, reorders, titles, overlays and music; paid shots come back as requests.",
}


def message_noun(studio: str) -> str:
    """Whose limit it is, as the refusal names it ("Website messages")."""
    return f"{STUDIO_LABELS.get(studio, 'Studio')} messages"


def too_long(studio: str, message: str) -> str | None:
    """The refusal of a message over the studio's limit, naming the limit."""
    limit = MESSAGE_MAX_LENGTH.get(studio, LONGEST_MESSAGE)
    if len(message) <= limit:
        return None
    return over_limit_words(message_noun(studio), limit, len(message))


class StudioSelect(forms.Select):
    """A studio select whose options carry their message limit (and whose limit
    it is, for the refusal's words), so the message box's counter and refusal
    follow the chosen studio (static/js/counted.js, `data-limit-select`)."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if value in MESSAGE_MAX_LENGTH:
            option["attrs"]["data-max-length"] = MESSAGE_MAX_LENGTH[value]
            option["attrs"]["data-limit-noun"] = message_noun(value)
        return option


class TurnForm(forms.Form):
    """Start a conversation with a studio's director, about something new or
    about an item picked from the library (its id travels in a hidden field
    the console fills; the server checks it against the service)."""

    studio = forms.ChoiceField(
        choices=[(name, label) for name, label, _ in STUDIOS],
        initial="website",
        widget=StudioSelect(attrs={"data-studio-select": ""}),
    )
    # The limit follows the studio (checked in clean); the box carries the
    # longest as the counter's fallback when the studio select is absent.
    message = CountedCharField(
        limit=None,
        widget=CountedTextarea(
            attrs={
                "rows": 5,
                "data-limit-select": "studio",
                "data-max-length": str(LONGEST_MESSAGE),
                "data-limit-noun": "Messages",
            }
        ),
        help_text=gettext_lazy(
            "Website, image and video messages take up to 3,800 characters; documents and apps up to 18,000."
        ),
    )
    artifact_id = forms.UUIDField(required=False, widget=forms.HiddenInput)
    auto = forms.BooleanField(
        required=False,
        label=gettext_lazy("Decide for me"),
        help_text=gettext_lazy("The director makes it now instead of asking questions first."),
    )
    idempotency_key = IdempotencyKeyField()

    @classmethod
    def initial_from(cls, query) -> dict:
        """Initial values from a link (`?studio=&artifact_id=`); anything malformed is ignored."""
        initial = {}
        if query.get("studio") in MESSAGE_MAX_LENGTH:
            initial["studio"] = query["studio"]
        with contextlib.suppress(forms.ValidationError):
            initial["artifact_id"] = cls.base_fields["artifact_id"].clean(query.get("artifact_id") or "") or None
        return {key: value for key, value in initial.items() if value}

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data  # what Form.clean returns; its stub says it may be None
        studio, message = cleaned.get("studio"), cleaned.get("message")
        # Checked even when the studio is invalid (the longest limit then), so
        # no over-long message passes because another field was wrong.
        if message and (refusal := too_long(studio or "", message)):
            self.add_error("message", refusal)
        return cleaned


class MessageForm(forms.Form):
    """One more message in a conversation: the composer, an option button, a
    free answer, "decide for me", an outline's approval. The studio, the
    conversation and the artifact come from the stored turns, never from the
    browser."""

    message = CountedCharField(
        limit=None,
        widget=CountedTextarea(attrs={"rows": 4}),
        label=gettext_lazy("Your message"),
    )
    auto = forms.BooleanField(required=False, label=gettext_lazy("Decide for me"))
    idempotency_key = IdempotencyKeyField()

    def __init__(self, *args, studio: str = "", **kwargs):
        # The composer's ids (composer-message, composer-message_error...): the page's links and scripts name them.
        kwargs.setdefault("auto_id", "composer-%s")
        super().__init__(*args, **kwargs)
        self.studio = studio
        limit = MESSAGE_MAX_LENGTH.get(studio, LONGEST_MESSAGE)
        self.limit = limit
        self.fields["message"].label = f"Your message to the {STUDIO_LABELS.get(studio, 'studio').lower()} director"
        self.fields["message"].help_text = f"Up to {integer(limit)} characters."
        # No maxlength: the browser would cut a long paste without a word (CountedCharField).
        self.fields["message"].widget.attrs["data-max-length"] = str(limit)
        self.fields["message"].widget.attrs["data-limit-noun"] = message_noun(studio)
        self.fields["message"].error_messages["required"] = "Write a message, or pick one of the answers above."

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data  # what Form.clean returns; its stub says it may be None
        message = cleaned.get("message")
        if message and (refusal := too_long(self.studio, message)):
            self.add_error("message", refusal)
        return cleaned


# What the conversation's one-click buttons send (studio/pages.py); a take's
# brief leaves them out (studio/takes.py): they say nothing of what to make.
DECIDE_MESSAGE = "Decide for me and make it now."
APPROVE_OUTLINE_MESSAGE = "The outline is approved: write it."

# What a read-only member is told by every write address of the Studio (`requires_write`).
READ_ONLY = (
    "Conversations and Content App runs can be started only by a member who may write: "
    "ask a workspace admin for such a role."
)

# A refusal of a reused Idempotency-Key names no field: say what to do about it.
CONFLICT_MESSAGE = (
    "This form was already sent with different content, so the service refused it. "
    "Check the conversation, then send it again."
)


class TryAgainForm(forms.Form):
    """ "Try again" on a failed turn or Content App run: nothing but its key.
    What is sent again is read from the stored turn or run, never from the
    browser. The key is minted when the button is rendered and kept while
    the same write is worth repeating (failed_write), so a double click or
    the box's Retry is one new turn, not two."""

    idempotency_key = IdempotencyKeyField()


# What a read-only member is told by the share link addresses: a link hands
# the workspace's content to people outside it, so it takes a role that writes.
SHARE_READ_ONLY = (
    "Share links hand the workspace's content to people outside it, so only a member "
    "who may write can make or revoke one: ask a workspace admin for such a role."
)


class ShareForm(forms.Form):
    """A new share link: only how long it stays open. What is shared is read
    from the service when the form is sent, never taken from the browser."""

    days = forms.TypedChoiceField(
        label=gettext_lazy("Open for"),
        choices=[(1, gettext_lazy("1 day")), (7, gettext_lazy("7 days")), (30, gettext_lazy("30 days"))],
        coerce=int,
        initial=7,
        widget=forms.RadioSelect,
        help_text=gettext_lazy("After that the link answers “not found”. You can revoke it sooner."),
    )


class RestoreVersionForm(forms.Form):
    """ "Make this the current version" (studio/rollback.py): nothing but its
    key. The content sent is the kept version's, read from the console's
    row, never from the browser; a double click is one revision turn."""

    idempotency_key = IdempotencyKeyField()


class AnotherTakeForm(forms.Form):
    """ "Another take" of a finished document or image turn: the brief as
    the person read it (prefilled from the conversation, studio/takes.py
    take_brief; it may be changed), sent with "decide for me". The studio
    and the board come from the stored turn, never from the browser."""

    message = CountedCharField(limit=None, widget=CountedTextarea(attrs={"rows": 8}), label=gettext_lazy("The brief"))
    idempotency_key = IdempotencyKeyField()

    def __init__(self, *args, studio: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.studio = studio
        limit = MESSAGE_MAX_LENGTH.get(studio, LONGEST_MESSAGE)
        field = self.fields["message"]
        field.help_text = f"Up to {integer(limit)} characters. Change it to ask for a different take."
        field.widget.attrs["data-max-length"] = str(limit)
        field.widget.attrs["data-limit-noun"] = message_noun(studio)
        field.error_messages["required"] = "Write the brief the director makes the take from."

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        message = cleaned.get("message")
        if message and (refusal := too_long(self.studio, message)):
            self.add_error("message", refusal)
        return cleaned


class KeepTakeForm(forms.Form):
    """ "Keep this one": the take's number in its set (a console write only)."""

    take = forms.IntegerField(min_value=1, max_value=99)
