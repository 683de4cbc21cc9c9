from __future__ import annotations

from django import forms

from dashboard.idempotency import IdempotencyKeyField
from dashboard.web.forms import QuestionsForm

# The five studios and the longest `message` each accepts (spec, "Limits").
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


class StudioSelect(forms.Select):
    """A studio select whose options carry their message limit, so the
    message box's maxlength follows the chosen studio (static/js/studio.js)."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if value in MESSAGE_MAX_LENGTH:
            option["attrs"]["data-max-length"] = MESSAGE_MAX_LENGTH[value]
        return option


class TurnForm(forms.Form):
    """Start a Studio turn: one message to a studio's director."""

    studio = forms.ChoiceField(
        choices=[(name, label) for name, label, _ in STUDIOS],
        initial="website",
        widget=StudioSelect(attrs={"data-studio-select": ""}),
    )
    message = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5, "data-studio-message": ""}),
        max_length=LONGEST_MESSAGE,
        help_text="Website, image and video turns take up to 3,800 characters; documents and apps up to 18,000.",
    )
    artifact_id = forms.UUIDField(
        required=False,
        label="Artifact id",
        help_text="Optional: work on an existing website, document, app, image board or video project.",
    )
    conversation_id = forms.UUIDField(
        required=False, label="Conversation id", help_text="Optional: continue a conversation with the director."
    )
    auto = forms.BooleanField(
        required=False,
        label="Decide for me",
        help_text="The director makes it now instead of asking questions first.",
    )
    idempotency_key = IdempotencyKeyField()

    @classmethod
    def initial_from(cls, query) -> dict:
        """Initial values from a link (`?studio=&conversation_id=&artifact_id=`); anything malformed is ignored."""
        initial = {}
        if query.get("studio") in MESSAGE_MAX_LENGTH:
            initial["studio"] = query["studio"]
        for name in ("conversation_id", "artifact_id"):
            try:
                initial[name] = cls.base_fields[name].clean(query.get(name) or "") or None
            except forms.ValidationError:
                continue
        return {key: value for key, value in initial.items() if value}

    def clean(self):
        cleaned = super().clean()
        studio, message = cleaned.get("studio"), cleaned.get("message")
        if studio and message and len(message) > MESSAGE_MAX_LENGTH[studio]:
            self.add_error(
                "message",
                f"{STUDIO_LABELS[studio]} messages can be at most {MESSAGE_MAX_LENGTH[studio]:,} characters "
                f"(this one has {len(message):,}).",
            )
        return cleaned


class ReplyForm(QuestionsForm):
    """Answer a turn that needs input: pick an option per question and/or write a reply.

    The studio, conversation and artifact come from the stored turn, never from
    the browser.
    """

    message = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        max_length=LONGEST_MESSAGE,
        label="Your reply",
    )
    idempotency_key = IdempotencyKeyField()

    def __init__(self, *args, questions: list[dict] | None = None, max_length: int = LONGEST_MESSAGE, **kwargs):
        super().__init__(*args, **kwargs)
        self.max_length = max_length
        self.fields["message"].max_length = max_length
        self.fields["message"].widget.attrs["maxlength"] = str(max_length)
        self.add_question_fields(questions)

    def clean(self):
        cleaned = super().clean()
        if not self.reply_text(cleaned):
            raise forms.ValidationError("Pick an answer or write a reply.")
        if len(self.reply_text(cleaned)) > self.max_length:
            self.add_error("message", f"The reply can be at most {self.max_length:,} characters.")
        return cleaned


# A refusal of a reused Idempotency-Key names no field: say what to do about it.
CONFLICT_MESSAGE = (
    "This form was already sent with different content, so the service refused it. "
    "Check your recent turns below, then send it again."
)
