"""How a remote refusal lands on a form, and form pieces shared by areas.

One rule for every form: the service's 400 `details` and 422 messages go on
the fields they name (nested names like `values.email` or `fields.2.label`
are followed; an area can name aliases), anything that names no field goes in
a message above the form, and what was typed stays. Any other failure (5xx,
timeout, 429, 401...) is a message box above the form (`failed_write`).

Keys: a refused form gets a new Idempotency-Key (the corrected body is a new
write); a form whose send failed for a retryable reason keeps its key, so
sending it again is the same write and the service never does it twice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django import forms
from django.forms.renderers import TemplatesSetting
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from dashboard.api import errors
from dashboard.api.messages import already_sent_words, key_reused, made_by, with_request_id
from dashboard.idempotency import IdempotencyKeyField, form_sent, posted_key, renew_idempotency_key

if TYPE_CHECKING:
    from django.http import HttpRequest

    from dashboard.frame.remote_errors import RemoteErrorView

# Refusals of the values sent: they go on the form.
FORM_ERRORS = (errors.InvalidRequestError, errors.UnprocessableError, errors.ConflictError)
# Failures after which sending the same form again is a retry of the same write.
RETRY_SAME_WRITE = (errors.RateLimitedError, errors.ServerError, errors.ApiConnectionError)

KEY_FIELD = "idempotency_key"


def place_remote_error(
    form: forms.BaseForm,
    exc: errors.ApiError,
    *,
    aliases: Mapping[str, str] | None = None,
    rows: Sequence[forms.BaseForm] | None = None,
    rows_name: str = "fields",
    conflict_message: str | None = None,
) -> None:
    """Put the service's refusal on `form` (never raises, whatever the shape).

    - `aliases`: the service's name of a field -> the form's (e.g.
      `{"id": "target_id"}`); matched on the whole name and on its last part.
    - `rows`: the forms of a formset the body's list `rows_name` came from,
      in the order sent, so `fields.2.label` lands on row 2's label.
    - `conflict_message`: what to say for a 409 that names no field.
    """
    if key_reused(exc):
        # Back, edit, send: the first send made something; this one made nothing.
        form.add_error(None, already_sent(form, exc))
        form.already_sent = True  # type: ignore[attr-defined]  # the error summary's heading
        return
    aliases = aliases or {}
    unplaced: list[str] = []
    placed = False
    for name, messages in exc.field_errors.items():
        text = " ".join(messages) or exc.message
        parts = name.split(".")
        if rows is not None and len(parts) > 1 and parts[0] == rows_name and parts[1].isdigit():
            index = int(parts[1])
            if index < len(rows):
                _place_on_row(rows[index], parts[2] if len(parts) > 2 else "", text)
                placed = True
                continue
        field_name = _form_field(form, name, parts, aliases)
        if field_name is None:
            unplaced.append(f"{_humanize(name)}: {text}")
            continue
        for message in messages or [exc.message]:
            form.add_error(field_name, with_request_id(_sentence(form, field_name, message), exc))
        placed = True
    for line in unplaced:
        form.add_error(None, with_request_id(line, exc))
    if placed or unplaced:
        return
    named = field_named_in(exc.message, form)
    if conflict_message is not None and isinstance(exc, errors.ConflictError):
        form.add_error(None, with_request_id(conflict_message, exc))
    elif named is not None:
        form.add_error(named, with_request_id(exc.message, exc))
    else:
        form.add_error(None, with_request_id(exc.message, exc))


def already_sent(form: forms.BaseForm, exc: errors.ApiError) -> SafeString:
    """What a form sent again with other values says: what its first send
    made (a link to it when the console saw where it led), and that sending
    again makes another (the form gets a fresh key: `failed_write`)."""
    sent: dict[str, str] = {}
    for name, field in form.fields.items():
        key = posted_key(form, name) if isinstance(field, IdempotencyKeyField) else ""
        sent = form_sent(key) if key else {}
        if sent:
            break
    method = sent.get("method", "POST")
    before, made, after = already_sent_words(method=method, made=made_by(method, sent.get("path", "")))
    after = with_request_id(after.rstrip("."), exc) + "." if exc.request_id else after
    if sent.get("page"):
        return format_html('{} <a href="{}">{}</a>{}', before, sent["page"], made, after)
    return format_html("{} {}{}", before, made, after)


def failed_write(
    request: HttpRequest, form: forms.BaseForm | None, exc: errors.ApiError, **placement: Any
) -> RemoteErrorView | None:
    """Where a failed write's error goes. A refusal of the values lands on
    the form (with a new key) and None is returned; anything else comes back
    as the message box to show above the form (the key renewed unless the
    failure is worth retrying as the same write). `placement` is passed to
    `place_remote_error`."""
    from dashboard.frame.remote_errors import describe_remote_error

    if form is not None and isinstance(exc, FORM_ERRORS):
        place_remote_error(form, exc, **placement)
        renew_idempotency_key(form)
        return None
    if form is not None and not isinstance(exc, RETRY_SAME_WRITE):
        renew_idempotency_key(form)
    return describe_remote_error(request, exc)


def _form_field(form: forms.BaseForm, name: str, parts: list[str], aliases: Mapping[str, str]) -> str | None:
    for candidate in (aliases.get(name), aliases.get(parts[-1]), parts[0], parts[-1]):
        if candidate and candidate != KEY_FIELD and candidate in form.fields and not form.fields[candidate].disabled:
            return candidate
    return None


def _place_on_row(row: forms.BaseForm, attribute: str, text: str) -> None:
    if attribute and attribute != KEY_FIELD and attribute in row.fields and not row.fields[attribute].disabled:
        row.add_error(attribute, text)
    elif attribute:
        row.add_error(None, gettext("%(humanize)s: %(text)s") % {"humanize": _humanize(attribute), "text": text})
    else:
        row.add_error(None, text)


def _humanize(name: str) -> str:
    return name.replace("_", " ").replace(".", " ").strip().capitalize()


def _sentence(form: forms.BaseForm, field_name: str, message: str) -> str:
    """The service says "is required"; the field says "Email is required."
    (or "This is required." under a label that is a question)."""
    if message[:1].islower():
        label = str(form.fields[field_name].label or _humanize(field_name)).strip()
        subject = "This" if label.endswith(("?", ":")) else label
        return f"{subject} {message.rstrip('.')}."
    return message


def field_named_in(message: str, form: forms.BaseForm) -> str | None:
    """The field a message without details names: a quoted or leading key,
    else a whole-word key, else a label."""
    keys = {name for name, field in form.fields.items() if name != KEY_FIELD and not field.disabled}
    labels = {str(form.fields[name].label).lower(): name for name in keys if form.fields[name].label}
    text = message or ""
    for match in re.finditer(r"['\"`]([A-Za-z0-9_]+)['\"`]", text):
        if match.group(1) in keys:
            return match.group(1)
    leading = re.match(r"\s*(?:values\.)?([A-Za-z0-9_]+)\s*[:]", text)
    if leading and leading.group(1) in keys:
        return leading.group(1)
    words = set(re.findall(r"[A-Za-z0-9_]+", text))
    for key in sorted(keys, key=len, reverse=True):
        if key in words and ("_" in key or len(key) > 3):
            return key
    lowered = text.lower()
    for label in sorted(labels, key=len, reverse=True):
        if label and label in lowered:
            return labels[label]
    return None


class QuestionsForm(forms.Form):
    """A reply to a service that asked questions (the agent builder, a
    studio's director): one optional radio choice `answer_<n>` per question
    that has options, plus the form's own free-text `message`.

    Subclasses declare `message`, call `add_question_fields()` from
    `__init__` and validate `reply_text()` in `clean()` with their own wording.
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


class ConsoleFormRenderer(TemplatesSetting):
    """Renders every form field of the console with one template (`{{ field.as_field_group }}`).

    TemplatesSetting, not DjangoTemplates: the field template lives in the project's templates/
    and loads template_partials, which only the project's engine knows.
    """

    field_template_name = "forms/field.html"
