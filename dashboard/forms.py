"""Form pieces shared by the areas."""

from __future__ import annotations

from django import forms

from dashboard.api import errors


class QuestionsForm(forms.Form):
    """A reply to a service that asked questions (the agent builder, a studio's
    director): one optional radio choice `answer_<n>` per question that has
    options, plus the form's own free-text `message`.

    Subclasses declare `message`, call `add_question_fields()` from `__init__`
    and validate `reply_text()` in `clean()` with their own wording.
    """

    questions: list[dict] | tuple = ()

    def add_question_fields(self, questions: list[dict] | None) -> None:
        self.questions = questions or []
        for index, question in enumerate(self.questions):
            options = question.get("options") or []
            if options:
                self.fields[f"answer_{index}"] = forms.ChoiceField(
                    label=_question_text(question, index),
                    choices=[(option, option) for option in options],
                    required=False,
                    widget=forms.RadioSelect,
                )

    def question_rows(self) -> list[tuple[dict, forms.BoundField | None]]:
        """Each question with its answer field (None for a question without options)."""
        return [
            (question, self[f"answer_{index}"] if f"answer_{index}" in self.fields else None)
            for index, question in enumerate(self.questions)
        ]

    def reply_text(self, cleaned: dict | None = None) -> str:
        """The message to send: each picked answer under its question, then the free text."""
        cleaned = self.cleaned_data if cleaned is None else cleaned
        parts = []
        for index, question in enumerate(self.questions):
            answer = cleaned.get(f"answer_{index}")
            if answer:
                parts.append(f"{_question_text(question, index)}\n{answer}")
        typed = (cleaned.get("message") or "").strip()
        if typed:
            parts.append(typed)
        return "\n\n".join(parts)


def _question_text(question: dict, index: int) -> str:
    return question.get("text") or f"Question {index + 1}"


def place_remote_error(form: forms.Form, exc: errors.ApiError, *, conflict_message: str | None = None) -> None:
    """The service's refusal (400/409/422) on the field it names when it is
    one of the form's, otherwise on the form, with the request id. A conflict
    that names no field says `conflict_message` instead of the service's text
    when one is given."""
    suffix = f" (request id {exc.request_id})" if exc.request_id else ""
    placed = False
    for field, messages in exc.field_errors.items():
        name = field.split(".")[0]
        if name in form.fields and name != "idempotency_key":
            for message in messages:
                form.add_error(name, f"{message}{suffix}")
            placed = True
    if placed:
        return
    if conflict_message is not None and isinstance(exc, errors.ConflictError):
        form.add_error(None, f"{conflict_message}{suffix}")
    else:
        form.add_error(None, f"{exc.message}{suffix}")
